/**
 * The API's own share of a keyword search: for each query of a mix with the commonest words
 * and party names, one request at a time, the median time of
 * - the engine alone: one Meilisearch search request of the same words and page size (on
 *   PostgreSQL there is no separate engine call to time: the index adapter is the engine);
 * - the index adapter (`SearchIndex.search`: the page, its total and the withheld check);
 * - POST /search/cases over HTTP (key gate, body, adapter, restricted-record check and
 *   listings, charge, audit, response),
 * and the ratios HTTP : adapter and HTTP : engine, in the same run. The real corpus on
 * PostgreSQL, with Meilisearch as the index or PostgreSQL full-text search.
 *
 *   TEST_DATABASE_URL=postgres://... node --import tsx bench/search-overhead.bench.ts
 *
 * Env: SEARCH_OVERHEAD_SAMPLES (default 21 per query and layer), SEARCH_OVERHEAD_BACKENDS
 * (default "meilisearch,postgres").
 */
import { sql } from 'kysely';
import postgres from 'postgres';
import { MeilisearchSearchIndex } from '../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import type { SearchIndex } from '../src/ports/search-index.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { buildTestApp } from '../test/support/app.ts';
import { startMeilisearch, type MeilisearchServer } from '../test/support/meilisearch.ts';
import { serveWithFundedKey } from './served-app.ts';
import { median, table } from './stats.ts';

const SAMPLES = Number(process.env.SEARCH_OVERHEAD_SAMPLES ?? 21);
const QUERIES = ['union of india', 'state of', 'appeal', 'income tax', 'land acquisition compensation', 'bail'];
const LIMIT = 20;

export interface OverheadRow {
  readonly backend: 'meilisearch' | 'postgres';
  readonly query: string;
  readonly engineMs: number | null;
  readonly adapterMs: number;
  readonly httpMs: number;
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

async function benchBackend(adminUrl: string, corpusDir: string, backend: OverheadRow['backend']): Promise<OverheadRow[]> {
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
    await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => new Date() }).catchUp();
    await sql`analyze`.execute(database.db);
    const served = await serveWithFundedKey(buildTestApp({ db: database.db, index }), {
      email: `search-overhead-${backend}@lawfirm.example`,
      credits: 1_000_000_000,
      user: { organizationId: null, limitOverrides: { requestsPerMinute: 10_000_000 } },
    });
    close = () => served.close();
    const rows: OverheadRow[] = [];
    for (const query of QUERIES) {
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
      rows.push({
        backend,
        query,
        engineMs: engine ? median(samples.engine) : null,
        adapterMs: median(samples.adapter),
        httpMs: median(samples.http),
      });
    }
    return rows;
  } finally {
    close?.();
    await database.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    await meili?.stop();
  }
}

export async function searchOverheadBench(adminUrl: string, corpusDir: string): Promise<OverheadRow[]> {
  const backends = (process.env.SEARCH_OVERHEAD_BACKENDS ?? 'meilisearch,postgres').split(',').map((b) => b.trim()) as OverheadRow['backend'][];
  const rows: OverheadRow[] = [];
  for (const backend of backends) rows.push(...(await benchBackend(adminUrl, corpusDir, backend)));
  return rows;
}

export function printSearchOverhead(rows: readonly OverheadRow[]): string {
  const na = 'n/a';
  return table([
    ['backend', 'query', 'engine ms', 'adapter ms', 'HTTP ms', 'HTTP - adapter ms', 'HTTP : adapter', 'HTTP : engine'],
    ...rows.map((r) => [
      r.backend,
      r.query,
      r.engineMs ?? na,
      r.adapterMs,
      r.httpMs,
      r.httpMs - r.adapterMs,
      r.httpMs / r.adapterMs,
      r.engineMs === null ? na : r.httpMs / r.engineMs,
    ]),
  ]);
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL (or BENCH_DATABASE_URL) to a PostgreSQL server');
  const rows = await searchOverheadBench(adminUrl, process.env.CORPUS_DIR ?? '../shared/data');
  console.log(`POST /search/cases against its index, one request at a time (real corpus; medians of ${String(SAMPLES)})`);
  console.log(printSearchOverhead(rows));
}
