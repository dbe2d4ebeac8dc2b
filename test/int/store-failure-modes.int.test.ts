/**
 * Every use of the shared stores (cache, rate limiter, distinct counter) with stores that
 * cannot answer, through the real app: each gives the answer the README's table lists.
 * Limits that are plain rate limits fail open (the call is served), caps on paid features
 * fail closed with a coded 503 and nothing charged, the login limit fails closed, and the
 * cache is soft. The stores here fail at once; redis-outage.int.test.ts drives the real
 * Redis adapters through a frozen and a killed server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import type { Cache } from '../../src/ports/cache.ts';
import { systemClock } from '../../src/ports/clock.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';

const ADMIN_TOKEN = 'store-failures-admin-token-0123456789';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

const down = () => Promise.reject(new Error('store down'));
const limiter: RateLimiter = { hit: down };
const distinctKeys: DistinctCounter = { add: down, remove: down };
const cache: Cache = { get: down, set: down, ping: down };
const CASE = 'sc-inabs-5861';

describe('with the shared stores down', () => {
  let database: OpenedDatabase;
  let t: TestApp;
  /** Tier caps on the case routes (Enterprise has none), and credits to pay for them. */
  let capped: { userId: string; key: string };

  const keyed = (key: string, path: string, body?: unknown) =>
    t.app.request(`${BASE}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const codeOf = async (res: Response) => ((await res.json()) as { code?: string }).code;
  const balance = async (account: string) => (await t.application.credits.balance(account)).balance;

  before(async () => {
    database = await databases[0]!.open();
    t = buildTestApp({ db: database.db, clock: systemClock, limiter, distinctKeys, cache, adminToken: ADMIN_TOKEN });
    await t.application.invalidator.poll();
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
    await storeJudgmentDocuments({ db: database.db, storage: t.documents, now: () => new Date() });
    capped = await keyedUser(t.application.accounts, 'capped', {
      distinctCaseDetailsPerDay: 100,
      pdfLinksPerMonth: 100,
      requestsPerMinute: 60,
    });
    await t.application.credits.grant(capped.userId, { amount: 10_000, source: 'grant' });
  });
  after(async () => database.close());

  it('per-key rate limit and distinct keys per address fail open: the call is served with the full allowance stated', async () => {
    const res = await keyed(capped.key, '/me');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-limit'), '60');
    assert.equal(res.headers.get('ratelimit-remaining'), '60');
  });

  it('the daily distinct-case and monthly PDF caps fail closed: 503 ACCOUNT_STANDING_UNAVAILABLE, nothing charged', async () => {
    const detail = await keyed(capped.key, `/cases/${CASE}`);
    assert.deepEqual([detail.status, await codeOf(detail)], [503, 'ACCOUNT_STANDING_UNAVAILABLE']);
    const pdf = await keyed(capped.key, `/cases/${CASE}/pdf`);
    assert.deepEqual([pdf.status, await codeOf(pdf)], [503, 'ACCOUNT_STANDING_UNAVAILABLE']);
    assert.equal(await balance(capped.userId), 10_000);
  });

  it('a cap the tier does not have is never checked: the call is served and charged', async () => {
    const uncapped = await keyedUser(t.application.accounts, 'uncapped');
    await t.application.credits.grant(uncapped.userId, { amount: 10, source: 'grant' });
    const res = await keyed(uncapped.key, `/cases/${CASE}`);
    assert.equal(res.status, 200);
    assert.equal(await balance(uncapped.userId), 9);
  });

  it('the screening limits fail closed: 503 ACCOUNT_STANDING_UNAVAILABLE, the reservation released', async () => {
    const res = await keyed(capped.key, '/party/screen', { name: 'Hakam Shah', entityType: 'person', purpose: 'kyc' });
    assert.deepEqual([res.status, await codeOf(res)], [503, 'ACCOUNT_STANDING_UNAVAILABLE']);
    assert.equal(await balance(capped.userId), 10_000);
  });

  it('the public per-address limit serves reference data (no RateLimit headers) and refuses logins with 502 UPSTREAM_UNAVAILABLE', async () => {
    const courts = await t.app.request(`${BASE}/reference/courts`);
    assert.equal(courts.status, 200);
    assert.equal(courts.headers.get('ratelimit-limit'), null);
    const login = await t.app.request('/api/settings/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'someone@lawfirm.example', password: 'a long passphrase' }),
    });
    assert.deepEqual([login.status, await codeOf(login)], [502, 'UPSTREAM_UNAVAILABLE']);
  });

  it('the cache is soft: coverage is computed from the case store, deep health reports the cache and stays 200', async () => {
    assert.equal((await t.app.request(`${BASE}/coverage`)).status, 200);
    // The operator's deep check: only it names the checks.
    const health = await t.app.request(`${BASE}/health?deep=1`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(health.status, 200);
    const body = (await health.json()) as { status: string; checks: { cache: { ok: boolean } } };
    assert.deepEqual([body.status, body.checks.cache.ok], ['degraded', false]);
    // Anyone else's deep check is limited per address; with the limiter down it is served, the status alone.
    const anonymous = await t.app.request(`${BASE}/health?deep=1`);
    assert.deepEqual([anonymous.status, await anonymous.json()], [200, { status: 'degraded' }]);
  });
});
