/**
 * Postgres event store (works on PostgreSQL and PGlite through the same Kysely).
 * Append bumps the stream row guarded by the expected version, so of N concurrent writers
 * at one version exactly one wins; the others update zero rows and get a conflict.
 * Inline projections run in the appending transaction, so their read models never lag.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import {
  VersionConflictError,
  type AppendResult,
  type EventMetadata,
  type ExpectedVersion,
  type NewEvent,
  type ReadStreamResult,
  type RecordedEvent,
} from '../../ports/event-store.ts';

export interface InlineProjection {
  readonly name: string;
  readonly handles: readonly string[];
  apply(trx: Trx, events: readonly RecordedEvent[]): Promise<void>;
}

export interface AppendOptions {
  readonly streamType: string;
  readonly metadata: EventMetadata;
  /** Join a transaction the caller already holds (several streams in one commit). */
  readonly trx?: Trx;
}

type EventRow = {
  globalPosition: number;
  streamId: string;
  streamPosition: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
  transactionId: string;
  recordedAt: Date;
};

export function toRecorded(row: EventRow): RecordedEvent {
  return { ...row, metadata: row.metadata as EventMetadata, recordedAt: new Date(row.recordedAt) };
}

export class PostgresEventStore {
  constructor(
    private readonly db: Db,
    private readonly inline: readonly InlineProjection[] = [],
  ) {}

  async append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    if (options.trx) return this.#appendIn(options.trx, streamId, expected, events, options);
    return this.db.transaction().execute((trx) => this.#appendIn(trx, streamId, expected, events, options));
  }

  /**
   * Starts many new streams of one event each, in two multi-row statements: for high-volume
   * facts with no invariant across events (audit records). Any stream that already exists
   * makes the whole batch conflict, as appending at version 0 would.
   */
  async startStreams(
    items: readonly { streamId: string; event: NewEvent; metadata: EventMetadata }[],
    streamType: string,
    trx: Trx,
  ): Promise<void> {
    if (items.length === 0) return;
    const created = await trx
      .insertInto('streams')
      .values(
        items.map((i) => ({
          streamId: i.streamId,
          streamType,
          version: 1,
          createdAt: new Date(i.metadata.occurredAt),
          updatedAt: new Date(i.metadata.occurredAt),
        })),
      )
      .onConflict((oc) => oc.column('streamId').doNothing())
      .returning('streamId')
      .execute();
    if (created.length !== items.length) {
      const fresh = new Set(created.map((r) => r.streamId));
      throw new VersionConflictError(items.find((i) => !fresh.has(i.streamId))?.streamId ?? '', 0);
    }
    const rows = await trx
      .insertInto('events')
      .values(
        items.map((i) => ({
          streamId: i.streamId,
          streamPosition: 1,
          type: i.event.type,
          schemaVersion: i.event.schemaVersion ?? 1,
          data: i.event.data,
          metadata: i.metadata,
          recordedAt: new Date(i.metadata.occurredAt),
        })),
      )
      .returningAll()
      .execute();
    await this.#project(trx, rows.map(toRecorded));
  }

  async readStream(streamId: string, from = 1, trx?: Trx): Promise<ReadStreamResult> {
    const executor = trx ?? this.db;
    // Outside a transaction the two statements see two moments: the version first, then the
    // events up to it (written in the version's own transaction), so an append committed in
    // between cannot pair the events of one moment with the version of the next.
    const stream = await executor.selectFrom('streams').select('version').where('streamId', '=', streamId).executeTakeFirst();
    const version = stream?.version ?? 0;
    const rows = await executor
      .selectFrom('events')
      .selectAll()
      .where('streamId', '=', streamId)
      .where('streamPosition', '>=', from)
      .where('streamPosition', '<=', version)
      .orderBy('streamPosition')
      .execute();
    return { events: rows.map(toRecorded), version };
  }

  /** Every event after a global position, in position order (for audits and rebuilds). */
  async readAll(after: number, limit: number): Promise<RecordedEvent[]> {
    const rows = await this.db
      .selectFrom('events')
      .selectAll()
      .where('globalPosition', '>', after)
      .orderBy('globalPosition')
      .limit(limit)
      .execute();
    return rows.map(toRecorded);
  }

  async #appendIn(
    trx: Trx,
    streamId: string,
    expected: ExpectedVersion,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    const now = new Date(options.metadata.occurredAt);
    const current = await this.#claimVersions(trx, streamId, expected, events.length, options.streamType, now);
    const rows = await trx
      .insertInto('events')
      .values(
        events.map((event, i) => ({
          streamId,
          streamPosition: current + i + 1,
          type: event.type,
          schemaVersion: event.schemaVersion ?? 1,
          data: event.data,
          metadata: event.metadata ?? options.metadata,
          recordedAt: now,
        })),
      )
      .returningAll()
      .execute();
    const recorded = rows.map(toRecorded);
    await this.#project(trx, recorded);
    const last = recorded[recorded.length - 1];
    return { nextExpectedVersion: current + events.length, lastGlobalPosition: last ? last.globalPosition : 0 };
  }

  async #project(trx: Trx, recorded: readonly RecordedEvent[]): Promise<void> {
    for (const projection of this.inline) {
      const relevant = recorded.filter((e) => projection.handles.includes(e.type));
      if (relevant.length > 0) await projection.apply(trx, relevant);
    }
  }

  /** Moves the stream version forward, or throws a conflict; returns the version before. */
  async #claimVersions(
    trx: Trx,
    streamId: string,
    expected: ExpectedVersion,
    count: number,
    streamType: string,
    now: Date,
  ): Promise<number> {
    if (expected === 0 || expected === 'any') {
      const created = await trx
        .insertInto('streams')
        .values({ streamId, streamType, version: count, createdAt: now, updatedAt: now })
        .onConflict((oc) => oc.column('streamId').doNothing())
        .returning('version')
        .executeTakeFirst();
      if (created) return 0;
      if (expected === 0) throw new VersionConflictError(streamId, expected);
    }
    const bumped = await trx
      .updateTable('streams')
      .set({ version: sql<number>`version + ${count}`, updatedAt: now })
      .where('streamId', '=', streamId)
      .$if(expected !== 'any', (qb) => qb.where('version', '=', expected as number))
      .returning('version')
      .executeTakeFirst();
    if (!bumped) throw new VersionConflictError(streamId, expected);
    return bumped.version - count;
  }
}
