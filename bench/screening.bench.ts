/**
 * Litigation checks through the full HTTP path of the running service (src/main.ts in a
 * child process over PostgreSQL, reached over a loopback socket): p50/p95 of one POST
 * /party/screen and of a batch of 25 (POST /party/screen/batch), and of one keyword search
 * (POST /search/cases) for the same name in the same run, so the two can be compared. The
 * names are real party names of the corpus (persons and companies as the calibration's
 * labelling reads them), screened as written in the record.
 *
 * Measured on the real corpus, then on SYNTHETIC case stores of BENCH_SCREENING_SIZES
 * records (default 1000000; empty to skip) grown with the charging bench's generator: every
 * field of a synthetic case is a real one (number, court and parties of one real Supreme
 * Court record, bench and dates of another), only the combinations are made up, so the
 * screened names meet many more same-named parties than in the real corpus.
 *
 * With Meilisearch (MEILI_URL, else the binary test/support/meilisearch.ts starts) every set
 * is measured twice, by a service on PostgreSQL alone and by one whose keyword search and
 * party retrieval go to Meilisearch (MEILI_URL set for it, the index projected beforehand);
 * BENCH_SCREENING_MEILI=0 skips that arm.
 *
 * Needs PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL). On 2 cores the whole run takes
 * about 10 minutes: a minute and a half on the real corpus, some 7 minutes to grow the
 * store to 1M rows and index them, a minute and a half measuring at 1M.
 * `npx tsx bench/screening.bench.ts` runs it alone; BENCH_SCREENING_SIZES= skips the 1M part.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import postgres from 'postgres';
import { benchRedisUrl, clearBenchRedis } from './serve-child.ts';
import { MeilisearchSearchIndex } from '../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import type { NewUser } from '../src/application/accounts/accounts-service.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { buildTestApp } from '../test/support/app.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../test/support/meilisearch.ts';
import { parseParty } from '../scripts/calibration/parties.ts';
import { growSynthetic } from './charging.bench.ts';
import { table } from './stats.ts';

const operator = { kind: 'operator' } as const;
const SECRET = 'bench-key-hash-secret-of-at-least-32-chars';
const PERSONS = 30;
const COMPANIES = 20;
/** Rounds over the names: each round screens and searches every name once, interleaved. */
const ROUNDS = 3;
const BATCH_ITEMS = 25;
const BATCHES = 6;

const SIZES = (process.env.BENCH_SCREENING_SIZES ?? '1000000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);

export interface Latency {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
}

export interface ScreeningAtSize {
  readonly records: number;
  /** Where keyword search and party retrieval ran. */
  readonly engine: 'postgres' | 'meilisearch';
  readonly synthetic: boolean;
  /** One POST /party/screen. */
  readonly screen: Latency;
  /** One POST /party/screen/batch of 25 items. */
  readonly batch: Latency;
  /** One POST /search/cases for the same names, in the same run. */
  readonly search: Latency;
  /** Screenings whose verdict was not no_matches_found (the names are real, so most should match). */
  readonly screensWithMatches: number;
  /** Seconds to grow the store and project it into the index (0 for the real corpus). */
  readonly buildSeconds: number;
}

export interface ScreeningFigures {
  readonly names: { readonly persons: number; readonly companies: number };
  readonly sets: readonly ScreeningAtSize[];
}

interface ScreenedName {
  readonly name: string;
  readonly entityType: 'person' | 'company';
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function latencyOf(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return { samples: sorted.length, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95) };
}

/**
 * First-named parties of real Supreme Court records, read as the calibration's labelling
 * reads them (scripts/calibration/parties.ts): persons and companies, one per identity, an
 * even spread over the corpus so the same run always screens the same names.
 */
async function realNames(db: Db): Promise<ScreenedName[]> {
  const rows = await sql<{ name: string }>`
    select p->>'name' as name from cases, jsonb_array_elements(petitioners || respondents) p
    where source = 'sc-judgments-metadata' and p->>'name' is not null order by case_id, p->>'name'`.execute(db);
  const seen = new Set<string>();
  const byKind: Record<'person' | 'company', ScreenedName[]> = { person: [], company: [] };
  for (const { name } of rows.rows) {
    const party = parseParty(name);
    if (party.kind === 'other' || party.primary.length < 5 || seen.has(`${party.kind}:${party.key}`)) continue;
    seen.add(`${party.kind}:${party.key}`);
    byKind[party.kind].push({ name: party.primary, entityType: party.kind });
  }
  const spread = (items: readonly ScreenedName[], n: number) => {
    const step = Math.max(1, Math.floor(items.length / n));
    return items.filter((_, i) => i % step === 0).slice(0, n);
  };
  return [...spread(byKind.person, PERSONS), ...spread(byKind.company, COMPANIES)];
}

function member(email: string): NewUser {
  return {
    email,
    name: 'Bench',
    tier: 'enterprise',
    organizationId: null,
    role: 'MEMBER',
    trial: false,
    emailVerified: true,
    apiAccess: true,
    password: null,
    // The tier's 60 screenings a minute would throttle the measurement, not the service.
    limitOverrides: { requestsPerMinute: 10_000_000, screeningRequestsPerMinute: 10_000_000, distinctKeysPerIpPerDay: 100_000 },
  };
}

async function timedPost(url: string, key: string, body: unknown): Promise<{ ms: number; json: Record<string, unknown> }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return { ms, json };
}

const screenBody = (n: ScreenedName) => ({ name: n.name, entityType: n.entityType, purpose: 'research' });

/** Screens and searches every name ROUNDS times (interleaved, one client), then BATCHES batches of 25. */
async function measure(api: string, key: string, names: readonly ScreenedName[]) {
  for (const n of names.slice(0, 10)) {
    await timedPost(`${api}/party/screen`, key, screenBody(n));
    await timedPost(`${api}/search/cases`, key, { query: n.name, limit: 20 });
  }
  const screen: number[] = [];
  const search: number[] = [];
  let screensWithMatches = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const n of names) {
      const s = await timedPost(`${api}/party/screen`, key, screenBody(n));
      screen.push(s.ms);
      const summary = (s.json.data as { summary?: { verdict?: string } } | undefined)?.summary;
      if (round === 0 && summary?.verdict !== 'no_matches_found') screensWithMatches += 1;
      search.push((await timedPost(`${api}/search/cases`, key, { query: n.name, limit: 20 })).ms);
    }
  }
  const batch: number[] = [];
  for (let b = 0; b < BATCHES; b += 1) {
    const items = Array.from({ length: BATCH_ITEMS }, (_, i) => {
      const n = names[(b * BATCH_ITEMS + i) % names.length]!;
      return { clientRef: `bench-${b}-${i}`, name: n.name, entityType: n.entityType };
    });
    batch.push((await timedPost(`${api}/party/screen/batch`, key, { items, purpose: 'research' })).ms);
  }
  return { screen: latencyOf(screen), search: latencyOf(search), batch: latencyOf(batch), screensWithMatches };
}

export async function screeningBench(adminUrl: string, corpusDir: string, redisUrl: string | undefined): Promise<ScreeningFigures> {
  const dbName = `bench_screening_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const database = await openPostgres(url.toString(), { max: 8 });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-screening-'));
  let child: ReturnType<typeof spawn> | undefined;
  const meili = meilisearchMissing || process.env.BENCH_SCREENING_MEILI === '0' ? undefined : await meilisearchForSuite();
  const meiliIndex = `bench_screening_${String(Date.now())}`;
  try {
    const db = database.db;
    await migrate(db);
    await ingestCorpus({ db, corpusDir, now: () => new Date() });
    const index = new PostgresSearchIndex(db);
    const meiliSearch = meili
      ? await MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid: meiliIndex })
      : undefined;
    const project = async () => {
      await new SearchIndexProjector(db, index, { kind: 'postgres', now: () => new Date(), batchSize: 2_000 }).catchUp();
      if (meiliSearch) await new SearchIndexProjector(db, meiliSearch, { kind: 'postgres', now: () => new Date() }).catchUp();
    };
    await project();
    const records = async () => (await sql<{ n: number }>`select count(*)::int as n from cases`.execute(db)).rows[0]?.n ?? 0;
    const app = buildTestApp({ db, keyHashSecret: SECRET }).application;
    const user = await app.accounts.registerUser(member('screening-bench@lawfirm.example'), operator);
    if (!user.ok) throw new Error(user.error.tag);
    const created = await app.accounts.createKey(user.value.userId, 'bench', operator);
    if (!created.ok) throw new Error(created.error.tag);
    await app.credits.grant(user.value.userId, { amount: 100_000_000, source: 'grant' });
    const key = created.value.fullKey;
    const names = await realNames(db);

    let starts = 0;
    const startService = async (engine: ScreeningAtSize['engine']): Promise<string> => {
      // A data folder per start: the embedded ClickHouse of a stopped instance may still be closing.
      starts += 1;
      const port = 20000 + Math.floor(Math.random() * 20000);
      const logPath = join(dataDir, `service-${String(starts)}.log`);
      const log = openSync(logPath, 'w');
      child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...process.env,
          PORT: String(port),
          DATA_DIR: join(dataDir, String(starts)),
          DATABASE_URL: url.toString(),
          REDIS_URL: redisUrl ? benchRedisUrl(redisUrl) : '',
          KEY_HASH_SECRET: SECRET,
          AUTO_INGEST: 'false',
          LOG_LEVEL: 'warn',
          CORPUS_DIR: corpusDir,
          MEILI_URL: engine === 'meilisearch' ? (meili?.url ?? '') : '',
          MEILI_API_KEY: engine === 'meilisearch' ? (meili?.apiKey ?? '') : '',
          MEILI_INDEX: meiliIndex,
          // Ports of its own for the embedded Temporal dev server, so another service on the host cannot block the start.
          TEMPORAL_DEV_PORT: String(port + 1),
          TEMPORAL_UI_PORT: String(port + 2),
        },
        stdio: ['ignore', log, log],
      });
      const root = `http://127.0.0.1:${port}/api/v1/prod`;
      for (let i = 0; i < 480; i += 1) {
        const up = await fetch(`${root}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (up) return root;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`service did not come up; its log ends:\n${readFileSync(logPath, 'utf8').slice(-2000)}`);
    };
    const stopService = async (): Promise<void> => {
      child?.kill('SIGTERM');
      child = undefined;
      await new Promise((r) => setTimeout(r, 1000));
      if (redisUrl) await clearBenchRedis(redisUrl);
    };

    const sets: ScreeningAtSize[] = [];
    const run = async (synthetic: boolean, buildSeconds: number) => {
      for (const engine of meili ? (['postgres', 'meilisearch'] as const) : (['postgres'] as const)) {
        const api = await startService(engine);
        // Let start-up work (coverage warm-up, document store pass) finish before timing.
        await new Promise((r) => setTimeout(r, synthetic ? 10_000 : 3_000));
        const figures = await measure(api, key, names).catch((error: unknown) => {
          const log = readFileSync(join(dataDir, `service-${String(starts)}.log`), 'utf8').slice(-3000);
          throw new Error(`${String(error)}\n${engine} service log ends:\n${log}`);
        });
        await stopService();
        sets.push({ records: await records(), engine, synthetic, buildSeconds, ...figures });
      }
    };
    await run(false, 0);
    for (const size of SIZES) {
      const building = performance.now();
      await growSynthetic(db, size);
      await project();
      await run(true, (performance.now() - building) / 1000);
    }
    return {
      names: {
        persons: names.filter((n) => n.entityType === 'person').length,
        companies: names.filter((n) => n.entityType === 'company').length,
      },
      sets,
    };
  } finally {
    child?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    if (redisUrl) await clearBenchRedis(redisUrl);
    await database.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
    if (meili) {
      await dropIndexes(meili.url, meili.apiKey, meiliIndex);
      await meili.close();
    }
  }
}

/** Prints the figures: medians (p50) and p95 per set, and the ratios to keyword search and to the real corpus. */
export function printScreening(f: ScreeningFigures): void {
  console.log(
    `\nLitigation checks over HTTP (service in a child process, PostgreSQL, 1 client; ${f.names.persons} person and ${f.names.companies} company names from the corpus, ${ROUNDS} rounds; batches of ${BATCH_ITEMS})`,
  );
  const label = (s: ScreeningAtSize) =>
    `${s.records}${s.synthetic ? ' (SYNTHETIC, recombined real fields)' : ' (real corpus)'}, ${s.engine}`;
  console.log('targets: one check p95 ≤ 150 ms, a batch of 25 ≤ 2,000 ms (p95)');
  console.log(
    table([
      ['records', 'screen p50 ms', 'screen p95 ms', 'batch-25 p50 ms', 'batch-25 p95 ms', 'search p50 ms', 'search p95 ms', 'with matches'],
      ...f.sets.map((s) => [
        label(s),
        s.screen.p50Ms,
        s.screen.p95Ms,
        s.batch.p50Ms,
        s.batch.p95Ms,
        s.search.p50Ms,
        s.search.p95Ms,
        `${s.screensWithMatches}/${f.names.persons + f.names.companies}`,
      ]),
    ]),
  );
  const real = f.sets[0];
  console.log(
    table([
      [
        'records',
        'screen : search p50',
        'screen : search p95',
        'batch-25 : screen p50',
        'batch-25 per item : screen p50',
        'screen p50 vs real corpus',
      ],
      ...f.sets.map((s) => [
        label(s),
        s.screen.p50Ms / s.search.p50Ms,
        s.screen.p95Ms / s.search.p95Ms,
        s.batch.p50Ms / s.screen.p50Ms,
        s.batch.p50Ms / BATCH_ITEMS / s.screen.p50Ms,
        real ? s.screen.p50Ms / (f.sets.find((r) => !r.synthetic && r.engine === s.engine) ?? real).screen.p50Ms : 1,
      ]),
    ]),
  );
  const built = f.sets.filter((s) => s.synthetic);
  if (built.length > 0)
    console.log(
      `Synthetic sets built (grown and indexed): ${built.map((s) => `${s.records} in ${s.buildSeconds.toFixed(0)} s`).join(', ')}`,
    );
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) console.log('(Screening benchmark skipped: needs PostgreSQL, set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
  else
    printScreening(
      await screeningBench(adminUrl, process.env.CORPUS_DIR ?? '../shared/data', process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL),
    );
}
