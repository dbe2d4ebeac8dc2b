/**
 * Appends audit events, each the first and only event of a fresh stream, in one statement
 * whose text does not depend on the batch size: the whole batch travels as one JSON
 * parameter. This is the event store's `startStreams` specialised for the trail, the
 * busiest writer (one event per keyed request): one round trip instead of a transaction's
 * four, one prepared statement for every batch size, and nothing read back, which is
 * right here because no inline projection handles audit events (the trail reaches
 * ClickHouse through its checkpointed projector).
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EventMetadata } from '../../ports/event-store.ts';

export interface AuditAppend {
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

export async function appendAuditEvents(db: Db, streamType: string, items: readonly AuditAppend[]): Promise<void> {
  if (items.length === 0) return;
  const rows = JSON.stringify(
    items.map((i) => ({ stream_id: i.streamId, type: i.type, data: i.data, metadata: i.metadata, at: i.metadata.occurredAt })),
  );
  await sql`
    with input as (
      select * from jsonb_to_recordset(${rows}::text::jsonb)
        as x(stream_id text, type text, data jsonb, metadata jsonb, at timestamptz)
    ),
    started as (
      insert into streams (stream_id, stream_type, version, created_at, updated_at)
      select stream_id, ${streamType}, 1, at, at from input
    )
    insert into events (stream_id, stream_position, type, schema_version, data, metadata, recorded_at)
    select stream_id, 1, type, 1, data, metadata, at from input`.execute(db);
}
