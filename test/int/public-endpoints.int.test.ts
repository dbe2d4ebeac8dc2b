/**
 * The public endpoints through the real app over real databases: /health (plain and deep,
 * with real probes against a live and a closed PGlite; the deep detail for the admin token
 * only, the status alone under a per-address limit for anyone else), /reference/* (ETag, 304, per-IP
 * limit) and /coverage (figures from ingested real records, stale and unavailable paths).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { postgresProbes } from '../../src/adapters/postgres/probes.ts';
import { COVERAGE_TTL_SECONDS } from '../../src/application/coverage/coverage-service.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/open.ts';
import type { DependencyProbe } from '../../src/ports/health.ts';
import { BASE, buildTestApp, KEY_PREFIXES, SettableClock } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

describe('public endpoints', () => {
  let live: TestDatabase;
  let closedProbes: DependencyProbe[];

  before(async () => {
    live = await databases[0]!.open();
    await ingestCorpus({ db: live.db, corpusDir, now: () => new Date('2026-11-26T00:00:00Z'), sources: [scIk50Source, ecourtsHcSource] });
    const closed = await openPglite(undefined);
    await migrate(closed.db);
    closedProbes = postgresProbes(closed.db, 'pglite-closed');
    await closed.close();
  });
  after(async () => live.close());

  const swap = (names: string[]) => (real: DependencyProbe[]) =>
    real.map((p) => (names.includes(p.name) ? (closedProbes.find((c) => c.name === p.name) ?? p) : p));

  describe('GET /health', () => {
    it('answers the plain form flat, without touching dependencies', async () => {
      const { app } = buildTestApp({ db: live.db, probes: swap(['documentDatabase', 'searchIndex', 'vectorIndex', 'identityService']) });
      const res = await app.request(`${BASE}/health`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.status, 'ok');
      assert.equal('success' in body, false);
      assert.equal('data' in body, false);
    });

    const ADMIN_TOKEN = 'public-endpoints-admin-token-0123456789';
    const operator = { Authorization: `Bearer ${ADMIN_TOKEN}` };

    it('checks all five dependencies with ?deep=1, naming them, the version and commit to the operator only', async () => {
      const { app } = buildTestApp({ db: live.db, adminToken: ADMIN_TOKEN });
      const res = await app.request(`${BASE}/health?deep=1`, { headers: operator });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { status: string; version: string; commit: string; checks: Record<string, { ok: boolean }> };
      assert.equal(body.status, 'healthy');
      assert.equal(body.version, '0.1.0-test');
      assert.equal(body.commit, 'test');
      assert.deepEqual(Object.keys(body.checks).sort(), ['cache', 'documentDatabase', 'identityService', 'searchIndex', 'vectorIndex']);
      assert.ok(Object.values(body.checks).every((c) => c.ok));
      // Anyone else, an API key sent as a bearer included, learns the status and nothing else.
      for (const headers of [{}, { Authorization: `Bearer ${KEY_PREFIXES[0]}-${'a'.repeat(32)}-abcd` }] as Record<string, string>[]) {
        const anonymous = await app.request(`${BASE}/health?deep=1`, { headers });
        assert.equal(anonymous.status, 200);
        assert.deepEqual(await anonymous.json(), { status: 'healthy' });
      }
    });

    it('gives a service without an admin token the status alone, and refuses a wrong token with 401', async () => {
      const { app } = buildTestApp({ db: live.db });
      assert.deepEqual(await (await app.request(`${BASE}/health?deep=1`, { headers: operator })).json(), { status: 'healthy' });
      const guarded = buildTestApp({ db: live.db, adminToken: ADMIN_TOKEN }).app;
      const wrong = await guarded.request(`${BASE}/health?deep=1`, {
        headers: { Authorization: `Bearer ${'x'.repeat(ADMIN_TOKEN.length)}` },
      });
      assert.equal(wrong.status, 401);
      assert.equal(((await wrong.json()) as { code: string }).code, 'ADMIN_UNAUTHORIZED');
    });

    it('limits deep checks without the admin token per address; the plain form and the operator are not limited', async () => {
      const { app } = buildTestApp({ db: live.db, perMinute: 2, adminToken: ADMIN_TOKEN });
      const deep = (ip: string, headers: Record<string, string> = {}) =>
        app.request(`${BASE}/health?deep=1`, { headers: { 'x-test-client': ip, ...headers } });
      assert.equal((await deep('10.3.3.3')).status, 200);
      const last = await deep('10.3.3.3');
      assert.equal(last.headers.get('ratelimit-remaining'), '0');
      const refused = await deep('10.3.3.3');
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal((await deep('10.3.3.3', operator)).status, 200);
      assert.equal((await app.request(`${BASE}/health`, { headers: { 'x-test-client': '10.3.3.3' } })).status, 200);
      assert.equal((await deep('10.4.4.4')).status, 200);
    });

    for (const hard of ['documentDatabase', 'searchIndex']) {
      it(`is unhealthy with 503 when the ${hard} is down`, async () => {
        const { app } = buildTestApp({ db: live.db, probes: swap([hard]), adminToken: ADMIN_TOKEN });
        const res = await app.request(`${BASE}/health?deep=1`, { headers: operator });
        assert.equal(res.status, 503);
        const body = (await res.json()) as { status: string; checks: Record<string, { ok: boolean; error?: string }> };
        assert.equal(body.status, 'unhealthy');
        const check = body.checks[hard];
        assert.ok(check);
        assert.equal(check.ok, false);
        assert.equal(check.error, 'unavailable');
        const anonymous = await app.request(`${BASE}/health?deep=1`);
        assert.equal(anonymous.status, 503);
        assert.deepEqual(await anonymous.json(), { status: 'unhealthy' });
      });
    }

    it('stays 200 when only soft dependencies are down', async () => {
      const { app } = buildTestApp({ db: live.db, probes: swap(['vectorIndex', 'identityService']), adminToken: ADMIN_TOKEN });
      const res = await app.request(`${BASE}/health?deep=1`, { headers: operator });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { status: string; checks: Record<string, { ok: boolean }> };
      assert.equal(body.status, 'degraded');
      assert.equal(body.checks.vectorIndex?.ok, false);
      assert.equal(body.checks.documentDatabase?.ok, true);
    });
  });

  describe('GET /reference/*', () => {
    for (const path of ['/reference/courts', '/reference/case-types']) {
      it(`serves ${path} with an ETag, one hour of caching and 304 on a match`, async () => {
        const { app } = buildTestApp({ db: live.db });
        const first = await app.request(`${BASE}${path}`);
        assert.equal(first.status, 200);
        assert.equal(first.headers.get('cache-control'), 'public, max-age=3600');
        const etag = first.headers.get('etag');
        assert.match(etag ?? '', /^"[0-9a-f]{32}"$/);
        const body = (await first.json()) as { success: boolean; data: unknown };
        assert.equal(body.success, true);
        const again = await app.request(`${BASE}${path}`, { headers: { 'If-None-Match': etag! } });
        assert.equal(again.status, 304);
        assert.equal(await again.text(), '');
        assert.equal(again.headers.get('etag'), etag);
        const other = await app.request(`${BASE}${path}`, { headers: { 'If-None-Match': '"not-the-tag"' } });
        assert.equal(other.status, 200);
      });
    }

    it('lists the Supreme Court, the High Courts with benches, district courts and tribunals', async () => {
      const { app } = buildTestApp({ db: live.db });
      const body = (await (await app.request(`${BASE}/reference/courts`)).json()) as {
        data: { courts: { level: string; benches: unknown[] }[] };
      };
      const levels = body.data.courts.map((c) => c.level);
      assert.equal(levels.filter((l) => l === 'supreme').length, 1);
      assert.equal(levels.filter((l) => l === 'high').length, 25);
      assert.equal(levels.filter((l) => l === 'district').length, 1);
      assert.ok(levels.filter((l) => l === 'tribunal').length >= 10);
    });

    it('shares a per-IP limit across the reference routes, in the rate-limit layer shape', async () => {
      const { app } = buildTestApp({ db: live.db, perMinute: 3 });
      const from = (ip: string, path: string) => app.request(`${BASE}${path}`, { headers: { 'x-test-client': ip } });
      assert.equal((await from('10.1.1.1', '/reference/courts')).status, 200);
      assert.equal((await from('10.1.1.1', '/reference/case-types')).status, 200);
      const third = await from('10.1.1.1', '/reference/courts');
      assert.equal(third.status, 200);
      assert.equal(third.headers.get('ratelimit-remaining'), '0');
      const refused = await from('10.1.1.1', '/reference/case-types');
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const body = (await refused.json()) as Record<string, unknown>;
      assert.equal('success' in body, false);
      assert.equal(typeof body.error, 'string');
      assert.equal(typeof body.message, 'string');
      assert.equal(typeof body.retryAfter, 'number');
      assert.ok(!Number.isNaN(Date.parse(body.resetTime as string)));
      assert.equal((await from('10.2.2.2', '/reference/courts')).status, 200);
    });
  });

  describe('GET /coverage', () => {
    it('reports per-court and per-year counts that match the case store, with a districtCourts row', async () => {
      const { app } = buildTestApp({ db: live.db });
      const res = await app.request(`${BASE}/coverage?split=1`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
      const body = (await res.json()) as {
        data: {
          totals: { total: number };
          courts: { court: string; total: number; documentBearing: number; statusOnly: number; businessDaysBehind: number | null }[];
          years: { year: number | null; total: number }[];
        };
        meta: Record<string, unknown>;
      };
      const truth = await sql<{ courtCode: string; n: number; docs: number }>`
        select court_code, count(*)::int as n, (count(*) filter (where document_bearing))::int as docs from cases group by court_code`.execute(
        live.db,
      );
      assert.ok(truth.rows.length >= 2, 'the real subset spans several courts');
      for (const row of truth.rows) {
        const reported = body.data.courts.find((c) => c.court === row.courtCode);
        assert.ok(reported, `court ${row.courtCode} reported`);
        assert.deepEqual([reported.total, reported.documentBearing], [row.n, row.docs]);
      }
      for (const c of body.data.courts) assert.equal(c.total, c.documentBearing + c.statusOnly);
      const district = body.data.courts.filter((c) => c.court === 'districtCourts');
      assert.equal(district.length, 1);
      const all = truth.rows.reduce((s, r) => s + r.n, 0);
      assert.equal(body.data.totals.total, all);
      assert.equal(
        body.data.years.reduce((s, y) => s + y.total, 0),
        all,
      );
      assert.equal(body.meta.cacheTtlSeconds, COVERAGE_TTL_SECONDS);
      assert.equal(body.meta.stale, false);
      assert.equal(typeof body.meta.snapshotAgeSeconds, 'number');
      assert.equal(typeof body.meta.cacheAgeSeconds, 'number');
      assert.match(body.meta.corpusNote as string, /records/);
    });

    it('omits the documentBearing/statusOnly split unless asked', async () => {
      const { app } = buildTestApp({ db: live.db });
      const body = (await (await app.request(`${BASE}/coverage`)).json()) as { data: { courts: Record<string, unknown>[] } };
      assert.ok(body.data.courts.every((c) => !('documentBearing' in c) && !('statusOnly' in c)));
    });

    it('sends CORS headers to configured origins only', async () => {
      const { app } = buildTestApp({ db: live.db });
      const ok = await app.request(`${BASE}/coverage`, { headers: { Origin: 'https://www.example-court-records.in' } });
      assert.equal(ok.headers.get('access-control-allow-origin'), 'https://www.example-court-records.in');
      const foreign = await app.request(`${BASE}/coverage`, { headers: { Origin: 'https://elsewhere.example' } });
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
    });

    it('serves the last snapshot marked stale when a refresh fails, and 503 when none survives', async () => {
      const clock = new SettableClock(new Date('2026-11-26T00:00:00Z'));
      let failing = false;
      const { app } = buildTestApp({
        db: live.db,
        clock,
        readCoverage: async (db) => {
          if (failing) throw new Error('connection terminated');
          const { readCoverageAggregates } = await import('../../src/adapters/postgres/coverage-source.ts');
          return readCoverageAggregates(db);
        },
      });
      assert.equal((await app.request(`${BASE}/coverage`)).status, 200);
      clock.advanceSeconds(COVERAGE_TTL_SECONDS + 60);
      failing = true;
      const stale = await app.request(`${BASE}/coverage`);
      assert.equal(stale.status, 200);
      const body = (await stale.json()) as { meta: { stale: boolean; snapshotAgeSeconds: number } };
      assert.equal(body.meta.stale, true);
      assert.ok(body.meta.snapshotAgeSeconds > COVERAGE_TTL_SECONDS);

      const closed = await openPglite(undefined);
      await closed.close();
      const { app: cold } = buildTestApp({ db: closed.db });
      const unavailable = await cold.request(`${BASE}/coverage`);
      assert.equal(unavailable.status, 503);
      const failure = (await unavailable.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(failure).sort(), ['error', 'success']);
      assert.equal(failure.success, false);
      assert.ok(unavailable.headers.get('x-request-id'));
    });
  });
});
