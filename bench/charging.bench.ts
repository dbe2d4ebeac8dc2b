/**
 * Charged calls through the full HTTP path of the running service (a child process over
 * PostgreSQL, with the real corpus ingested and indexed): requests per second and p50/p99
 * of an uncharged keyed call (GET /me), a 1-credit call (GET /judges/search) and keyword
 * search (POST /search/cases, 5 credits), on one hot account and spread over 1,000
 * accounts; keyword search against the bare index query in the same run; and how long the
 * audit trail takes to reach ClickHouse (GET /audit) once the load stops.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import postgres from 'postgres';
import { MemoryCache } from '../src/adapters/memory/cache.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import type { NewUser } from '../src/application/accounts/accounts-service.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { randomIds, systemClock } from '../src/ports/clock.ts';
import type { SearchRequest } from '../src/ports/search-index.ts';
import { wireApplication } from '../src/wiring.ts';
import { load, type LoadResult } from './http-load.ts';
import { median } from './stats.ts';

const operator = { kind: 'operator' } as const;
const SECRET = 'bench-key-hash-secret-of-at-least-32-chars';
const ACCOUNTS = 1_000;
const CONCURRENCY = 32;
const DURATION_MS = 4_000;
const RUNS = 3;
/** Real words and party names from the corpus; each request takes the next. */
const QUERIES = ['land acquisition', 'Union of India', 'murder', 'income tax', 'State of Punjab', 'bail', 'arbitration award', 'pension'];

export interface ChargingFigures {
  readonly corpusRecords: number;
  readonly me: LoadResult;
  readonly judgesHot: LoadResult;
  readonly judgesSpread: LoadResult;
  readonly searchHot: LoadResult;
  readonly searchSpread: LoadResult;
  readonly searchSingleClient: LoadResult;
  readonly bareIndex: { readonly p50Ms: number; readonly p99Ms: number; readonly perSecondAt32: number };
  readonly auditLagMs: number;
  readonly auditRowsAwaited: number;
}

function member(email: string, organizationId: string | null): NewUser {
  return {
    email,
    name: 'Bench',
    tier: 'enterprise',
    organizationId,
    role: 'MEMBER',
    trial: false,
    emailVerified: true,
    apiAccess: true,
    password: null,
    limitOverrides: { requestsPerMinute: 10_000_000, distinctKeysPerIpPerDay: 100_000 },
  };
}

function pick(runs: readonly LoadResult[]): LoadResult {
  return {
    requests: runs.reduce((s, r) => s + r.requests, 0),
    perSecond: median(runs.map((r) => r.perSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    failures: runs.reduce((s, r) => s + r.failures, 0),
  };
}

async function runs(work: () => Promise<LoadResult>): Promise<LoadResult> {
  const results: LoadResult[] = [];
  for (let i = 0; i < RUNS; i += 1) results.push(await work());
  return pick(results);
}

async function bareIndex(index: PostgresSearchIndex): Promise<ChargingFigures['bareIndex']> {
  const request = (i: number): SearchRequest => ({
    query: QUERIES[i % QUERIES.length]!,
    filters: {},
    sort: 'relevance',
    offset: 0,
    limit: 20,
  });
  for (let i = 0; i < QUERIES.length; i += 1) await index.search(request(i));
  const latencies: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const t0 = performance.now();
    await index.search(request(i));
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  let done = 0;
  const deadline = performance.now() + DURATION_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) await index.search(request(done++));
    }),
  );
  return {
    p50Ms: latencies[Math.floor(latencies.length / 2)]!,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)]!,
    perSecondAt32: done / ((performance.now() - started) / 1000),
  };
}

export async function benchCharging(adminUrl: string, corpusDir: string, redisUrl: string | undefined): Promise<ChargingFigures> {
  const name = `bench_charging_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 20 });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-charging-'));
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await migrate(database.db);
    const ingested = await ingestCorpus({ db: database.db, corpusDir, now: () => new Date() });
    const index = new PostgresSearchIndex(database.db);
    await new SearchIndexProjector(database.db, index, { kind: 'postgres', now: () => new Date() }).catchUp();
    const app = wireApplication({
      db: database.db,
      cache: new MemoryCache(systemClock),
      clock: systemClock,
      ids: randomIds,
      logger: pino({ level: 'silent' }),
      keyPrefixes: ['crk_live', 'crk_test'],
      keyHashSecret: SECRET,
      entitledTiers: ['enterprise'],
      keyCachePollMs: 200,
    });
    const must = <T>(r: { ok: true; value: T } | { ok: false; error: { tag: string } }): T => {
      if (!r.ok) throw new Error(`bench setup refused: ${r.error.tag}`);
      return r.value;
    };
    const org = must(await app.accounts.createOrganization({ name: 'Hot Account LLP', allowlist: [], strictAllowlist: false }, operator));
    const hotUser = must(await app.accounts.registerUser(member('hot@lawfirm.example', org.organizationId), operator));
    const watcher = must(
      await app.accounts.registerUser({ ...member('watcher@lawfirm.example', org.organizationId), role: 'ORG_ADMIN' }, operator),
    );
    const hotKey = must(await app.accounts.createKey(hotUser.userId, 'hot', operator)).fullKey;
    const watcherKey = must(await app.accounts.createKey(watcher.userId, 'watcher', operator)).fullKey;
    must(await app.credits.grant(org.organizationId, { amount: 100_000_000, source: 'grant' }));
    const spreadKeys: string[] = [];
    for (let i = 0; i < ACCOUNTS; i += 1) {
      const user = must(await app.accounts.registerUser(member(`solo${i}@lawfirm.example`, null), operator));
      must(await app.credits.grant(user.userId, { amount: 1_000_000, source: 'grant' }));
      spreadKeys.push(must(await app.accounts.createKey(user.userId, 'spread', operator)).fullKey);
    }

    const port = 20000 + Math.floor(Math.random() * 20000);
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: url.toString(),
        REDIS_URL: redisUrl ?? '',
        KEY_HASH_SECRET: SECRET,
        AUTO_INGEST: 'false',
        LOG_LEVEL: 'silent',
        CORPUS_DIR: corpusDir,
      },
      stdio: 'ignore',
    });
    const api = `http://127.0.0.1:${port}/api/v1/prod`;
    for (let i = 0; ; i += 1) {
      if (
        await fetch(`${api}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 240) throw new Error('service did not come up');
      await new Promise((r) => setTimeout(r, 250));
    }
    const hot = { 'X-API-Key': hotKey };
    const spread = (i: number) => ({ 'X-API-Key': spreadKeys[i % ACCOUNTS]! });
    const search = (i: number) => JSON.stringify({ query: QUERIES[i % QUERIES.length], limit: 20 });
    const options = { concurrency: CONCURRENCY, durationMs: DURATION_MS };
    // Warm-up: caches of keys and the judge directory.
    await load(`${api}/judges/search?q=singh`, {}, { ...options, durationMs: 1500, expectStatus: 200, headersFor: spread });
    await load(`${api}/search/cases`, hot, { ...options, durationMs: 1000, expectStatus: 200, body: search });

    const me = await runs(() => load(`${api}/me`, hot, { ...options, expectStatus: 200 }));
    const judgesHot = await runs(() => load(`${api}/judges/search?q=singh`, hot, { ...options, expectStatus: 200 }));
    const searchHot = await runs(() => load(`${api}/search/cases`, hot, { ...options, expectStatus: 200, body: search }));
    const searchSingleClient = await runs(() =>
      load(`${api}/search/cases`, hot, { ...options, concurrency: 1, expectStatus: 200, body: search }),
    );
    const hotRequestsEnd = performance.now();
    const judgesSpread = await runs(() => load(`${api}/judges/search?q=singh`, {}, { ...options, expectStatus: 200, headersFor: spread }));
    const searchSpread = await runs(() =>
      load(`${api}/search/cases`, {}, { ...options, expectStatus: 200, body: search, headersFor: spread }),
    );

    // Every hot-account call (plus the warm-up) must reach ClickHouse; the watcher's polls are its own rows.
    const awaited = me.requests + judgesHot.requests + searchHot.requests + searchSingleClient.requests;
    let auditLagMs = Number.NaN;
    for (let i = 0; i < 600; i += 1) {
      const res = await fetch(`${api}/audit?userId=${hotUser.userId}&limit=1`, { headers: { 'X-API-Key': watcherKey } });
      const body = (await res.json()) as { data?: { summary?: { totalRequests?: number } } };
      if ((body.data?.summary?.totalRequests ?? 0) >= awaited) {
        auditLagMs = performance.now() - hotRequestsEnd;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const bare = await bareIndex(index);
    const corpusRecords = ingested.sources.reduce((n, s) => n + s.inserted + s.updated + s.unchanged, 0);
    return {
      corpusRecords,
      me,
      judgesHot,
      judgesSpread,
      searchHot,
      searchSpread,
      searchSingleClient,
      bareIndex: bare,
      auditLagMs,
      auditRowsAwaited: awaited,
    };
  } finally {
    child?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await database.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
