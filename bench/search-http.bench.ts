/**
 * Keyword search (POST /search/cases, funded key, 5 credits a call) through the whole HTTP
 * path of the app (key gate, charge, audit, index, case rows), side by side on each backend:
 * PostgreSQL full-text search on PostgreSQL, the same on PGlite (the embedded default), and
 * Meilisearch with PostgreSQL as the case store. Sizes: the real corpus, then SYNTHETIC sets
 * grown in the `cases` table by recombining real fields of real cases (growSynthetic, `syn-`
 * ids), so the real projector indexes them. Throughput and p50/p99 at 32 clients, medians
 * of SEARCH_HTTP_RUNS runs; a fixed mix of real queries (case numbers in another printed
 * form, party names with an honorific, multi-word topics; some with filters or sortBy recent).
 *
 * Also, on Meilisearch: the time from the end of the corpus ingest to the last case being
 * searchable (projector caught up, its tasks done), the same for each synthetic growth, and
 * what Meilisearch's own task log says the time went on (GET /tasks durations, batch sizes).
 *
 * The app is served in this process (as semantic-http.bench.ts), so the load generator
 * shares the event loop and the 2 cores with the service: figures compare backends, they are
 * not a ceiling.
 *
 * Env: SEARCH_HTTP_SIZES (default "corpus,100000"; 1000000 is opt-in), SEARCH_HTTP_BACKENDS
 * (default "postgres,pglite,meilisearch"), SEARCH_HTTP_PGLITE_MAX (default 100000: PGlite is
 * one single-threaded embedded process; larger sets there are left out, saying why, unless raised),
 * SEARCH_HTTP_RUNS (default 3), SEARCH_HTTP_SECONDS (default 4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import postgres from 'postgres';
import { MeilisearchSearchIndex } from '../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite, openPostgres, type OpenedDatabase } from '../src/db/open.ts';
import type { SearchIndex } from '../src/ports/search-index.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { buildTestApp, testEmbedder } from '../test/support/app.ts';
import { startMeilisearch, type MeilisearchServer } from '../test/support/meilisearch.ts';
import { relevanceProbes } from '../test/support/search-relevance.ts';
import { growSynthetic } from './charging.bench.ts';
import { serveWithFundedKey } from './served-app.ts';
import { load, medianLoad, type LoadResult } from './http-load.ts';
import { table } from './stats.ts';

export type Backend = 'postgres' | 'pglite' | 'meilisearch';
const RUNS = Number(process.env.SEARCH_HTTP_RUNS ?? 3);
const DURATION_MS = Number(process.env.SEARCH_HTTP_SECONDS ?? 4) * 1000;
const CONCURRENCY = 32;
const PGLITE_MAX = Number(process.env.SEARCH_HTTP_PGLITE_MAX ?? 100_000);
const TOPICS = [
  'land acquisition compensation',
  'murder conviction appeal',
  'income tax assessment',
  'bail',
  'arbitration award',
  'service pension',
];

/** One cell of the table: figures, or why it was not run. */
export interface Cell {
  readonly backend: Backend;
  readonly size: string;
  readonly documents: number;
  readonly result?: LoadResult;
  readonly notRun?: string;
}

export interface IndexingTime {
  readonly what: string;
  readonly rows: number;
  readonly seconds: number;
  /** From Meilisearch's task log: summed task durations, tasks, largest batch. */
  readonly taskSeconds?: number;
  readonly tasks?: number;
  readonly largestBatch?: number;
}

export interface SearchHttpFigures {
  readonly cells: Cell[];
  readonly indexing: IndexingTime[];
}

function sizesFromEnv(): string[] {
  return (process.env.SEARCH_HTTP_SIZES ?? 'corpus,100000')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function backendsFromEnv(adminUrl: string | undefined): Backend[] {
  const wanted = (process.env.SEARCH_HTTP_BACKENDS ?? 'postgres,pglite,meilisearch').split(',').map((s) => s.trim()) as Backend[];
  return wanted.filter((b) => b === 'pglite' || adminUrl !== undefined);
}

/** The fixed request mix: bodies built from real cases, in a set order cycled by every client. */
async function requestMix(db: Db): Promise<string[]> {
  const probes = await relevanceProbes(db, { caseNumbers: 12, partyNames: 12 }, 'tuning');
  const bodies: object[] = [];
  probes.caseNumbers.forEach((p) => bodies.push({ query: p.query, limit: 20 }));
  probes.honorifics.forEach((p, i) =>
    bodies.push(i % 3 === 0 ? { query: p.query, limit: 20, sortBy: 'recent' } : { query: p.query, limit: 20 }),
  );
  TOPICS.forEach((q, i) => {
    bodies.push({ query: q, limit: 20 });
    bodies.push({ query: q, limit: 20, sortBy: 'recent' });
    bodies.push(
      i % 2 === 0
        ? { query: q, limit: 20, year: [2010, 2011, 2012, 2013, 2014] }
        : { query: q, limit: 20, fromDate: '2000-01-01', toDate: '2009-12-31', sortBy: 'recent' },
    );
  });
  return bodies.map((b) => JSON.stringify(b));
}

async function count(db: Db): Promise<number> {
  return (await sql<{ n: number }>`select count(*)::int as n from cases`.execute(db)).rows[0]?.n ?? 0;
}

/** Sums Meilisearch's task log for the index since `afterUid` (durations are ISO 8601, e.g. PT1.23S). */
async function taskLog(
  server: MeilisearchServer,
  afterUid: number,
): Promise<{ seconds: number; tasks: number; largestBatch: number; lastUid: number }> {
  let seconds = 0;
  let tasks = 0;
  let largestBatch = 0;
  let lastUid = afterUid;
  let from: number | null = null;
  for (;;) {
    const res = await fetch(`${server.url}/tasks?limit=1000${from === null ? '' : `&from=${String(from)}`}`, {
      headers: { Authorization: `Bearer ${server.apiKey}` },
    });
    const page = (await res.json()) as {
      results: { uid: number; duration: string | null; details?: { receivedDocuments?: number } }[];
      next: number | null;
    };
    for (const t of page.results) {
      if (t.uid <= afterUid) return { seconds, tasks, largestBatch, lastUid };
      lastUid = Math.max(lastUid, t.uid);
      tasks += 1;
      const m = /PT(?:(\d+)M)?([\d.]+)S/.exec(t.duration ?? '');
      if (m) seconds += Number(m[1] ?? 0) * 60 + Number(m[2]);
      largestBatch = Math.max(largestBatch, t.details?.receivedDocuments ?? 0);
    }
    if (page.next === null) return { seconds, tasks, largestBatch, lastUid };
    from = page.next;
  }
}

async function openBackendDatabase(
  backend: Backend,
  adminUrl: string | undefined,
): Promise<{ database: OpenedDatabase; drop(): Promise<void> }> {
  if (backend === 'pglite' || !adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-search-http-'));
    const database = await openPglite(dir);
    return { database, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `bench_search_http_${backend}_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 20 });
  return {
    database,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function benchBackend(
  backend: Backend,
  adminUrl: string | undefined,
  corpusDir: string,
  sizes: readonly string[],
  out: SearchHttpFigures,
): Promise<void> {
  const { database, drop } = await openBackendDatabase(backend, adminUrl);
  let meili: MeilisearchServer | undefined;
  let close: (() => void) | undefined;
  try {
    const db = database.db;
    await migrate(db);
    await ingestCorpus({ db, corpusDir, now: () => new Date() });
    const ingestEnd = performance.now();
    const corpusRows = await count(db);
    let index: SearchIndex;
    if (backend === 'meilisearch') {
      meili = await startMeilisearch();
      index = await MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid: 'cases' });
    } else {
      index = new PostgresSearchIndex(db);
    }
    const projector = new SearchIndexProjector(db, index, { kind: database.kind, now: () => new Date() });
    let lastTask = 0;
    const project = async (what: string, rows: number, since: number) => {
      await projector.catchUp();
      const seconds = (performance.now() - since) / 1000;
      if (meili) {
        const log = await taskLog(meili, lastTask);
        lastTask = log.lastUid;
        out.indexing.push({
          what: `${what} (meilisearch)`,
          rows,
          seconds,
          taskSeconds: log.seconds,
          tasks: log.tasks,
          largestBatch: log.largestBatch,
        });
      } else {
        out.indexing.push({ what: `${what} (${backend})`, rows, seconds });
      }
    };
    // Counted from the end of the ingest, so it includes opening the index as a first start would.
    await project('corpus ingest end → last case searchable', corpusRows, ingestEnd);
    if (database.kind !== 'pglite') await sql`analyze search_documents`.execute(db);

    const served = await serveWithFundedKey(buildTestApp({ db, index }), {
      email: `search-http-${backend}@lawfirm.example`,
      credits: 1_000_000_000,
      user: { organizationId: null, limitOverrides: { requestsPerMinute: 10_000_000 } },
    });
    close = () => served.close();
    const url = `${served.root}/search/cases`;
    const headers = { 'X-API-Key': served.key };
    const bodies = await requestMix(db);
    // Every body of the mix must be accepted and charged; a refused one would measure the refusal.
    for (const body of bodies) {
      const res = await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`search refused (${String(res.status)}): ${body} → ${(await res.text()).slice(0, 300)}`);
    }
    const options = {
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
      expectStatus: 200,
      body: (i: number) => bodies[i % bodies.length]!,
    };

    for (const size of sizes) {
      const target = size === 'corpus' ? corpusRows : Number(size);
      if (backend === 'pglite' && target > PGLITE_MAX) {
        out.cells.push({
          backend,
          size,
          documents: target,
          notRun: `not run: above SEARCH_HTTP_PGLITE_MAX=${String(PGLITE_MAX)} (single-threaded embedded PGlite: a million rows took 5 min to grow and index, at 7.7 req/s; raise it to run)`,
        });
        continue;
      }
      const before = await count(db);
      if (target > before) {
        const growing = performance.now();
        await growSynthetic(db, target);
        // Counted from the start of the growth: the insert into `cases` stands in for an ingest of new rows.
        await project(`grow ${String(before)} → ${String(target)} SYNTHETIC rows → last case searchable`, target - before, growing);
        if (database.kind !== 'pglite') await sql`analyze search_documents`.execute(db);
      }
      const documents = await count(db);
      await load(url, headers, { ...options, durationMs: 1_000 });
      const results: LoadResult[] = [];
      for (let r = 0; r < RUNS; r += 1) results.push(await load(url, headers, options));
      out.cells.push({ backend, size, documents, result: medianLoad(results) });
      console.error(`[search-http] ${backend} ${size} (${String(documents)}): ${JSON.stringify(medianLoad(results))}`);
    }
  } finally {
    close?.();
    await database.close();
    await drop();
    await meili?.stop();
  }
}

function print(f: SearchHttpFigures): void {
  console.log(
    `\nKeyword search over HTTP by backend (POST /search/cases, funded key, ${String(CONCURRENCY)} clients, ${String(DURATION_MS / 1000)} s; medians of ${String(RUNS)} runs; sizes past the corpus are SYNTHETIC)`,
  );
  console.log(
    table([
      ['backend', 'size', 'documents', 'req/s', 'p50 ms', 'p99 ms', 'failures'],
      ...f.cells.map((c) =>
        c.result
          ? [
              c.backend,
              c.size === 'corpus' ? 'real corpus' : `${c.size} (synthetic)`,
              c.documents,
              c.result.perSecond,
              c.result.p50Ms,
              c.result.p99Ms,
              c.result.failures,
            ]
          : [c.backend, `${c.size} (synthetic)`, c.documents, c.notRun ?? '', '', '', ''],
      ),
    ]),
  );
  console.log('\nIndexing: time until the last case is searchable (projector caught up, index writes done)');
  console.log(
    table([
      ['what', 'rows', 'seconds', 'Meili task s (sum)', 'tasks', 'largest batch'],
      ...f.indexing.map((i) => [i.what, i.rows, i.seconds, i.taskSeconds ?? '', i.tasks ?? '', i.largestBatch ?? '']),
    ]),
  );
}

export async function searchHttpBench(
  corpusDir: string,
  adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL,
): Promise<SearchHttpFigures> {
  const figures: SearchHttpFigures = { cells: [], indexing: [] };
  const sizes = sizesFromEnv();
  for (const backend of backendsFromEnv(adminUrl)) await benchBackend(backend, adminUrl, corpusDir, sizes, figures);
  await testEmbedder().close();
  print(figures);
  return figures;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await searchHttpBench(process.env.CORPUS_DIR ?? '../shared/data');
