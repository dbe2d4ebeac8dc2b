/**
 * Event store tables. Streams hold the version used for optimistic concurrency;
 * events are append-only (a trigger in a custom migration refuses UPDATE and DELETE);
 * each projector keeps a checkpoint of the last (transaction id, position) it applied.
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { xid8 } from './types.ts';

export const streams = pgTable('streams', {
  streamId: text('stream_id').primaryKey(),
  streamType: text('stream_type').notNull(),
  version: bigint('version', { mode: 'number' }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});

export const events = pgTable(
  'events',
  {
    globalPosition: bigserial('global_position', { mode: 'number' }).primaryKey(),
    streamId: text('stream_id')
      .notNull()
      .references(() => streams.streamId),
    streamPosition: bigint('stream_position', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    schemaVersion: integer('schema_version').notNull(),
    data: jsonb('data').notNull(),
    metadata: jsonb('metadata').notNull(),
    transactionId: xid8('transaction_id')
      .notNull()
      .default(sql`pg_current_xact_id()`),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    unique('events_stream_position_unique').on(t.streamId, t.streamPosition),
    index('events_tx_position_idx').on(t.transactionId, t.globalPosition),
    index('events_type_idx').on(t.type),
  ],
);

export const projectorCheckpoints = pgTable('projector_checkpoints', {
  projector: text('projector').primaryKey(),
  transactionId: xid8('transaction_id').notNull(),
  globalPosition: bigint('global_position', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});
