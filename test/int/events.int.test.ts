/**
 * GET /events and GET /events/{id} through the real app, gate and webhook projector, on the
 * embedded default and on PostgreSQL: every announced fact becomes an event of its account
 * whether or not the account has an endpoint; the list pages in both orders, filters by type
 * and creation time, and never shows, returns or accepts as a cursor another account's
 * event; the retention sweep deletes events past the window by the injected clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourtRecordsClient } from '@court-records/sdk';
import { openPglite } from '../../src/db/open.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { webhookOutbox } from '../../src/application/webhooks/webhook-outbox.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { createAccessFixture, keyedUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';

interface EventBody {
  id: string;
  object: string;
  type: string;
  createdAt: string;
  apiVersion: string;
  mode: string;
  data: Record<string, unknown>;
}
interface ListBody {
  success: boolean;
  data: EventBody[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null };
  code?: string;
}

const START = new Date('2026-11-01T10:00:00Z');

for (const factory of databases) {
  describe(`events (${factory.name})`, () => {
    let database: TestDatabase;
    let t: TestApp;
    let down: TestApp;
    let fixture: AccessFixture;
    let projector: ProjectorRunner;
    const clock = new SettableClock(START);
    const users: Record<'first' | 'second', { userId: string; key: string }> = {
      first: { userId: '', key: '' },
      second: { userId: '', key: '' },
    };
    let caseCounter = 0;

    async function get(who: keyof typeof users, path: string): Promise<{ status: number; body: ListBody }> {
      const res = await t.app.request(`${BASE}${path}`, { headers: { 'X-API-Key': users[who].key } });
      return { status: res.status, body: (await res.json()) as ListBody };
    }

    async function getOne(who: keyof typeof users, id: string): Promise<{ status: number; body: { data: EventBody; code?: string } }> {
      const res = await t.app.request(`${BASE}/events/${encodeURIComponent(id)}`, { headers: { 'X-API-Key': users[who].key } });
      return { status: res.status, body: (await res.json()) as { data: EventBody; code?: string } };
    }

    /** A timeline answered from the store: a fact the webhook projector announces (timeline.completed). */
    async function timelineCompletes(who: keyof typeof users): Promise<string> {
      caseCounter += 1;
      const job = await t.timeline.jobs.answerFromStore({
        subject: { caseId: `SC-EVENTS-${String(caseCounter)}`, cnr: null },
        accountId: users[who].userId,
        timeline: null,
      });
      return job.requestId;
    }

    async function timelineFails(who: keyof typeof users): Promise<string> {
      caseCounter += 1;
      const admitted = await t.timeline.jobs.admitLiveFetch({
        subject: { caseId: `hc-EVENTS-${String(caseCounter)}`, cnr: `DLHC01${String(caseCounter).padStart(10, '0')}` },
        accountId: users[who].userId,
        dailyCap: 1000,
        callId: `req-events-${String(caseCounter)}`,
      });
      assert.ok(admitted.ok, JSON.stringify(admitted));
      await t.timeline.jobs.fail(admitted.requestId, 'UPSTREAM_UNAVAILABLE', 'the portal was down');
      return admitted.requestId;
    }

    /** Everything of `who` through GET /events, oldest first, page by page. */
    async function all(who: keyof typeof users, query = ''): Promise<EventBody[]> {
      const seen: EventBody[] = [];
      let cursor: string | null = null;
      do {
        const after: string = cursor === null ? '' : `&startingAfter=${cursor}`;
        const { status, body } = await get(who, `/events?order=asc&limit=2${query}${after}`);
        assert.equal(status, 200, JSON.stringify(body));
        seen.push(...body.data);
        cursor = body.pagination.nextCursor;
      } while (cursor !== null);
      return seen;
    }

    before(async () => {
      database = await factory.open();
      t = buildTestApp({ db: database.db, clock });
      await t.application.invalidator.poll();
      projector = new ProjectorRunner(database.db, eventStoreOf(database.db), t.webhooks.outbox, { now: () => clock.now() });
      fixture = await createAccessFixture(t.application.accounts, clock);
      for (const who of ['first', 'second'] as const) {
        users[who] = await keyedUser(t.application.accounts, `events-${who}`);
        // A live fetch holds credits while it runs.
        await t.application.credits.grant(users[who].userId, { amount: 10_000, source: 'grant' });
      }
      const closed = await openPglite(undefined);
      await closed.close();
      down = buildTestApp({ db: closed.db, clock });
    });
    after(async () => database.close());

    securityMatrix({ method: 'GET', path: '/events', okStatus: 200 }, () => ({ app: t.app, fixture, appWithIdentityDown: down.app }));
    securityMatrix({ method: 'GET', path: '/events/evt_matrix', okStatus: 404 }, () => ({
      app: t.app,
      fixture,
      appWithIdentityDown: down.app,
    }));

    it('records every announced fact as an event of its account, with no endpoint registered, and serves it by id', async () => {
      const requestId = await timelineCompletes('first');
      await projector.catchUp();
      const { status, body } = await get('first', '/events');
      assert.equal(status, 200);
      const [newest] = body.data;
      assert.ok(newest);
      assert.match(newest.id, /^evt_[A-Za-z0-9_-]{32}$/);
      assert.deepEqual(
        { ...newest, id: 'evt' },
        {
          id: 'evt',
          object: 'event',
          type: 'timeline.completed',
          createdAt: START.toISOString(),
          timestamp: START.toISOString(),
          apiVersion: '2026-11-29',
          mode: 'live',
          data: { requestId, caseId: `SC-EVENTS-${String(caseCounter)}` },
        },
      );
      const one = await getOne('first', newest.id);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.data, newest);
      // The projector meeting the fact again records nothing more.
      await projector.catchUp();
      assert.equal((await all('first')).filter((e) => e.id === newest.id).length, 1);
    });

    it('pages in both orders without a gap or a repeat, and filters by type and creation time', async () => {
      const before = (await all('first')).length;
      const times: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        clock.set(new Date(START.getTime() + (i + 1) * 3_600_000));
        times.push(clock.now().toISOString());
        if (i % 2 === 0) await timelineCompletes('first');
        else await timelineFails('first');
      }
      await projector.catchUp();
      const ascending = await all('first');
      assert.equal(ascending.length, before + 5);
      assert.equal(new Set(ascending.map((e) => e.id)).size, ascending.length);
      assert.deepEqual(
        ascending.slice(-5).map((e) => e.createdAt),
        times,
      );
      // Newest first, by pages of 2, is the same list reversed.
      const descending: EventBody[] = [];
      let cursor: string | null = null;
      do {
        const after: string = cursor === null ? '' : `&startingAfter=${cursor}`;
        const { body } = await get('first', `/events?limit=2${after}`);
        descending.push(...body.data);
        cursor = body.pagination.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(
        descending.map((e) => e.id),
        ascending.map((e) => e.id).reverse(),
      );

      const failed = await all('first', '&type=timeline.failed');
      assert.deepEqual(
        failed.map((e) => e.createdAt),
        [times[1], times[3]],
      );
      assert.ok(failed.every((e) => e.type === 'timeline.failed' && e.data.errorCode === 'UPSTREAM_UNAVAILABLE'));
      const both = await all('first', '&type=timeline.failed,timeline.completed');
      assert.equal(both.length, ascending.length);
      const window = await all('first', `&createdFrom=${times[1]!}&createdBefore=${times[3]!}`);
      assert.deepEqual(
        window.map((e) => e.createdAt),
        [times[1], times[2]],
      );
      const bad = await get('first', '/events?type=timeline.exploded');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'VALIDATION_ERROR');
    });

    it('the SDK reads the same events: listAutoPaginate from the last id a receiver saw, and get', async () => {
      const client = createCourtRecordsClient({
        baseUrl: `http://events.test${BASE}`,
        apiKey: users.first.key,
        environment: { fetch: (request) => Promise.resolve(t.app.request(request)) },
      });
      const everything = await all('first');
      assert.ok(everything.length >= 3);
      const missed = await client.events.listAutoPaginate({ order: 'asc', limit: 2, startingAfter: everything[1]!.id }).toArray();
      assert.deepEqual(
        missed.map((e) => e.id),
        everything.slice(2).map((e) => e.id),
      );
      const one = await client.events.get(everything[0]!.id);
      assert.deepEqual(one.data, everything[0]);
      assert.deepEqual((await client.webhookEndpoints.list()).data, []);
    });

    it("never shows, returns or pages from another account's event, and forged ids are 404", async () => {
      await timelineCompletes('second');
      await projector.catchUp();
      const mine = await all('first');
      const theirs = await all('second');
      assert.equal(theirs.length, 1);
      assert.ok(!mine.some((e) => e.id === theirs[0]!.id));
      const foreign = await getOne('first', theirs[0]!.id);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'EVENT_NOT_FOUND');
      for (const forged of ['evt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', "evt_' or '1'='1", 'msg_x', mine[0]!.id.slice(0, -1)]) {
        const res = await getOne('first', forged);
        assert.equal(res.status, 404, forged);
        assert.equal(res.body.code, 'EVENT_NOT_FOUND');
      }
      // As a cursor, another account's id is as unknown as a forged one: 400, and nothing of theirs.
      const cursor = await get('first', `/events?startingAfter=${theirs[0]!.id}`);
      assert.equal(cursor.status, 400);
      assert.equal(cursor.body.code, 'CURSOR_INVALID');
      const forgedCursor = await get('first', '/events?startingAfter=evt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      assert.equal(forgedCursor.status, 400);
    });

    it('publishes every event type under the OpenAPI webhooks, with the schema GET /events answers with', async () => {
      const res = await t.app.request(`${BASE}/openapi.json`);
      const document = (await res.json()) as {
        webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
        components: { schemas: Record<string, { oneOf?: { $ref: string }[]; properties?: Record<string, unknown> }> };
        paths: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(document.webhooks).sort(), [
        'analysis.failed',
        'analysis.stored',
        'timeline.completed',
        'timeline.failed',
      ]);
      const refs = Object.values(document.webhooks).map((w) => w.post.requestBody.content['application/json'].schema.$ref);
      const event = document.components.schemas.Event;
      assert.deepEqual(refs.sort(), event?.oneOf?.map((o) => o.$ref).sort());
      const stored = document.components.schemas.TimelineCompletedEvent;
      assert.deepEqual(Object.keys(stored?.properties ?? {}).sort(), [
        'apiVersion',
        'createdAt',
        'data',
        'id',
        'mode',
        'object',
        'timestamp',
        'type',
      ]);
      assert.ok('/events' in document.paths && '/events/{id}' in document.paths);
    });

    it("records test mode's facts in the live database as test events, which a live key never sees", async () => {
      // Test mode's own database and log, its projector writing into the live database (as compose-test-mode wires it).
      const testModeDatabase = await factory.open();
      try {
        const testMode = buildTestApp({ db: testModeDatabase.db, clock });
        const testProjector = new ProjectorRunner(
          testModeDatabase.db,
          eventStoreOf(testModeDatabase.db),
          webhookOutbox({ mode: 'test', into: database.db }, { pendingCap: 1000 }),
          { now: () => clock.now() },
        );
        const job = await testMode.timeline.jobs.answerFromStore({
          subject: { caseId: 'SC-TEST-MODE-1', cnr: null },
          accountId: users.first.userId,
          timeline: null,
        });
        await testProjector.catchUp();
        const tested = await t.webhooks.events.page(users.first.userId, 'test', { limit: 10, order: 'desc' });
        assert.ok(tested.ok);
        assert.deepEqual(
          tested.events.map((e) => [e.mode, e.type, e.data.requestId]),
          [['test', 'timeline.completed', job.requestId]],
        );
        assert.ok(!(await all('first')).some((e) => e.id === tested.events[0]!.id));
        assert.equal((await getOne('first', tested.events[0]!.id)).status, 404);
      } finally {
        await testModeDatabase.close();
      }
    });

    it('costs nothing', async () => {
      const balance = async () => (await t.application.credits.balance(users.first.userId)).balance;
      const before = await balance();
      await get('first', '/events');
      assert.equal(await balance(), before);
    });

    it('sweeps events recorded more than 30 days ago, by the injected clock, and keeps the rest', async () => {
      const kept = await all('first');
      const newest = Date.parse(kept.at(-1)!.createdAt);
      // 30 days after the newest event: it is exactly at the bound and stays; every older one goes.
      clock.set(new Date(newest + 30 * 86_400_000));
      const swept = await t.webhooks.events.sweep(2);
      assert.equal(swept.pruned >= kept.length - 1, true);
      assert.deepEqual(
        (await all('first')).map((e) => e.id),
        [kept.at(-1)!.id],
      );
      clock.set(new Date(newest + 30 * 86_400_000 + 1));
      await t.webhooks.events.sweep();
      assert.deepEqual(await all('first'), []);
      assert.equal((await all('second')).length, 0);
    });
  });
}
