/**
 * The event store against real databases (PGlite always, PostgreSQL when configured):
 * optimistic concurrency under 50 parallel writers, immutability enforced by the database,
 * and async projectors that never skip an event committed late.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.ts';
import type { Trx } from '../../src/db/database.ts';
import { VersionConflictError, type InlineProjection, type RecordedEvent } from '../../src/ports/event-store.ts';
import { ProjectorRunner, type AsyncProjection } from '../../src/projections/projector.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const metadata = (requestId: string) => ({ requestId, actor: 'test', occurredAt: '2026-01-01T00:00:00.000Z' });
const now = () => new Date('2026-01-01T00:00:00Z');

function collector(name: string): AsyncProjection & { seen: RecordedEvent[]; resets: number } {
  const seen: RecordedEvent[] = [];
  return {
    name,
    seen,
    resets: 0,
    apply: async (events) => void seen.push(...events),
    reset: async function () {
      this.resets += 1;
      seen.length = 0;
    },
  };
}

for (const factory of databases) {
  describe(`event store on ${factory.name}`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await factory.open();
    });
    after(async () => database.close());

    it('appends, reads back in order and reports the next version', async () => {
      const store = new PostgresEventStore(database.db);
      const first = await store.append('cart-1', 0, [{ type: 'Opened', data: { by: 'a' } }], {
        streamType: 'cart',
        metadata: metadata('r1'),
      });
      assert.equal(first.nextExpectedVersion, 1);
      const second = await store.append(
        'cart-1',
        1,
        [
          { type: 'ItemAdded', data: { sku: 'x', quantity: 2 } },
          { type: 'ItemAdded', data: { sku: 'y', quantity: 1 }, schemaVersion: 2 },
        ],
        { streamType: 'cart', metadata: metadata('r2') },
      );
      assert.equal(second.nextExpectedVersion, 3);
      const read = await store.readStream('cart-1');
      assert.equal(read.version, 3);
      assert.deepEqual(
        read.events.map((e) => [e.streamPosition, e.type, e.schemaVersion, e.data]),
        [
          [1, 'Opened', 1, { by: 'a' }],
          [2, 'ItemAdded', 1, { sku: 'x', quantity: 2 }],
          [3, 'ItemAdded', 2, { sku: 'y', quantity: 1 }],
        ],
      );
      assert.equal(read.events[1]?.metadata.requestId, 'r2');
      assert.ok(read.events[0]!.globalPosition < read.events[2]!.globalPosition);
    });

    it('refuses a stale expected version with a typed conflict and writes nothing', async () => {
      const store = new PostgresEventStore(database.db);
      await store.append('stale-1', 0, [{ type: 'A', data: {} }], { streamType: 't', metadata: metadata('a') });
      await assert.rejects(
        store.append('stale-1', 0, [{ type: 'B', data: {} }], { streamType: 't', metadata: metadata('b') }),
        (e: unknown) => e instanceof VersionConflictError && e.streamId === 'stale-1',
      );
      await assert.rejects(
        store.append('stale-1', 5, [{ type: 'B', data: {} }], { streamType: 't', metadata: metadata('b') }),
        VersionConflictError,
      );
      assert.equal((await store.readStream('stale-1')).events.length, 1);
    });

    it('lets exactly one of 50 concurrent appends at the same version win', async () => {
      const store = new PostgresEventStore(database.db);
      await store.append('race-1', 0, [{ type: 'Opened', data: {} }], { streamType: 'race', metadata: metadata('seed') });
      const attempts = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          store.append('race-1', 1, [{ type: 'Claimed', data: { by: i } }], { streamType: 'race', metadata: metadata(`w${i}`) }),
        ),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      assert.equal(won.length, 1);
      assert.equal(lost.length, 49);
      assert.ok(lost.every((a) => a.reason instanceof VersionConflictError));
      const read = await store.readStream('race-1');
      assert.equal(read.version, 2);
      assert.equal(read.events.length, 2);
    });

    it('lets exactly one of 50 concurrent creators of a new stream win', async () => {
      const store = new PostgresEventStore(database.db);
      const attempts = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          store.append('new-1', 0, [{ type: 'Opened', data: { by: i } }], { streamType: 'race', metadata: metadata(`n${i}`) }),
        ),
      );
      assert.equal(attempts.filter((a) => a.status === 'fulfilled').length, 1);
      assert.equal((await store.readStream('new-1')).events.length, 1);
    });

    it('records many one-event streams in one statement, and refuses the whole batch if one exists', async () => {
      const store = new PostgresEventStore(database.db);
      const item = (id: string) => ({ streamId: id, event: { type: 'Noted', data: { id } }, metadata: metadata(id) });
      await store.recordFacts([item('bulk-1'), item('bulk-2'), item('bulk-3')], 'bulk');
      assert.deepEqual(
        (await store.readStream('bulk-2')).events.map((e) => [e.streamPosition, e.data]),
        [[1, { id: 'bulk-2' }]],
      );
      await assert.rejects(
        store.recordFacts([item('bulk-4'), item('bulk-1')], 'bulk'),
        (e: unknown) => e instanceof VersionConflictError && e.streamId === 'bulk-1',
      );
      assert.equal((await store.readStream('bulk-4')).version, 0);
    });

    it('appends to several streams in one statement, projects them per stream or at once, and refuses a stale version', async () => {
      const calls: { name: string; streams: string[] }[] = [];
      const watching = (name: string, acrossStreams: boolean): InlineProjection<Trx> => ({
        name,
        handles: ['Added'],
        acrossStreams,
        apply: async (_trx, events) => void calls.push({ name, streams: [...new Set(events.map((e) => e.streamId))] }),
      });
      const store = new PostgresEventStore(database.db, [watching('per-stream', false), watching('at-once', true)]);
      for (const id of ['many-a', 'many-b', 'many-c'])
        await store.append(id, 0, [{ type: 'Opened', data: { id } }], { streamType: 'many', metadata: metadata(id) });
      calls.length = 0;
      const added = (n: number) => ({ type: 'Added', data: { n } });
      /** Appends in a transaction of its own, rolled back when the append throws. */
      const appendAll = (requestId: string, appends: Parameters<typeof store.appendToStreams>[0]) =>
        database.db
          .transaction()
          .execute((trx) => store.appendToStreams(appends, { streamType: 'many', metadata: metadata(requestId), trx }));
      const results = await appendAll('m', [
        { streamId: 'many-b', expected: 1, events: [added(1), added(2), added(3)] },
        { streamId: 'many-a', expected: 1, events: [added(4)] },
      ]);
      assert.deepEqual(
        results.map((r) => r.nextExpectedVersion),
        [4, 2],
      );
      const b = (await store.readStream('many-b')).events;
      assert.deepEqual(
        b.map((e) => [e.streamPosition, e.data]),
        [
          [1, { id: 'many-b' }],
          [2, { n: 1 }],
          [3, { n: 2 }],
          [4, { n: 3 }],
        ],
      );
      // Each stream's events take global positions in its own order.
      assert.deepEqual(
        b.map((e) => e.globalPosition),
        [...b.map((e) => e.globalPosition)].sort((x, y) => x - y),
      );
      assert.equal(results[0]!.lastGlobalPosition, b[3]!.globalPosition);
      assert.deepEqual(calls, [
        { name: 'per-stream', streams: ['many-b'] },
        { name: 'per-stream', streams: ['many-a'] },
        { name: 'at-once', streams: ['many-b', 'many-a'] },
      ]);
      await assert.rejects(
        appendAll('stale', [
          { streamId: 'many-c', expected: 1, events: [added(5)] },
          { streamId: 'many-a', expected: 1, events: [added(6)] },
        ]),
        (e: unknown) => e instanceof VersionConflictError && e.streamId === 'many-a',
      );
      assert.deepEqual(
        [(await store.readStream('many-c')).version, (await store.readStream('many-a')).version],
        [1, 2],
        'the rolled-back transaction moved neither stream',
      );
      await assert.rejects(
        appendAll('twice', [
          { streamId: 'many-c', expected: 1, events: [added(7)] },
          { streamId: 'many-c', expected: 1, events: [added(8)] },
        ]),
        /one stream twice/,
      );
    });

    it('refuses to record as facts events an inline projection handles', async () => {
      const projection = { name: 'noted-model', handles: ['Noted'], apply: async () => undefined };
      const store = new PostgresEventStore(database.db, [projection]);
      await assert.rejects(
        store.recordFacts([{ streamId: 'fact-1', event: { type: 'Noted', data: {} }, metadata: metadata('f') }], 'bulk'),
        /noted-model handles these events/,
      );
      assert.equal((await store.readStream('fact-1')).version, 0);
    });

    it('refuses to update, delete or truncate an event, whoever asks', async () => {
      const store = new PostgresEventStore(database.db);
      await store.append('immutable-1', 0, [{ type: 'A', data: { v: 1 } }], { streamType: 't', metadata: metadata('i') });
      await assert.rejects(sql`update events set data = '{"v":2}' where stream_id = 'immutable-1'`.execute(database.db), /immutable/);
      await assert.rejects(sql`delete from events where stream_id = 'immutable-1'`.execute(database.db), /immutable/);
      await assert.rejects(sql`truncate events cascade`.execute(database.db), /immutable/);
      assert.deepEqual((await store.readStream('immutable-1')).events[0]?.data, { v: 1 });
    });

    it('runs inline projections in the appending transaction, and rolls both back together', async () => {
      await sql`create table if not exists inline_totals (stream_id text primary key, total int not null)`.execute(database.db);
      const totals: InlineProjection<Trx> = {
        name: 'totals',
        handles: ['Added'],
        apply: async (trx, events) => {
          for (const e of events) {
            const amount = (e.data as { amount: number }).amount;
            if (amount < 0) throw new Error('negative amount');
            await sql`insert into inline_totals values (${e.streamId}, ${amount})
              on conflict (stream_id) do update set total = inline_totals.total + ${amount}`.execute(trx);
          }
        },
      };
      const store = new PostgresEventStore(database.db, [totals]);
      await store.append(
        'acct-1',
        0,
        [
          { type: 'Added', data: { amount: 5 } },
          { type: 'Noted', data: {} },
        ],
        { streamType: 'acct', metadata: metadata('x') },
      );
      await store.append('acct-1', 2, [{ type: 'Added', data: { amount: 7 } }], { streamType: 'acct', metadata: metadata('y') });
      await assert.rejects(
        store.append('acct-1', 3, [{ type: 'Added', data: { amount: -1 } }], { streamType: 'acct', metadata: metadata('z') }),
        /negative/,
      );
      const row = await sql<{ total: number }>`select total from inline_totals where stream_id = 'acct-1'`.execute(database.db);
      assert.equal(row.rows[0]?.total, 12);
      assert.equal((await store.readStream('acct-1')).version, 3);
    });

    it('feeds an async projector every event once, in order, resumes from its checkpoint and rebuilds', async () => {
      const store = new PostgresEventStore(database.db);
      const before = (await store.readAll(0, 100_000)).length;
      for (let i = 0; i < 30; i += 1) {
        await store.append(`proj-${i % 3}`, 'any', [{ type: 'Tick', data: { i } }], { streamType: 'p', metadata: metadata(`t${i}`) });
      }
      const projection = collector('collector-1');
      const runner = new ProjectorRunner(database.db, eventStoreOf(database.db), projection, { batchSize: 7, now });
      assert.equal(await runner.catchUp(), before + 30);
      const ticks = projection.seen.filter((e) => e.type === 'Tick').map((e) => (e.data as { i: number }).i);
      assert.deepEqual(
        ticks,
        Array.from({ length: 30 }, (_, i) => i),
      );

      // A new runner (a restarted process) resumes after the checkpoint: nothing is seen twice.
      await store.append('proj-0', 'any', [{ type: 'Tick', data: { i: 30 } }], { streamType: 'p', metadata: metadata('t30') });
      const resumed = collector('collector-1');
      assert.equal(await new ProjectorRunner(database.db, eventStoreOf(database.db), resumed, { now }).catchUp(), 1);
      assert.deepEqual(
        resumed.seen.map((e) => (e.data as { i: number }).i),
        [30],
      );

      const rebuilt = await new ProjectorRunner(database.db, eventStoreOf(database.db), resumed, { now }).rebuild();
      assert.equal(rebuilt, before + 31);
      assert.equal(resumed.resets, 1);
    });

    it('reads the events of some types with their data, and where the scan of all events ended', async () => {
      const store = new PostgresEventStore(database.db);
      const start = await store.committedHead();
      await store.append(
        'typed-0',
        'any',
        [
          { type: 'Wanted', data: { n: 1 } },
          { type: 'Other', data: { n: 2 } },
        ],
        {
          streamType: 't',
          metadata: metadata('typed'),
        },
      );
      await store.append('typed-1', 'any', [{ type: 'Other', data: { n: 3 } }], { streamType: 't', metadata: metadata('typed') });
      const all = await store.readCommittedAfter(start, 100);
      const read = await store.readCommittedOfTypes(start, 100, ['Wanted']);
      assert.deepEqual(
        read.events,
        all.filter((e) => e.type === 'Wanted'),
      );
      assert.equal(read.scanned, 3);
      const last = all[all.length - 1]!;
      assert.deepEqual(read.through, { transactionId: last.transactionId, globalPosition: last.globalPosition });
      const limited = await store.readCommittedOfTypes(start, 1, ['Other']);
      assert.deepEqual([limited.events.length, limited.scanned, limited.through?.globalPosition], [0, 1, all[0]!.globalPosition]);
      assert.deepEqual(await store.readCommittedOfTypes(read.through, 100, ['Wanted']), { events: [], through: null, scanned: 0 });
    });

    it('polls a caught-up projector with one count instead of a batch, and a started one still carries each new event', async () => {
      const store = new PostgresEventStore(database.db);
      const port = eventStoreOf(database.db);
      let batchReads = 0;
      const counted: typeof port = Object.assign(Object.create(port) as typeof port, {
        readCommittedAfter: (...args: Parameters<typeof port.readCommittedAfter>) => {
          batchReads += 1;
          return port.readCommittedAfter(...args);
        },
      });
      const projection = collector('polled');
      const runner = new ProjectorRunner(database.db, counted, projection, { now, idleMs: 10 });
      await runner.catchUp();
      projection.seen.length = 0;
      const waitFor = async (done: () => boolean) => {
        const deadline = Date.now() + 10_000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      };
      runner.start();
      try {
        await new Promise((r) => setTimeout(r, 50));
        const idleFrom = batchReads;
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(batchReads, idleFrom, 'caught up: no batch read for some 20 polls');
        for (let i = 0; i < 3; i += 1) {
          await store.append('polled-0', 'any', [{ type: 'Tick', data: { i } }], { streamType: 'p', metadata: metadata(`p${i}`) });
          await waitFor(() => projection.seen.length === i + 1);
        }
      } finally {
        await runner.stop();
      }
      assert.deepEqual(
        projection.seen.map((e) => (e.data as { i: number }).i),
        [0, 1, 2],
      );
    });
  });
}

const postgresFactory = databases.find((f) => f.name === 'postgres');

describe(
  'async projector with a writer transaction held open (PostgreSQL)',
  {
    skip: postgresFactory
      ? false
      : 'TEST_DATABASE_URL not set: PGlite has one session, so a transaction cannot be held open beside a reader',
  },
  () => {
    it('does not read past an open transaction, then sees its events in commit order', async () => {
      const database = await postgresFactory!.open();
      try {
        const store = new PostgresEventStore(database.db);
        const projection = collector('held-open');
        const runner = new ProjectorRunner(database.db, eventStoreOf(database.db), projection, { now });
        let releaseHeld!: () => void;
        const held = new Promise<void>((r) => (releaseHeld = r));
        let appendedHeld!: () => void;
        const heldAppended = new Promise<void>((r) => (appendedHeld = r));
        const slowWriter = database.db.transaction().execute(async (trx) => {
          await store.append('slow', 0, [{ type: 'Slow', data: {} }], { streamType: 's', metadata: metadata('slow'), trx });
          appendedHeld();
          await held;
        });
        await heldAppended;
        await store.append('fast', 0, [{ type: 'Fast', data: {} }], { streamType: 's', metadata: metadata('fast') });

        // The fast event has a higher position and is committed, but the slow transaction is
        // still open below it: the projector must wait rather than skip the slow event.
        assert.equal(await runner.catchUp(), 0);
        releaseHeld();
        await slowWriter;
        assert.equal(await runner.catchUp(), 2);
        assert.deepEqual(
          projection.seen.map((e) => e.type),
          ['Slow', 'Fast'],
        );
        assert.ok(projection.seen[0]!.globalPosition < projection.seen[1]!.globalPosition);
        assert.equal(await runner.catchUp(), 0);
      } finally {
        await database.close();
      }
    });
  },
);
