/**
 * Black-box: test mode on two instances of the service over the same PostgreSQL (and the
 * same Redis and Meilisearch when the run has them). Both start at once, so both migrate
 * and ingest test mode's database together; each builds its test mode as it starts, so a
 * test call never waits for it. A test key issued through one instance is charged on A
 * and B reads the same test balance; the live balance and the live corpus never move, and
 * each mode's records stay out of the other's reach.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { testModeDatabaseUrl } from '../../src/composition/test-mode-adapters.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { dropIndexes } from '../support/meilisearch.ts';
import { startService, type RunningService } from '../support/service-process.ts';

type Json = Record<string, unknown>;

const FIXTURE_CASE = 'sc-inabs-5861';
const TEST_CREDITS = 1_000_000;
const LIVE_CREDITS = 1_000;
const ADMIN_TOKEN = 'shared-test-mode-admin-token-0123456789';
/**
 * What "answers fast" means here: well under the 30 s a first test call used to take. A
 * call waits at most 2 s for a starting test mode; the rest is slack for a busy machine.
 */
const FAST_MS = 10_000;

const postgresFactory = databases.find((d) => d.name === 'postgres');
const meiliUrl = process.env.MEILI_URL;
const meiliIndex = `tm_${Date.now().toString(36)}`;

describe(
  'test mode on two instances over shared stores',
  { skip: postgresFactory ? false : 'TEST_DATABASE_URL unset: no PostgreSQL', timeout: 600_000 },
  () => {
    let database: TestDatabase;
    let a: RunningService;
    let b: RunningService;
    let liveKey: string;
    let testKey: string;
    /** What before() opened, closed in reverse by after() even when before() failed halfway. */
    const opened: (() => Promise<void>)[] = [];
    const api = (service: RunningService) => `${service.url}/api/v1/prod`;

    const call = async (service: RunningService, key: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
      const started = Date.now();
      const res = await fetch(`${api(service)}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { res, body: (await res.json()) as Json, ms: Date.now() - started };
    };
    const admin = async (service: RunningService, path: string, body: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { data: Json } };
    };
    const balance = async (service: RunningService, key: string) => {
      const usage = await call(service, key, 'GET', '/usage');
      assert.equal(usage.res.status, 200, JSON.stringify(usage.body));
      return (usage.body.data as { balance: number }).balance;
    };
    const search = (service: RunningService, key: string, query: string) =>
      call(service, key, 'POST', '/search/cases', { query, limit: 10 });
    const ids = (body: Json) => ((body.data as { caseId: string }[] | undefined) ?? []).map((c) => c.caseId);

    before(async () => {
      database = await (postgresFactory as NonNullable<typeof postgresFactory>).open();
      opened.push(() => database.close());
      // The live index, test mode's (<uid>-test-mode) and their schema indexes all start with the uid.
      if (meiliUrl) opened.push(() => dropIndexes(meiliUrl, process.env.MEILI_API_KEY, meiliIndex));
      const env: Record<string, string> = {
        DATABASE_URL: database.url ?? '',
        ADMIN_TOKEN,
        KEY_HASH_SECRET: 'shared-test-mode-key-hash-secret-0123456789',
        DOCUMENT_URL_SECRET: 'shared-test-mode-document-url-secret-0123456789',
        CORPUS_DIR: corpusDir,
        // The live corpus stays empty: whatever a live search finds came from test mode.
        AUTO_INGEST: 'false',
        // No workflow engine: the calls here are answered without one.
        TEMPORAL_CLI_PATH: '/nonexistent/temporal',
        ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
        ...(meiliUrl ? { MEILI_URL: meiliUrl, MEILI_API_KEY: process.env.MEILI_API_KEY ?? '', MEILI_INDEX: meiliIndex } : {}),
      };
      const starting = [startService('node', env), startService('node', env)] as const;
      const started = await Promise.allSettled(starting);
      for (const service of started) if (service.status === 'fulfilled') opened.push(() => service.value.stop());
      [a, b] = await Promise.all(starting);
      const user = await admin(a, '/admin/users', { email: `shared-${Date.now()}@example.com`, name: 'Shared', tier: 'enterprise' });
      assert.equal(user.status, 201, JSON.stringify(user.body));
      const userId = String(user.body.data.userId);
      assert.equal((await admin(a, `/admin/users/${userId}/credits`, { amount: LIVE_CREDITS })).status, 201);
      const live = await admin(a, `/admin/users/${userId}/keys`, { name: 'live' });
      assert.equal(live.status, 201, JSON.stringify(live.body));
      liveKey = String(live.body.data.fullKey);
      const issued = await admin(b, `/admin/users/${userId}/keys`, { name: 'test', mode: 'test' });
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      testKey = String(issued.body.data.fullKey);
      assert.match(testKey, /^crk_test-/);
    });

    after(async () => {
      for (const close of opened.reverse()) await close();
    });

    it('answers the first test call on each instance within seconds: ready, or told to retry with Retry-After', async () => {
      for (const service of [a, b]) {
        let first = await search(service, testKey, 'union of india');
        assert.ok(first.ms < FAST_MS, `the first test call waited ${String(first.ms)} ms`);
        for (let i = 0; i < 600 && first.res.status !== 200; i += 1) {
          assert.deepEqual([first.res.status, first.body.code], [502, 'UPSTREAM_UNAVAILABLE'], JSON.stringify(first.body));
          assert.ok(Number(first.res.headers.get('retry-after')) > 0, 'a starting test mode says when to retry');
          assert.equal(first.res.headers.get('x-credits-charged'), null, 'nothing charged');
          await new Promise((r) => setTimeout(r, 500));
          first = await search(service, testKey, 'union of india');
        }
        assert.equal(first.res.status, 200, JSON.stringify(first.body));
        assert.ok(first.ms < FAST_MS, `a ready test mode answered in ${String(first.ms)} ms`);
      }
    });

    it('keeps one test ledger: charged on A, the same balance on B', async () => {
      const before = await balance(b, testKey);
      assert.ok(before <= TEST_CREDITS && before > 0, `opened once: ${String(before)}`);
      const charged = await search(a, testKey, 'union of india');
      assert.equal(charged.res.status, 200, JSON.stringify(charged.body));
      assert.equal(charged.res.headers.get('x-credits-charged'), '5');
      assert.equal(charged.res.headers.get('x-credits-remaining'), String(before - 5));
      assert.equal(await balance(b, testKey), before - 5, 'B reads what A charged');
      assert.equal(await balance(a, testKey), before - 5);
      // Opened once across both instances: the opening grant plus every charge since add up to the credits.
      const ledger = postgres(testModeDatabaseUrl(database.url ?? ''), { max: 1, onnotice: () => undefined });
      try {
        const grants = await ledger<{ n: number }[]>`select count(*)::int as n from events where type = 'CreditsGranted'`;
        assert.equal(grants[0]?.n, 1, 'one opening grant for the account, whichever instance opened it');
      } finally {
        await ledger.end();
      }
    });

    it('leaves the live ledger and the live corpus alone, and keeps each mode’s records from the other', async () => {
      assert.equal(await balance(a, liveKey), LIVE_CREDITS, 'no test call spent a live credit');
      assert.equal(await balance(b, liveKey), LIVE_CREDITS);
      const live = await search(b, liveKey, 'union of india');
      assert.equal(live.res.status, 200, JSON.stringify(live.body));
      assert.deepEqual(ids(live.body), [], 'the live index holds nothing of test mode’s fixtures');
      assert.deepEqual([(await call(a, liveKey, 'GET', `/cases/${FIXTURE_CASE}`)).res.status], [404]);
      assert.equal((await call(b, testKey, 'GET', `/cases/${FIXTURE_CASE}`)).res.status, 200);
      const forged = `${testKey.slice(0, -5)}${testKey.endsWith('a') ? 'b' : 'a'}${testKey.slice(-4)}`;
      assert.equal((await call(a, forged, 'GET', '/me')).res.status, 401);
    });
  },
);
