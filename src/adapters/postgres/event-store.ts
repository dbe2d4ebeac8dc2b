/**
 * Postgres event store (works on PostgreSQL and PGlite through the same Kysely).
 * Append bumps the stream row guarded by the expected version, so of N concurrent writers
 * at one version exactly one wins; the others update zero rows and get a conflict.
 * Inline projections run in the appending transaction, so their read models never lag.
 * With a sealer, personal fields are sealed on the way in and opened on every read; inline
 * projections see the fields as the caller gave them.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import {
  VersionConflictError,
  type AppendOptions,
  type AppendResult,
  type Checkpoint,
  type CommittedOfTypes,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type InlineProjection,
  type NewEvent,
  type ReadStreamResult,
  type RecordedEvent,
  type StreamAppend,
  type StreamTypePage,
} from '../../ports/event-store.ts';
import { toRecorded, type EventRow } from '../../db/event-rows.ts';
import { committedHead, countCommittedAfter, readCommittedAfter, readCommittedOfTypes } from './committed-events.ts';
import type { PersonalDataSealer } from '../../ports/subject-keys.ts';
import { PERSONAL_FIELDS } from '../../domain/personal-data/personal-fields.ts';

/** The stream id a unique violation on streams or events names, or null for any other error. */
function uniqueViolation(error: unknown): string | null {
  const e = error as { code?: unknown; detail?: unknown };
  if (e.code !== '23505') return null;
  // The streams insert or the events insert may be the one to fail: "(stream_id)=(x)" or "(stream_id, stream_position)=(x, 1)".
  return /\(stream_id(?:, stream_position)?\)=\(([^,)]*)/.exec(typeof e.detail === 'string' ? e.detail : '')?.[1] ?? '';
}

export class PostgresEventStore implements EventStore<Trx> {
  constructor(
    private readonly db: Db,
    private readonly inline: readonly InlineProjection<Trx>[] = [],
    private readonly sealer?: PersonalDataSealer<Trx>,
  ) {}

  #open(events: RecordedEvent[], trx?: Trx): Promise<RecordedEvent[]> {
    return this.sealer ? this.sealer.open(events, trx) : Promise.resolve(events);
  }

  /** The recorded events with the data the caller appended (for inline projections); `before`: the stream version before them. */
  static #asGiven(recorded: RecordedEvent[], given: readonly NewEvent[], before: number): RecordedEvent[] {
    return recorded.map((event) => ({ ...event, data: given[event.streamPosition - before - 1]!.data }));
  }

  async append(
    streamId: string,
    expected: ExpectedVersion,
    events: readonly NewEvent[],
    options: AppendOptions<Trx>,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    if (options.trx) return this.#appendIn(options.trx, streamId, expected, events, options);
    return this.db.transaction().execute((trx) => this.#appendIn(trx, streamId, expected, events, options));
  }

  /**
   * One statement whose text does not depend on the batch size: the whole batch travels as
   * one JSON parameter. For the busiest writer (one audit event per keyed request) that is
   * one round trip instead of a transaction's four, and one statement for every batch size.
   */
  async recordFacts(items: readonly { streamId: string; event: NewEvent; metadata: EventMetadata }[], streamType: string): Promise<void> {
    if (items.length === 0) return;
    const handled = this.inline.filter((p) => items.some((i) => p.handles.includes(i.event.type)));
    if (handled.length > 0) throw new Error(`recordFacts skips inline projections, and ${handled[0]!.name} handles these events`);
    const personal = items.find((i) => PERSONAL_FIELDS[i.event.type] !== undefined);
    if (personal) throw new Error(`recordFacts does not seal personal data, and ${personal.event.type} carries some: append it`);
    const rows = JSON.stringify(
      items.map((i) => ({
        stream_id: i.streamId,
        type: i.event.type,
        schema_version: i.event.schemaVersion ?? 1,
        data: i.event.data,
        metadata: i.metadata,
        at: i.metadata.occurredAt,
      })),
    );
    try {
      await this.#insertFacts(rows, streamType);
    } catch (error) {
      const existing = uniqueViolation(error);
      if (existing === null) throw error;
      throw new VersionConflictError(existing, 0);
    }
  }

  async #insertFacts(rows: string, streamType: string): Promise<void> {
    await sql`
      with input as (
        select * from jsonb_to_recordset(${rows}::text::jsonb)
          as x(stream_id text, type text, schema_version int, data jsonb, metadata jsonb, at timestamptz)
      ),
      started as (
        insert into streams (stream_id, stream_type, version, created_at, updated_at)
        select stream_id, ${streamType}, 1, at, at from input
      )
      insert into events (stream_id, stream_position, type, schema_version, data, metadata, recorded_at)
      select stream_id, 1, type, schema_version, data, metadata, at from input`.execute(this.db);
  }

  readCommittedAfter(after: Checkpoint, limit: number, trx?: Trx): Promise<RecordedEvent[]> {
    return readCommittedAfter(trx ?? this.db, after, limit).then((events) => this.#open(events, trx));
  }

  async readCommittedOfTypes(after: Checkpoint, limit: number, types: readonly string[], trx?: Trx): Promise<CommittedOfTypes> {
    const read = await readCommittedOfTypes(trx ?? this.db, after, limit, types);
    return { ...read, events: await this.#open(read.events, trx) };
  }

  countCommittedAfter(after: Checkpoint, ceiling: number): Promise<number> {
    return countCommittedAfter(this.db, after, ceiling);
  }

  committedHead(): Promise<Checkpoint> {
    return committedHead(this.db);
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
    return { events: await this.#open(rows.map(toRecorded), trx), version };
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
    return this.#open(rows.map(toRecorded));
  }

  async readStreamTypeByPosition(page: StreamTypePage & { after: number; recordedBefore?: Date }): Promise<RecordedEvent[]> {
    const rows = await this.db
      .selectFrom('events')
      .innerJoin('streams', 'streams.streamId', 'events.streamId')
      .selectAll('events')
      .where('streams.streamType', '=', page.streamType)
      .$if(page.streamId !== undefined, (qb) => qb.where('events.streamId', '=', page.streamId ?? ''))
      .$if(page.recordedBefore !== undefined, (qb) => qb.where('events.recordedAt', '<', page.recordedBefore ?? new Date(0)))
      .where('events.globalPosition', '>', page.after)
      .orderBy('events.globalPosition')
      .limit(page.limit)
      .execute();
    return this.#open(rows.map(toRecorded));
  }

  async readStreamTypeByStream(page: StreamTypePage & { after: readonly [string, number]; trx?: Trx }): Promise<RecordedEvent[]> {
    const [afterStream, afterPosition] = page.after;
    const rows = await (page.trx ?? this.db)
      .selectFrom('events')
      .innerJoin('streams', 'streams.streamId', 'events.streamId')
      .selectAll('events')
      .where('streams.streamType', '=', page.streamType)
      .$if(page.streamId !== undefined, (qb) => qb.where('events.streamId', '=', page.streamId ?? ''))
      .where((eb) => eb(eb.refTuple('events.streamId', 'events.streamPosition'), '>', eb.tuple(afterStream, afterPosition)))
      .orderBy('events.streamId')
      .orderBy('events.streamPosition')
      .limit(page.limit)
      .execute();
    return this.#open(rows.map(toRecorded), page.trx);
  }

  async readEventTypeByPosition(page: {
    type: string;
    after: number;
    limit: number;
    recordedFrom?: Date;
    recordedBefore?: Date;
  }): Promise<RecordedEvent[]> {
    const rows = await this.db
      .selectFrom('events')
      .selectAll()
      .where('type', '=', page.type)
      .where('globalPosition', '>', page.after)
      .$if(page.recordedFrom !== undefined, (qb) => qb.where('recordedAt', '>=', page.recordedFrom ?? new Date(0)))
      .$if(page.recordedBefore !== undefined, (qb) => qb.where('recordedAt', '<', page.recordedBefore ?? new Date(0)))
      .orderBy('globalPosition')
      .limit(page.limit)
      .execute();
    return this.#open(rows.map(toRecorded));
  }

  async #appendIn(
    trx: Trx,
    streamId: string,
    expected: ExpectedVersion,
    events: readonly NewEvent[],
    options: AppendOptions<Trx>,
  ): Promise<AppendResult> {
    const now = new Date(options.metadata.occurredAt);
    const stored = this.sealer ? await this.sealer.seal(events, trx) : events;
    if (typeof expected === 'number' && expected > 0) return this.#appendAt(trx, streamId, expected, stored, events, options, now);
    const current = await this.#claimVersions(trx, streamId, expected, events.length, options.streamType, now);
    const rows = await trx
      .insertInto('events')
      .values(
        stored.map((event, i) => ({
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
    await this.#project(trx, PostgresEventStore.#asGiven(recorded, events, current));
    const last = recorded[recorded.length - 1];
    return { nextExpectedVersion: current + events.length, lastGlobalPosition: last ? last.globalPosition : 0 };
  }

  /**
   * An append at a known version in one statement: the version bump and the events' insert
   * travel together, and the insert writes nothing when the bump matched no row (a
   * conflict, which is no SQL error, so the caller's transaction stays usable).
   */
  async #appendAt(
    trx: Trx,
    streamId: string,
    expected: number,
    events: readonly NewEvent[],
    given: readonly NewEvent[],
    options: AppendOptions<Trx>,
    now: Date,
  ): Promise<AppendResult> {
    const input = JSON.stringify(
      events.map((event, i) => ({
        n: i + 1,
        type: event.type,
        schema_version: event.schemaVersion ?? 1,
        data: event.data,
        metadata: event.metadata ?? options.metadata,
      })),
    );
    const { rows } = await sql<EventRow>`
      with bumped as (
        update streams set version = version + ${events.length}, updated_at = ${now}
        where stream_id = ${streamId} and version = ${expected}
        returning version - ${events.length} as before
      )
      insert into events (stream_id, stream_position, type, schema_version, data, metadata, recorded_at)
      select ${streamId}, bumped.before + x.n, x.type, x.schema_version, x.data, x.metadata, ${now}
      from bumped, jsonb_to_recordset(${input}::text::jsonb) as x(n int, type text, schema_version int, data jsonb, metadata jsonb)
      returning *`.execute(trx);
    if (rows.length === 0) throw new VersionConflictError(streamId, expected);
    const recorded = rows.map(toRecorded).sort((a, b) => a.streamPosition - b.streamPosition);
    await this.#project(trx, PostgresEventStore.#asGiven(recorded, given, expected));
    return { nextExpectedVersion: expected + events.length, lastGlobalPosition: recorded[recorded.length - 1]!.globalPosition };
  }

  async appendToStreams(appends: readonly StreamAppend[], options: AppendOptions<Trx> & { readonly trx: Trx }): Promise<AppendResult[]> {
    const { trx } = options;
    const now = new Date(options.metadata.occurredAt);
    const input: object[] = [];
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length) throw new Error('appendToStreams got one stream twice');
    for (const { streamId, expected, events } of appends) {
      if (events.length === 0) throw new Error(`appendToStreams got no events for ${streamId}`);
      if (!Number.isInteger(expected) || expected < 1)
        throw new Error(`appendToStreams needs an existing stream's version for ${streamId}`);
      const stored = this.sealer ? await this.sealer.seal(events, trx) : events;
      stored.forEach((event, i) =>
        input.push({
          ord: input.length,
          stream_id: streamId,
          expected,
          count: events.length,
          n: i + 1,
          type: event.type,
          schema_version: event.schemaVersion ?? 1,
          data: event.data,
          metadata: event.metadata ?? options.metadata,
        }),
      );
    }
    if (input.length === 0) return [];
    // Positions are drawn in the given order (the sort), so each stream's global order is its own.
    const { rows } = await sql<EventRow>`
      with input as (
        select * from jsonb_to_recordset(${JSON.stringify(input)}::text::jsonb)
          as x(ord int, stream_id text, expected int, count int, n int, type text, schema_version int, data jsonb, metadata jsonb)
      ),
      bumped as (
        update streams s set version = s.version + c.count, updated_at = ${now}
        from (select distinct stream_id, expected, count from input) c
        where s.stream_id = c.stream_id and s.version = c.expected
        returning s.stream_id
      )
      insert into events (stream_id, stream_position, type, schema_version, data, metadata, recorded_at)
      select i.stream_id, i.expected + i.n, i.type, i.schema_version, i.data, i.metadata, ${now}
      from input i join bumped b on b.stream_id = i.stream_id
      order by i.ord
      returning *`.execute(trx);
    const byStream = new Map<string, RecordedEvent[]>();
    for (const row of rows.map(toRecorded)) {
      const stream = byStream.get(row.streamId);
      if (stream) stream.push(row);
      else byStream.set(row.streamId, [row]);
    }
    const given: RecordedEvent[][] = [];
    for (const { streamId, expected, events } of appends) {
      const recorded = (byStream.get(streamId) ?? []).sort((a, b) => a.streamPosition - b.streamPosition);
      if (recorded.length !== events.length) throw new VersionConflictError(streamId, expected);
      given.push(PostgresEventStore.#asGiven(recorded, events, expected));
    }
    for (const projection of this.inline) {
      const parts = given.map((recorded) => recorded.filter((e) => projection.handles.includes(e.type))).filter((r) => r.length > 0);
      if (parts.length === 0) continue;
      if (projection.acrossStreams) await projection.apply(trx, parts.flat());
      else for (const part of parts) await projection.apply(trx, part);
    }
    return given.map((recorded, i) => ({
      nextExpectedVersion: appends[i]!.expected + appends[i]!.events.length,
      lastGlobalPosition: recorded[recorded.length - 1]!.globalPosition,
    }));
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
