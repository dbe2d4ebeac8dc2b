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
import postgres from 'postgres';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import type { NewUser } from '../src/application/accounts/accounts-service.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import type { SearchRequest } from '../src/ports/search-index.ts';
import { buildTestApp } from '../test/support/app.ts';
import { load, medianLoad, type LoadResult } from './http-load.ts';
import { benchRedisUrl, clearBenchRedis } from './serve-child.ts';

const operator = { kind: 'operator' } as const;
const SECRET = 'bench-key-hash-secret-of-at-least-32-chars';
const ACCOUNTS = 1_000;
const CONCURRENCY = 32;
const DURATION_MS = 4_000;
const RUNS = 3;
/** Real words and party names from the corpus; each request takes the next. */
const QUERIES = ['land acquisition', 'Union of India', 'murder', 'income tax', 'State of Punjab', 'bail', 'arbitration award', 'pension'];

/** Keyword search over HTTP and bare at one corpus size. */
export interface SearchAtSize {
  readonly documents: number;
  readonly synthetic: boolean;
  readonly http: LoadResult;
  readonly httpSingleClient: LoadResult;
  readonly bare: { readonly p50Ms: number; readonly p99Ms: number; readonly perSecondAt32: number };
  readonly projectionSeconds: number;
}

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
  /** Synthetic sets (real fields recombined) at the sizes of BENCH_SEARCH_SIZES, default 100k and 1M. */
  readonly scaled: readonly SearchAtSize[];
}

const SCALED_SIZES = (process.env.BENCH_SEARCH_SIZES ?? '100000,1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);

/**
 * Grows the case store to `size` rows with synthetic cases: each takes its number, court and
 * parties from one real Supreme Court record and its bench and dates from another, under a
 * `syn-` id, so every field is a real one and only the combinations are made up.
 */
export async function growSynthetic(db: Db, size: number): Promise<void> {
  const count = async () => (await sql<{ n: number }>`select count(*)::int as n from cases`.execute(db)).rows[0]?.n ?? 0;
  const from = (await sql<{ n: number }>`select count(*)::int as n from cases where case_id like 'syn-%'`.execute(db)).rows[0]?.n ?? 0;
  const missing = size - (await count());
  for (let start = from; start < from + missing; start += 50_000) {
    const end = Math.min(from + missing, start + 50_000) - 1;
    await sql`
      with base as (select row_number() over (order by case_id) - 1 as i, * from cases where source = 'sc-judgments-metadata'),
           n as (select count(*) as n from base)
      insert into cases (case_id, source, source_ref, case_number, case_number_normalised, court_code, court_name, court_level, bench,
                         case_type, title, petitioners, respondents, judges, decision_date, filing_date, decision_year, citations,
                         text, summary, document_bearing, restricted, quirks, extra, content_hash, ingested_at)
      select 'syn-' || k, 'synthetic', 'recombined', a.case_number, a.case_number_normalised, a.court_code, a.court_name, a.court_level, a.bench,
             a.case_type, a.title, a.petitioners, a.respondents, b.judges, b.decision_date, b.filing_date, b.decision_year, '[]'::jsonb,
             null, null, false, false, '[]'::jsonb, '{}'::jsonb, 'synthetic', now()
      from generate_series(${start}::int, ${end}::int) k cross join n
      join base a on a.i = k % n.n
      join base b on b.i = (k::bigint * 7919 + 13) % n.n`.execute(db);
  }
  await sql`analyze cases`.execute(db);
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

async function runs(work: () => Promise<LoadResult>): Promise<LoadResult> {
  const results: LoadResult[] = [];
  for (let i = 0; i < RUNS; i += 1) results.push(await work());
  return medianLoad(results);
}

async function bareIndex(index: PostgresSearchIndex): Promise<SearchAtSize['bare']> {
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
    const app = buildTestApp({ db: database.db, keyHashSecret: SECRET }).application;
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

    let starts = 0;
    const startService = async (): Promise<string> => {
      // A data folder per start: the embedded ClickHouse of a stopped instance may still be closing.
      starts += 1;
      const port = 20000 + Math.floor(Math.random() * 20000);
      child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...process.env,
          PORT: String(port),
          DATA_DIR: join(dataDir, String(starts)),
          DATABASE_URL: url.toString(),
          REDIS_URL: redisUrl ? benchRedisUrl(redisUrl) : '',
          KEY_HASH_SECRET: SECRET,
          AUTO_INGEST: 'false',
          LOG_LEVEL: 'silent',
          CORPUS_DIR: corpusDir,
        },
        stdio: 'ignore',
      });
      const root = `http://127.0.0.1:${port}/api/v1/prod`;
      for (let i = 0; i < 240; i += 1) {
        const up = await fetch(`${root}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (up) return root;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error('service did not come up');
    };
    const stopService = async (): Promise<void> => {
      child?.kill('SIGTERM');
      child = undefined;
      await new Promise((r) => setTimeout(r, 1000));
      if (redisUrl) await clearBenchRedis(redisUrl);
    };
    const api = await startService();
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
    const judgesSpread = await runs(() => load(`${api}/judges/search?q=singh`, {}, { ...options, expectStatus: 200, headersFor: spread }));
    const searchSpread = await runs(() =>
      load(`${api}/search/cases`, {}, { ...options, expectStatus: 200, body: search, headersFor: spread }),
    );

    // Every hot-account call must reach ClickHouse; the watcher's polls are its own rows.
    const loadEnd = performance.now();
    const awaited = me.requests + judgesHot.requests + searchHot.requests + searchSingleClient.requests;
    let auditLagMs = Number.NaN;
    for (let i = 0; i < 600; i += 1) {
      const res = await fetch(`${api}/audit?userId=${hotUser.userId}&limit=1`, { headers: { 'X-API-Key': watcherKey } });
      const body = (await res.json()) as { data?: { summary?: { totalRequests?: number } } };
      if ((body.data?.summary?.totalRequests ?? 0) >= awaited) {
        auditLagMs = performance.now() - loadEnd;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const bare = await bareIndex(index);
    await stopService();

    const scaled: SearchAtSize[] = [];
    for (const size of SCALED_SIZES) {
      await growSynthetic(database.db, size);
      const projecting = performance.now();
      await new SearchIndexProjector(database.db, index, { kind: 'postgres', now: () => new Date(), batchSize: 2_000 }).catchUp();
      const projectionSeconds = (performance.now() - projecting) / 1000;
      const root = await startService();
      await load(`${root}/search/cases`, hot, { ...options, durationMs: 1000, expectStatus: 200, body: search });
      const http = await runs(() => load(`${root}/search/cases`, hot, { ...options, expectStatus: 200, body: search }));
      const httpSingleClient = await runs(() =>
        load(`${root}/search/cases`, hot, { ...options, concurrency: 1, expectStatus: 200, body: search }),
      );
      await stopService();
      scaled.push({ documents: size, synthetic: true, http, httpSingleClient, bare: await bareIndex(index), projectionSeconds });
    }
    const corpusRecords = ingested.sources.reduce((n, s) => n + s.inserted + s.updated + s.unchanged, 0);
    return {
      scaled,
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
