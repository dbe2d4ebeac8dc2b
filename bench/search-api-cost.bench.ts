/**
 * What a keyword search costs the API on top of its engine (issue 27, item 1): the real
 * service as a child process on the production engines (PostgreSQL case store, Meilisearch
 * index, Redis rate limits) over the real corpus. For each query of a mix (common phrases,
 * a single word, a real case number), at 1 and at 4 connections, wrk drives
 * - the engine: the adapter's page query (the words, all required, one page of ids and
 *   ranking scores) sent straight to Meilisearch;
 * - the API: POST /search/cases with the same words and page size, 5 credits,
 * and the child's CPU time (utime + stime from /proc/<pid>/stat) over the API run, divided
 * by the searches answered, is the API's CPU per search: the figure the target (at most
 * 5 ms) is about. Medians of RUNS runs, the layers interleaved within each run.
 *
 * With SEARCH_API_COST_BASELINE=dir a second child runs from another checkout's src/ (for
 * example the base commit's, `git archive BASE src | tar -x -C dir` with node_modules
 * linked), on the same database and index, interleaved with this one: before and after
 * from the same run.
 *
 *   TEST_DATABASE_URL=postgres://... TEST_REDIS_URL=redis://... node --import tsx bench/search-api-cost.bench.ts
 *
 * Env: SEARCH_API_COST_RUNS (default 3), SEARCH_API_COST_SECONDS (default 2 per run and
 * layer), SEARCH_API_COST_CPU_PROF=dir (a CPU profile of the service), SEARCH_API_COST_BASELINE.
 * After the runs the ledger must be exact: spent = 2xx answers × 5, within the requests in
 * flight at each cut-off, and reconcileLedger finds no difference.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { LocalUseEmbedder } from '../src/adapters/embeddings/local-use-embedder.ts';
import { MeilisearchSearchIndex } from '../src/adapters/meilisearch/search-index.ts';
import { reconcileLedger } from '../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import type { Db } from '../src/db/database.ts';
import { embeddingProjectorName } from '../src/projections/embedding-projector.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { eventStoreOf } from '../src/wiring.ts';
import { startMeilisearch } from '../test/support/meilisearch.ts';
import { freshDatabase, fundedKey, serveChild, type ChildService } from './serve-child.ts';
import { median, table } from './stats.ts';
import { wrk, type WrkResult } from './wrk.ts';

const RUNS = Number(process.env.SEARCH_API_COST_RUNS ?? 3);
// wrk takes whole seconds.
const SECONDS = Math.max(1, Math.round(Number(process.env.SEARCH_API_COST_SECONDS ?? 2)));
const PHRASES = ['union of india', 'state of punjab', 'income tax', 'land acquisition compensation', 'bail'];
const CONNECTIONS = [1, 4] as const;
const LIMIT = 20;
const PRICE = 5;
export const API_CPU_TARGET_MS = 5;

export interface CostRow {
  /** 'after' is this checkout; 'before' the SEARCH_API_COST_BASELINE one. */
  readonly build: 'after' | 'before';
  readonly query: string;
  readonly connections: number;
  readonly engineP50Ms: number;
  readonly apiP50Ms: number;
  readonly apiCpuMs: number;
  readonly apiPerSecond: number;
}

export interface CostFigures {
  readonly documents: number;
  readonly rows: readonly CostRow[];
  readonly charged: number;
  readonly answered: number;
  readonly inFlightAtCutOff: number;
  readonly reconcileDifferences: number;
  /** The child's CPU at rest, ms per second, measured before the runs (already inside apiCpuMs). */
  readonly idleCpuMsPerSecond: number;
}

function cpuMs(pid: number): number {
  // Fields after the command name, 1-based 14 and 15: utime and stime, in clock ticks (100 a second).
  const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A wrk script sending one POST with a JSON body. */
function postScript(dir: string, name: string, body: unknown, headers: Record<string, string>): string {
  const path = join(dir, `${name}.lua`);
  const lines = Object.entries({ 'Content-Type': 'application/json', ...headers }).map(
    ([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`,
  );
  writeFileSync(path, [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(JSON.stringify(body))}`, ...lines].join('\n'));
  return path;
}

async function caseNumberQuery(db: Db): Promise<string> {
  const { rows } = await sql<{ caseNumber: string }>`select case_number from cases where source = 'sc-judgments-metadata'
    order by case_id limit 1 offset 100`.execute(db);
  const found = rows[0]?.caseNumber;
  if (found === undefined) throw new Error('the corpus has no Supreme Court metadata row for the case-number query');
  return found;
}

export async function searchApiCostBench(adminUrl: string, redisUrl: string | undefined, corpusDir: string): Promise<CostFigures> {
  const database = await freshDatabase(adminUrl, 'bench_search_api_cost');
  const meili = await startMeilisearch();
  const scripts = mkdtempSync(join(tmpdir(), 'bench-search-cost-'));
  const services: { build: CostRow['build']; service: ChildService }[] = [];
  try {
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date() });
    const index = await MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid: 'cases' });
    // Fed here, before the service starts: its own projector then finds nothing left to do.
    await new SearchIndexProjector(database.db, index, { kind: 'postgres', now: () => new Date(), batchSize: 2_000 }).catchUp();
    // Semantic search is not measured: the chunks are marked embedded, or the service would spend its first minutes embedding them.
    const embeddings = embeddingProjectorName(new LocalUseEmbedder());
    await sql`insert into projector_checkpoints (projector, transaction_id, global_position, updated_at)
      select ${embeddings}, transaction_id, global_position, now() from projector_checkpoints where projector like 'search-index:%'`.execute(
      database.db,
    );
    await sql`analyze`.execute(database.db);
    const documents = (await sql<{ n: number }>`select count(*)::int as n from cases`.execute(database.db)).rows[0]!.n;
    const { key } = await fundedKey(database.db, { email: 'search-cost@lawfirm.example', credits: 1_000_000_000 });
    const queries = [...PHRASES, await caseNumberQuery(database.db)];
    // No test mode: it would build its own database and index at start-up, which is not what is measured.
    const env = { MEILI_URL: meili.url, MEILI_API_KEY: meili.apiKey, MEILI_INDEX: 'cases', TEST_MODE: 'false' };
    const profile = process.env.SEARCH_API_COST_CPU_PROF;
    const common = { databaseUrl: database.url, env, ...(redisUrl ? { redisUrl } : {}) };
    const after = await serveChild({ ...common, ...(profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {}) });
    services.push({ build: 'after', service: after });
    // The profiler's own threads (one per isolate) keep a profiled service above the usual bar.
    await after.settled(profile ? 0.3 : undefined);
    const baseline = process.env.SEARCH_API_COST_BASELINE;
    if (baseline) {
      const before = await serveChild({ ...common, cwd: baseline });
      services.push({ build: 'before', service: before });
      await before.settled();
    }

    const idle = services[0]!.service;
    const idleStart = cpuMs(idle.pid);
    await new Promise((r) => setTimeout(r, 2_000));
    const idleCpuMsPerSecond = (cpuMs(idle.pid) - idleStart) / 2;

    const engineHeaders = { Authorization: `Bearer ${meili.apiKey}`, 'Accept-Encoding': 'identity' };
    const all: WrkResult[] = [];
    let inFlightAtCutOff = 0;
    const samples = new Map<string, { engine: number[]; api: number[]; cpu: number[]; rate: number[] }>();
    const run = async (url: string, script: string, connections: number, seconds: number): Promise<WrkResult> => {
      const result = await wrk(url, { script, connections, threads: 1, durationSeconds: seconds });
      if (result.failures > 0) throw new Error(`${String(result.failures)} failures from ${url}`);
      return result;
    };
    const scriptsOf = queries.map((query, i) => ({
      query,
      engine: postScript(
        scripts,
        `engine-${String(i)}`,
        { q: query, matchingStrategy: 'all', limit: LIMIT, attributesToRetrieve: ['caseId'], showRankingScore: true },
        engineHeaders,
      ),
      api: postScript(scripts, `api-${String(i)}`, { query, limit: LIMIT }, { 'X-API-Key': key }),
    }));
    // Warm-up: JIT, pools, caches, for every query on every build.
    for (const s of scriptsOf)
      for (const { service } of services) {
        all.push(await run(`${service.root}/search/cases`, s.api, 4, 1));
        inFlightAtCutOff += 4;
      }
    for (let r = 0; r < RUNS; r += 1)
      for (const s of scriptsOf)
        for (const connections of CONNECTIONS) {
          const engine = await run(`${meili.url}/indexes/cases/search`, s.engine, connections, SECONDS);
          for (const { build, service } of services) {
            const before = cpuMs(service.pid);
            const api = await run(`${service.root}/search/cases`, s.api, connections, SECONDS);
            const spent = cpuMs(service.pid) - before;
            all.push(api);
            inFlightAtCutOff += connections;
            const key = `${build}|${s.query}|${String(connections)}`;
            const entry = samples.get(key) ?? { engine: [], api: [], cpu: [], rate: [] };
            entry.engine.push(engine.p50Ms);
            entry.api.push(api.p50Ms);
            // Requests wrk counted; those in flight at its cut-off were served too, so this is an upper bound.
            entry.cpu.push(spent / api.requests);
            entry.rate.push(api.perSecond);
            samples.set(key, entry);
          }
        }
    for (const { service } of services) await service.stop();

    const { rows: spent } = await sql<{ charged: number }>`select coalesce(sum(amount), 0)::int as charged from credit_charges`.execute(
      database.db,
    );
    const report = await reconcileLedger({ db: database.db, events: eventStoreOf(database.db), analytics: null }, {});
    const rows = [...samples.entries()].map(([key, s]) => {
      const [build, query, connections] = key.split('|') as [CostRow['build'], string, string];
      return {
        build,
        query,
        connections: Number(connections),
        engineP50Ms: median(s.engine),
        apiP50Ms: median(s.api),
        apiCpuMs: median(s.cpu),
        apiPerSecond: median(s.rate),
      };
    });
    return {
      documents,
      rows,
      charged: spent[0]!.charged,
      answered: all.reduce((n, r) => n + r.requests, 0),
      inFlightAtCutOff,
      reconcileDifferences: report.differences.length,
      idleCpuMsPerSecond,
    };
  } finally {
    for (const { service } of services) await service.stop();
    rmSync(scripts, { recursive: true, force: true });
    await meili.stop();
    await database.drop();
  }
}

export function printSearchApiCost(f: CostFigures): string {
  const builds = new Set(f.rows.map((r) => r.build));
  const perQuery = table([
    [
      ...(builds.size > 1 ? ['build'] : []),
      'query',
      'conns',
      'engine p50 ms',
      'API p50 ms',
      'API : engine',
      'API req/s',
      `API CPU ms/search (target <= ${String(API_CPU_TARGET_MS)})`,
      'met',
    ],
    ...f.rows.map((r) => [
      ...(builds.size > 1 ? [r.build] : []),
      r.query,
      r.connections,
      r.engineP50Ms,
      r.apiP50Ms,
      r.apiP50Ms / r.engineP50Ms,
      r.apiPerSecond,
      r.apiCpuMs,
      r.apiCpuMs <= API_CPU_TARGET_MS ? 'yes' : `no (+${(r.apiCpuMs - API_CPU_TARGET_MS).toFixed(1)})`,
    ]),
  ]);
  const exact = f.charged >= PRICE * f.answered && f.charged <= PRICE * (f.answered + f.inFlightAtCutOff);
  const ledger = `ledger: ${String(f.charged)} credits charged for ${String(f.answered)} 2xx answers × ${String(PRICE)} (+ at most ${String(f.inFlightAtCutOff)} in flight at cut-off): ${exact ? 'exact' : 'NOT EXACT'}; reconciliation differences: ${String(f.reconcileDifferences)}`;
  return `${perQuery}\nchild CPU at rest: ${f.idleCpuMsPerSecond.toFixed(1)} ms/s (included above)\n${ledger}`;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL (or BENCH_DATABASE_URL) to a PostgreSQL server');
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  const figures = await searchApiCostBench(adminUrl, redisUrl, process.env.CORPUS_DIR ?? '../shared/data');
  console.log(
    `POST /search/cases on Meilisearch + PostgreSQL${redisUrl ? ' + Redis' : ''}, ${String(figures.documents)} real cases (wrk; medians of ${String(RUNS)} runs of ${String(SECONDS)} s)`,
  );
  console.log(printSearchApiCost(figures));
}
