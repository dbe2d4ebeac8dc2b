/**
 * The API's own share of a keyword search: for each query of a mix with the commonest words
 * and party names, one request at a time, the median time of
 * - the engine alone: one Meilisearch search request of the same words and page size (on
 *   PostgreSQL there is no separate engine call to time: the index adapter is the engine);
 * - the index adapter (`SearchIndex.search`: the page, its total and the withheld check);
 * - POST /search/cases over HTTP (key gate, body, adapter, restricted-record check and
 *   listings, charge, audit, response),
 * and the ratios HTTP : adapter and HTTP : engine, in the same run; and, over the whole mix,
 * the p50 and p99 of the HTTP path. The real corpus on PostgreSQL, with Meilisearch as the
 * index or PostgreSQL full-text search, then the same store grown to each size of
 * SEARCH_OVERHEAD_SIZES with SYNTHETIC cases (growSynthetic: real fields recombined), indexed
 * by the real projector. The mix includes one real case number, in its stored form.
 *
 *   TEST_DATABASE_URL=postgres://... node --import tsx bench/search-overhead.bench.ts
 *
 * Env: SEARCH_OVERHEAD_SAMPLES (default 21 per query and layer), SEARCH_OVERHEAD_BACKENDS
 * (default "meilisearch,postgres"), SEARCH_OVERHEAD_SIZES (default "corpus"; for example
 * "corpus,100000,1000000").
 */
import { sql } from 'kysely';
import postgres from 'postgres';
import { MeilisearchSearchIndex } from '../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import type { SearchIndex } from '../src/ports/search-index.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { buildTestApp } from '../test/support/app.ts';
import { startMeilisearch, type MeilisearchServer } from '../test/support/meilisearch.ts';
import { growSynthetic } from './charging.bench.ts';
import { serveWithFundedKey } from './served-app.ts';
import { median, table } from './stats.ts';

const SAMPLES = Number(process.env.SEARCH_OVERHEAD_SAMPLES ?? 21);
const WORDS = ['union of india', 'state of', 'appeal', 'income tax', 'land acquisition compensation', 'bail'];
const LIMIT = 20;
const SIZES = (process.env.SEARCH_OVERHEAD_SIZES ?? 'corpus').split(',').map((s) => s.trim());

export interface OverheadRow {
  readonly backend: 'meilisearch' | 'postgres';
  /** Cases in the store: the real corpus, then SYNTHETIC growth. */
  readonly documents: number;
  readonly query: string;
  readonly engineMs: number | null;
  readonly adapterMs: number;
  readonly httpMs: number;
}

/** The HTTP path over the whole mix at one size. */
export interface MixLatency {
  readonly backend: OverheadRow['backend'];
  readonly documents: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface OverheadFigures {
  readonly rows: readonly OverheadRow[];
  readonly mix: readonly MixLatency[];
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** A real case number of the corpus, as stored, for the mix. */
async function caseNumberQuery(db: Db): Promise<string> {
  const row = await sql<{ caseNumber: string }>`select case_number from cases where source = 'sc-judgments-metadata'
    order by case_id limit 1 offset 100`.execute(db);
  const found = row.rows[0]?.caseNumber;
  if (found === undefined) throw new Error('the corpus has no Supreme Court metadata row for the case-number query');
  return found;
}

async function caseCount(db: Db): Promise<number> {
  return (await sql<{ n: number }>`select count(*)::int as n from cases`.execute(db)).rows[0]?.n ?? 0;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The engine's own answer to the adapter's main query: the words, all of them required, one page of ids. */
function engineSearch(server: MeilisearchServer, query: string): () => Promise<unknown> {
  const body = JSON.stringify({ q: query, limit: LIMIT, matchingStrategy: 'all', attributesToRetrieve: ['caseId'] });
  const headers = { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json', 'Accept-Encoding': 'identity' };
  return async () => {
    const res = await fetch(`${server.url}/indexes/cases/search`, { method: 'POST', headers, body });
    if (!res.ok) throw new Error(`meilisearch answered ${String(res.status)}`);
    await res.arrayBuffer();
  };
}

async function benchBackend(adminUrl: string, corpusDir: string, backend: OverheadRow['backend']): Promise<OverheadFigures> {
  const name = `bench_search_overhead_${backend}_${String(Date.now())}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 20 });
  let meili: MeilisearchServer | undefined;
  let close: (() => void) | undefined;
  try {
    await migrate(database.db);
    await ingestCorpus({ db: database.db, corpusDir, now: () => new Date() });
    let index: SearchIndex;
    if (backend === 'meilisearch') {
      meili = await startMeilisearch();
      index = await MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid: 'cases' });
    } else {
      index = new PostgresSearchIndex(database.db);
    }
    const projector = new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => new Date() });
    await projector.catchUp();
    await sql`analyze`.execute(database.db);
    const served = await serveWithFundedKey(buildTestApp({ db: database.db, index }), {
      email: `search-overhead-${backend}@lawfirm.example`,
      credits: 1_000_000_000,
      user: { organizationId: null, limitOverrides: { requestsPerMinute: 10_000_000 } },
    });
    close = () => served.close();
    const queries = [...WORDS, await caseNumberQuery(database.db)];
    const rows: OverheadRow[] = [];
    const mix: MixLatency[] = [];
    for (const size of SIZES) {
      if (size !== 'corpus') {
        await growSynthetic(database.db, Number(size));
        await projector.catchUp();
        await sql`analyze`.execute(database.db);
      }
      const documents = await caseCount(database.db);
      const httpAll: number[] = [];
      for (const query of queries) {
        const http = async () => {
          const res = await fetch(`${served.root}/search/cases`, {
            method: 'POST',
            headers: { 'X-API-Key': served.key, 'Content-Type': 'application/json' },
            body: JSON.stringify({ query, limit: LIMIT }),
          });
          if (res.status !== 200) throw new Error(`search answered ${String(res.status)}: ${await res.text()}`);
          await res.arrayBuffer();
        };
        const adapter = () => index.search({ query, filters: {}, sort: 'relevance', offset: 0, limit: LIMIT });
        const engine = meili ? engineSearch(meili, query) : null;
        const samples = { engine: [] as number[], adapter: [] as number[], http: [] as number[] };
        // Interleaved, so a slow moment of the machine weighs on every layer alike; the first round warms up.
        for (let i = 0; i <= SAMPLES; i += 1) {
          const e = engine ? await timed(engine) : null;
          const a = await timed(adapter);
          const h = await timed(http);
          if (i === 0) continue;
          if (e !== null) samples.engine.push(e);
          samples.adapter.push(a);
          samples.http.push(h);
        }
        httpAll.push(...samples.http);
        rows.push({
          backend,
          documents,
          query,
          engineMs: engine ? median(samples.engine) : null,
          adapterMs: median(samples.adapter),
          httpMs: median(samples.http),
        });
      }
      mix.push({ backend, documents, samples: httpAll.length, p50Ms: percentile(httpAll, 50), p99Ms: percentile(httpAll, 99) });
    }
    return { rows, mix };
  } finally {
    close?.();
    await database.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    await meili?.stop();
  }
}

export async function searchOverheadBench(adminUrl: string, corpusDir: string): Promise<OverheadFigures> {
  const backends = (process.env.SEARCH_OVERHEAD_BACKENDS ?? 'meilisearch,postgres')
    .split(',')
    .map((b) => b.trim()) as OverheadRow['backend'][];
  const rows: OverheadRow[] = [];
  const mix: MixLatency[] = [];
  for (const backend of backends) {
    const figures = await benchBackend(adminUrl, corpusDir, backend);
    rows.push(...figures.rows);
    mix.push(...figures.mix);
  }
  return { rows, mix };
}

export function printSearchOverhead(figures: OverheadFigures): string {
  const na = 'n/a';
  const perQuery = table([
    ['backend', 'documents', 'query', 'engine ms', 'adapter ms', 'HTTP ms', 'HTTP - adapter ms', 'HTTP : adapter', 'HTTP : engine'],
    ...figures.rows.map((r) => [
      r.backend,
      r.documents,
      r.query,
      r.engineMs ?? na,
      r.adapterMs,
      r.httpMs,
      r.httpMs - r.adapterMs,
      r.httpMs / r.adapterMs,
      r.engineMs === null ? na : r.httpMs / r.engineMs,
    ]),
  ]);
  const mix = table([
    ['backend', 'documents', 'HTTP requests', 'HTTP p50 ms', 'HTTP p99 ms', 'target p50 <= 20, p99 <= 75'],
    ...figures.mix.map((m) => [m.backend, m.documents, m.samples, m.p50Ms, m.p99Ms, m.p50Ms <= 20 && m.p99Ms <= 75 ? 'met' : 'not met']),
  ]);
  return `${perQuery}\n\nThe whole mix over HTTP, one request at a time (sizes past the corpus are SYNTHETIC)\n${mix}`;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL (or BENCH_DATABASE_URL) to a PostgreSQL server');
  const figures = await searchOverheadBench(adminUrl, process.env.CORPUS_DIR ?? '../shared/data');
  console.log(`POST /search/cases against its index, one request at a time (medians of ${String(SAMPLES)})`);
  console.log(printSearchOverhead(figures));
}
