/**
 * Redis failing under keyed traffic. The real app, its cache, rate limits and distinct
 * counters on a private redis-server, behind a real HTTP listener; four clients send free
 * and charged calls (case detail, litigation check, coverage, reference data) while the
 * server is frozen (SIGSTOP: connected, never answering), thawed, killed (SIGKILL) and
 * started again. Every answer must come within the bound, be a success or the documented
 * fail-closed 503, and the ledger must hold exactly one charge per charged success, the
 * balance the grant minus those charges, with reconcile clean. Once Redis is back, limits
 * refuse again. Then the connection itself: calls that timed out against a frozen server
 * change nothing when it thaws, and closing does not wait for a frozen server. Runs once,
 * on PostgreSQL when TEST_DATABASE_URL is set (concurrent ledger transactions), else PGlite.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { RedisCache } from '../../src/adapters/redis/cache.ts';
import { COMMAND_TIMEOUT_MS, connectRedis, LATE_AFTER_MS, type RedisConnection } from '../../src/adapters/redis/connection.ts';
import { RedisDistinctCounter, RedisRateLimiter } from '../../src/adapters/redis/rate-limits.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import type { LimitOverrides } from '../../src/domain/access/tiers.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server.ts';
import { eventStoreOf } from '../../src/wiring.ts';

/** How long Redis stays frozen, and how long it stays dead: longer than the bound, so a hang shows. */
const FROZEN_MS = 5_000;
const DEAD_MS = 4_000;
/**
 * No answer may take longer than this, whatever Redis does. An outage adds at most a few
 * call timeouts (250 ms each) to an answer; the rest is headroom for a CI machine whose two
 * cores other suites share (an answer on a healthy Redis takes up to a second there).
 */
const BOUND_MS = 3_000;
/** Past this a client gives up and records a hang. */
const HANG_MS = 10_000;
const CLIENTS = 4;
const GRANT = 1_000_000;

type Kind = 'me' | 'case' | 'screen' | 'coverage' | 'reference';
interface Answer {
  readonly kind: Kind;
  readonly phase: string;
  readonly status: number | 'hung';
  readonly code?: string;
  readonly ms: number;
  readonly charged: number;
}

const NAMES = ['Hakam Shah', 'Padma Desarda', 'Nicolletta Rohtagi', 'Ramesh Kumar Verma', 'Sunita Rao'];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const factory = databases.at(-1)!;

describe(`keyed traffic through a Redis outage on ${factory.name}`, { timeout: 180_000 }, () => {
  let redis: PrivateRedis;
  let redisConnection: RedisConnection;
  let database: OpenedDatabase;
  let t: TestApp;
  let server: ServerType;
  let origin: string;
  let caseIds: string[];

  /** A key with its own billing account holding `credits`. */
  const user = async (label: string, limits: LimitOverrides, credits = 0) => {
    const { userId, key } = await keyedUser(t.application.accounts, label, limits);
    if (credits > 0) await t.application.credits.grant(userId, { amount: credits, source: 'grant' });
    return { account: userId, key };
  };

  const call = async (kind: Kind, key: string, phase: string, i: number): Promise<Answer> => {
    const started = performance.now();
    const request: Record<Kind, () => Promise<Response>> = {
      me: () => fetch(`${origin}${BASE}/me`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(HANG_MS) }),
      case: () =>
        fetch(`${origin}${BASE}/cases/${caseIds[i % caseIds.length]!}`, {
          headers: { 'X-API-Key': key },
          signal: AbortSignal.timeout(HANG_MS),
        }),
      screen: () =>
        fetch(`${origin}${BASE}/party/screen`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: NAMES[i % NAMES.length], entityType: 'person', purpose: 'kyc' }),
          signal: AbortSignal.timeout(HANG_MS),
        }),
      coverage: () => fetch(`${origin}${BASE}/coverage`, { signal: AbortSignal.timeout(HANG_MS) }),
      reference: () => fetch(`${origin}${BASE}/reference/courts`, { signal: AbortSignal.timeout(HANG_MS) }),
    };
    try {
      const res = await request[kind]();
      const body = (await res.json().catch(() => ({}))) as { code?: string };
      return {
        kind,
        phase,
        status: res.status,
        ...(body.code ? { code: body.code } : {}),
        ms: performance.now() - started,
        charged: Number(res.headers.get('x-credits-charged') ?? 0),
      };
    } catch {
      return { kind, phase, status: 'hung', ms: performance.now() - started, charged: 0 };
    }
  };

  before(async () => {
    redis = await startPrivateRedis();
    redisConnection = await connectRedis(redis.url);
    database = await factory.open();
    const index = new PostgresSearchIndex(database.db);
    t = buildTestApp({
      db: database.db,
      clock: systemClock,
      index,
      cache: new RedisCache(redisConnection),
      limiter: new RedisRateLimiter(redisConnection, systemClock),
      distinctKeys: new RedisDistinctCounter(redisConnection),
    });
    await t.application.invalidator.poll();
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
    await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => new Date() }).catchUp();
    caseIds = (await database.db.selectFrom('cases').select('caseId').orderBy('caseId').limit(20).execute()).map((r) => r.caseId);
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Pay the first-call costs (compilation, cold caches) before anything is measured.
    const warm = await user('warm-up', { distinctCaseDetailsPerDay: 10, distinctScreenedNamesPerDay: 10 }, 1_000);
    for (const [i, kind] of (['case', 'screen', 'me', 'coverage', 'reference'] as const).entries())
      await call(kind, warm.key, 'warm-up', i);
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await redisConnection.close().catch(() => undefined);
    await redis.stop();
    await database.close();
  });

  it('answers every call within the bound, as a success or the documented 503; charges exactly the successes; limits work again after', async (test) => {
    // Every Redis-backed allowance is on (Enterprise has most of them unlimited) and far from its cap.
    const payer = await user(
      'traffic',
      {
        requestsPerMinute: 100_000,
        distinctCaseDetailsPerDay: 10_000,
        screeningRequestsPerMinute: 100_000,
        distinctScreenedNamesPerDay: 10_000,
        litigationChecksPerMonth: 100_000,
      },
      GRANT,
    );
    const answers: Answer[] = [];
    let phase = 'up';
    let running = true;
    const kinds: Kind[] = ['case', 'screen', 'me', 'case', 'coverage', 'reference'];
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; running; i += CLIENTS) answers.push(await call(kinds[i % kinds.length]!, payer.key, phase, i));
    });

    await sleep(1000);
    phase = 'frozen';
    redis.freeze();
    await sleep(FROZEN_MS);
    redis.thaw();
    phase = 'thawed';
    await sleep(1500);
    phase = 'killed';
    await redis.kill();
    await sleep(DEAD_MS);
    phase = 'restarted';
    await redis.restart();
    await sleep(2500);
    running = false;
    await Promise.all(clients);

    const by = (p: string) => answers.filter((a) => a.phase === p);
    for (const p of ['up', 'frozen', 'thawed', 'killed', 'restarted']) {
      const seen = by(p);
      const kinds = [...new Set(seen.map((a) => a.kind))].sort().map((k) => {
        const mine = seen.filter((a) => a.kind === k);
        return `${k} ${[...new Set(mine.map((a) => a.status))].join('/')} (max ${Math.round(Math.max(...mine.map((a) => a.ms)))} ms)`;
      });
      test.diagnostic(`${p}: ${seen.length} calls; ${kinds.join(', ')}`);
    }
    assert.ok(by('frozen').length > 0 && by('killed').length > 0, 'traffic ran through both outages');
    const slow = answers.filter((a) => a.status === 'hung' || a.ms > BOUND_MS);
    assert.deepEqual(
      slow.map((a) => `${a.phase} ${a.kind} ${a.status} ${Math.round(a.ms)} ms`),
      [],
      'no call hangs or takes longer than the bound',
    );
    const failClosed = (a: Answer) =>
      (a.kind === 'case' || a.kind === 'screen') && a.status === 503 && a.code === 'ACCOUNT_STANDING_UNAVAILABLE';
    const unexpected = answers.filter((a) => a.status !== 200 && !failClosed(a));
    assert.deepEqual(
      unexpected.map((a) => `${a.phase} ${a.kind} ${a.status} ${a.code ?? ''}`),
      [],
      'every answer is a success or the documented fail-closed 503',
    );
    assert.ok(answers.some(failClosed), 'the outage reached the charged routes');
    assert.ok(
      by('restarted').some((a) => a.kind === 'case' && a.status === 200),
      'charged calls succeed again once Redis is back',
    );

    const charged = answers.filter((a) => (a.kind === 'case' || a.kind === 'screen') && a.status === 200);
    assert.ok(charged.every((a) => a.charged > 0));
    const expected = charged.reduce((sum, a) => sum + a.charged, 0);
    const rows = await database.db.selectFrom('creditCharges').select('amount').where('accountId', '=', payer.account).execute();
    assert.equal(rows.length, charged.length, 'one charge per charged success');
    assert.equal(
      rows.reduce((sum, r) => sum + r.amount, 0),
      expected,
    );
    assert.equal((await t.application.credits.balance(payer.account)).balance, GRANT - expected);
    const report = await reconcileLedger(
      { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
      { accountId: payer.account },
    );
    assert.deepEqual(report.differences, []);

    // Limits refuse again: the per-key rate limit and the daily distinct-cases cap.
    const limited = await user('limited', { requestsPerMinute: 3 });
    const me = () => fetch(`${origin}${BASE}/me`, { headers: { 'X-API-Key': limited.key } });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await me()).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const capped = await user('capped', { distinctCaseDetailsPerDay: 1 }, 100);
    const read = (id: string) => fetch(`${origin}${BASE}/cases/${id}`, { headers: { 'X-API-Key': capped.key } });
    assert.equal((await read(caseIds[0]!)).status, 200);
    const second = await read(caseIds[1]!);
    assert.equal(second.status, 429);
    assert.equal(((await second.json()) as { code: string }).code, 'DISTINCT_CASES_LIMIT_REACHED');
  });

  it('a call that timed out while Redis was frozen changes nothing when Redis thaws past its deadline', async () => {
    const prefix = `late:${Date.now()}:`;
    const limiter = new RedisRateLimiter(redisConnection, systemClock, `${prefix}rl:`);
    const counter = new RedisDistinctCounter(redisConnection, `${prefix}dc:`);
    const evals = async () => Number(/cmdstat_eval:calls=(\d+)/.exec(await redisConnection.call((c) => c.info('commandstats')))?.[1] ?? 0);
    const before = await evals();
    redis.freeze();
    const started = performance.now();
    const outcomes = await Promise.allSettled([limiter.hit('k', 10, 60_000), counter.add('s', 'a', 60), counter.remove('s', 'b')]);
    const waited = performance.now() - started;
    await sleep(LATE_AFTER_MS);
    redis.thaw();
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.ok(waited < 2 * COMMAND_TIMEOUT_MS, `gave up after ${Math.round(waited)} ms`);
    // The thawed server runs what it had received (the three scripts), past their deadline.
    for (let i = 0; i < 40 && (await evals().catch(() => before)) < before + 3; i += 1) await sleep(50);
    assert.equal(await evals(), before + 3, 'Redis ran the three calls after they timed out');
    assert.equal(await redisConnection.call((c) => c.exists([`${prefix}rl:k`, `${prefix}dc:s`])), 0, 'and they changed nothing');
    assert.equal((await limiter.hit('k', 10, 60_000)).remaining, 9);
  });

  it('closes at once while Redis is frozen with a call in flight', async () => {
    const other = await connectRedis(redis.url);
    redis.freeze();
    try {
      const pending = other.call((c) => c.ping()).catch(() => 'gave up');
      const started = performance.now();
      await other.close();
      assert.ok(performance.now() - started < 2 * COMMAND_TIMEOUT_MS, 'close did not wait for the frozen server');
      assert.equal(await pending, 'gave up');
    } finally {
      redis.thaw();
    }
  });
});
