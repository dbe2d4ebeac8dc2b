/**
 * Semantic search figures, sized to run in about ten minutes on 2 cores:
 * (a) quality on the real full-text judgments, on PGlite: each IN-Abs summary is a query,
 *     and the question is whether its own judgment comes first (recall@1) or in the top 10
 *     (recall@10). The IN-Abs source stores the summary on the case, so it is nulled in
 *     the bench database before indexing: only the judgment text (and heading) is indexed.
 *     The Indian Kanoon 50 judgments are indexed too, as distractors. The local embedder
 *     (at most SEMANTIC_BENCH_CHUNKS chunks a case, default 8, to fit the time) runs
 *     against keyword search (PostgresSearchIndex) over the same cases; keyword search
 *     requires every word of the query, so it is also given only the summary's first
 *     sentence. SEMANTIC_BENCH_QUALITY=0 skips it.
 * (b) the index at scale, on SYNTHETIC vectors (512 dimensions, Gaussian-like clusters of
 *     about 100 around random centres, made in SQL), on PGlite and on PostgreSQL with
 *     pgvector (SEMANTIC_BENCH_BACKENDS; PostgreSQL when BENCH_DATABASE_URL or
 *     TEST_DATABASE_URL is set): HNSW build time, recall@10 of the VectorIndex adapter's
 *     search against an exact scan and its p50/p99, unfiltered and under a one-year filter
 *     (with how many filtered pages came back full), at SEMANTIC_BENCH_SIZES (default
 *     10000,100000) vectors.
 * 1M vectors are not run: they are 2 GB of raw floats before the graph, beyond what
 * PGlite's 32-bit WebAssembly memory holds, and the build alone would take far longer than
 * the budget on 2 cores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { LocalUseEmbedder } from '../src/adapters/embeddings/local-use-embedder.ts';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { PostgresVectorIndex } from '../src/adapters/postgres/vector-index.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { scIk50Source } from '../src/corpus/sources/sc-ik50.ts';
import { SC_INABS_SOURCE, scInAbsSource } from '../src/corpus/sources/sc-inabs.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite, type OpenedDatabase } from '../src/db/open.ts';
import { USE_LITE_CHUNKING } from '../src/domain/semantic/chunking.ts';
import type { SearchIndex } from '../src/ports/search-index.ts';
import type { VectorIndex } from '../src/ports/vector-index.ts';
import { EmbeddingProjector } from '../src/projections/embedding-projector.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { freshDatabase } from './serve-child.ts';
import { table } from './stats.ts';

const DIMENSIONS = 512;
const QUERIES = 100;
/** Synthetic vectors get a decision year out of this many, at random: a one-year filter keeps about 1.4% of them. */
const YEARS = 70;
const PAGE = 10;

interface Recall {
  readonly at1: number;
  readonly at10: number;
  /** Queries that got no hit at all. */
  readonly empty: number;
}

export interface QualityFigures {
  readonly cases: number;
  readonly queries: number;
  readonly chunkCap: number;
  readonly chunks: number;
  readonly embedSeconds: number;
  /** Embedding the 100 summaries and searching with them. */
  readonly vectorQuerySeconds: number;
  /** Both keyword runs, 200 searches. */
  readonly keywordQuerySeconds: number;
  readonly vector: Recall;
  readonly keywordSummary: Recall;
  readonly keywordFirstSentence: Recall;
}

export interface IndexFigures extends Measured {
  readonly backend: VectorBackend;
  readonly vectors: number;
  /** Making the synthetic vectors in SQL: not part of any figure, shown for the run time. */
  readonly generateSeconds: number;
  readonly buildSeconds: number;
  /** The same queries, each under a one-year filter. */
  readonly filtered: Measured;
}

export interface SemanticFigures {
  /** Null when SEMANTIC_BENCH_QUALITY=0 skipped it. */
  readonly quality: QualityFigures | null;
  readonly index: readonly IndexFigures[];
}

async function openBenchPglite(): Promise<{ database: OpenedDatabase; drop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-semantic-'));
  const database = await openPglite(dir);
  await migrate(database.db);
  return {
    database,
    drop: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first sentence of at least 40 characters: shorter "sentences" are abbreviations cut ("sec."). */
function firstSentence(text: string): string {
  const squashed = text.replace(/\s+/g, ' ').trim();
  const end = /[.?!]["')\]]?\s+(?=[A-Z(])/g;
  for (let m = end.exec(squashed); m; m = end.exec(squashed)) {
    if (m.index >= 40) return squashed.slice(0, m.index + 1);
  }
  return squashed;
}

function recall(ranks: readonly (number | undefined)[], empty: number): Recall {
  const n = ranks.length;
  return {
    at1: ranks.filter((r) => r === 0).length / n,
    at10: ranks.filter((r) => r !== undefined && r < 10).length / n,
    empty,
  };
}

async function keywordRecall(index: SearchIndex, probes: readonly { caseId: string; query: string }[]): Promise<Recall> {
  const ranks: (number | undefined)[] = [];
  let empty = 0;
  for (const p of probes) {
    const result = await index.search({ query: p.query, filters: {}, sort: 'relevance', offset: 0, limit: 10 });
    if (result.hits.length === 0) empty += 1;
    const rank = result.hits.findIndex((h) => h.caseId === p.caseId);
    ranks.push(rank < 0 ? undefined : rank);
  }
  return recall(ranks, empty);
}

export async function semanticQuality(chunkCap: number): Promise<QualityFigures> {
  const { database, drop } = await openBenchPglite();
  const embedder = new LocalUseEmbedder();
  try {
    const db = database.db;
    const now = () => new Date();
    await ingestCorpus({ db, corpusDir, now, sources: [scInAbsSource, scIk50Source] });
    const summaries = await db
      .selectFrom('cases')
      .select(['caseId', 'summary'])
      .where('source', '=', SC_INABS_SOURCE)
      .where('summary', 'is not', null)
      .orderBy('caseId')
      .execute();
    await db.updateTable('cases').set({ summary: null }).where('source', '=', SC_INABS_SOURCE).execute();
    const probes = summaries.map((s) => ({ caseId: s.caseId, summary: s.summary ?? '' }));

    const keyword = new PostgresSearchIndex(db);
    await new SearchIndexProjector(db, keyword, { kind: database.kind, now, batchSize: 200 }).catchUp();
    const cases = (await sql<{ n: number }>`select count(*)::int as n from search_documents`.execute(db)).rows[0]?.n ?? 0;

    const started = performance.now();
    const projector = new EmbeddingProjector(db, embedder, {
      kind: database.kind,
      now,
      batchSize: 16,
      chunking: { ...USE_LITE_CHUNKING, maxChunks: chunkCap },
    });
    await projector.catchUp();
    const embedSeconds = (performance.now() - started) / 1000;

    const vectors: VectorIndex = new PostgresVectorIndex(db, { model: embedder.model, dimensions: embedder.dimensions });
    const querying = performance.now();
    const queryVectors = await embedder.embed(probes.map((p) => p.summary));
    const ranks: (number | undefined)[] = [];
    let empty = 0;
    for (const [i, p] of probes.entries()) {
      const result = await vectors.search({ vector: queryVectors[i] ?? [], filters: {}, offset: 0, limit: 10 });
      if (result.hits.length === 0) empty += 1;
      const rank = result.hits.findIndex((h) => h.caseId === p.caseId);
      ranks.push(rank < 0 ? undefined : rank);
    }

    const vectorQuerySeconds = (performance.now() - querying) / 1000;

    const keywordStarted = performance.now();
    const keywordSummary = await keywordRecall(
      keyword,
      probes.map((p) => ({ caseId: p.caseId, query: p.summary })),
    );
    const keywordFirstSentence = await keywordRecall(
      keyword,
      probes.map((p) => ({ caseId: p.caseId, query: firstSentence(p.summary) })),
    );
    return {
      cases,
      queries: probes.length,
      chunkCap,
      chunks: projector.progress.chunks,
      embedSeconds,
      vectorQuerySeconds,
      keywordQuerySeconds: (performance.now() - keywordStarted) / 1000,
      vector: recall(ranks, empty),
      keywordSummary,
      keywordFirstSentence,
    };
  } finally {
    await embedder.close();
    await drop();
  }
}

/**
 * SYNTHETIC vectors in case_chunks: `clusters` random centres in [-1, 1]^512, each vector a
 * centre plus uniform noise of half that width, and a random decision year of YEARS (for
 * the filtered queries). Made in SQL, batch by batch.
 */
async function synthesise(db: Db, size: number, clusters: number): Promise<void> {
  await sql`create table if not exists syn_centres as
    select c, array(select random() * 2 - 1 from generate_series(1, ${DIMENSIONS}::int) where c >= 0) as v
    from generate_series(0, ${clusters - 1}::int) c`.execute(db);
  for (let from = 1; from <= size; from += 10_000) {
    const to = Math.min(size, from + 9_999);
    await sql`insert into case_chunks (case_id, chunk_no, model, input_hash, embedding, court_code, case_type, judges,
        decision_year, decision_date, case_number_key, withheld)
      select 'syn-' || i, 0, 'use-lite-512', 'synthetic',
        (select array_agg(x + random() - 0.5 order by o) from unnest(s.v) with ordinality u(x, o))::vector,
        'SC', null, '{}', 1950 + floor(random() * ${YEARS}::int)::int, null, 'syn-' || i, false
      from generate_series(${from}::int, ${to}::int) i join syn_centres s on s.c = i % ${clusters}::int`.execute(db);
  }
}

/** Query vectors from the same distribution, not in the index. */
async function syntheticQueries(db: Db, clusters: number): Promise<number[][]> {
  const rows = await sql<{ v: string }>`select
      (select array_agg(x + random() - 0.5 order by o) from unnest(s.v) with ordinality u(x, o))::vector::text as v
    from generate_series(1, ${QUERIES}::int) q join syn_centres s on s.c = (q * 7919) % ${clusters}::int`.execute(db);
  return rows.rows.map((r) => r.v.slice(1, -1).split(',').map(Number));
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function exactTop10(db: Db, vector: readonly number[], year: number | null): Promise<string[]> {
  // No model condition, so the partial HNSW index cannot serve it: a full scan, exact.
  const rows = await sql<{ caseId: string }>`select case_id from case_chunks
    where ${year === null ? sql`true` : sql`decision_year = ${year}`}
    order by (embedding::vector(512)) <=> ${`[${vector.join(',')}]`}::vector(512) limit ${PAGE}`.execute(db);
  return rows.rows.map((r) => r.caseId);
}

export type VectorBackend = 'pglite' | 'postgres';

interface Measured {
  readonly recallAt10: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly exactP50Ms: number;
  /** Searches whose page held PAGE cases (every filter here keeps far more than PAGE). */
  readonly fullPages: number;
}

/** Each query once through the adapter and once as an exact scan, under the filter `yearOf` gives it. */
async function measure(
  db: Db,
  index: PostgresVectorIndex,
  queries: readonly (readonly number[])[],
  yearOf: (i: number) => number | null,
): Promise<Measured> {
  const times: number[] = [];
  const exactTimes: number[] = [];
  let found = 0;
  let fullPages = 0;
  for (const [i, q] of queries.entries()) {
    const year = yearOf(i);
    const t0 = performance.now();
    const result = await index.search({ vector: q, filters: year === null ? {} : { years: [year] }, offset: 0, limit: PAGE });
    times.push(performance.now() - t0);
    if (result.hits.length === PAGE) fullPages += 1;
    const t1 = performance.now();
    const exact = new Set(await exactTop10(db, q, year));
    exactTimes.push(performance.now() - t1);
    found += result.hits.filter((h) => exact.has(h.caseId)).length;
  }
  times.sort((a, b) => a - b);
  exactTimes.sort((a, b) => a - b);
  return {
    recallAt10: found / (queries.length * PAGE),
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    exactP50Ms: percentile(exactTimes, 50),
    fullPages,
  };
}

export async function vectorIndexAt(size: number, backend: VectorBackend, adminUrl?: string): Promise<IndexFigures> {
  if (backend === 'postgres' && adminUrl === undefined)
    throw new Error('the PostgreSQL vector bench needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const { db, drop } =
    backend === 'postgres' && adminUrl !== undefined
      ? await freshDatabase(adminUrl, 'bench_semantic')
      : await openBenchPglite().then(({ database, drop: dropPglite }) => ({ db: database.db, drop: dropPglite }));
  try {
    const clusters = Math.max(10, Math.round(size / 100));
    await sql`drop index case_chunks_use_lite_512_hnsw_idx`.execute(db);
    const generating = performance.now();
    await synthesise(db, size, clusters);
    const queries = await syntheticQueries(db, clusters);
    const generateSeconds = (performance.now() - generating) / 1000;

    const started = performance.now();
    await sql`set maintenance_work_mem = '1GB'`.execute(db);
    await sql`create index case_chunks_use_lite_512_hnsw_idx on case_chunks
      using hnsw ((embedding::vector(512)) vector_cosine_ops) where model = 'use-lite-512'`.execute(db);
    const buildSeconds = (performance.now() - started) / 1000;
    await sql`analyze case_chunks`.execute(db);

    const index = new PostgresVectorIndex(db, { model: 'use-lite-512', dimensions: DIMENSIONS });
    for (const q of queries.slice(0, 10)) await index.search({ vector: q, filters: {}, offset: 0, limit: PAGE });
    const unfiltered = await measure(db, index, queries, () => null);
    const filtered = await measure(db, index, queries, (i) => 1950 + (i % YEARS));
    return { backend, vectors: size, generateSeconds, buildSeconds, ...unfiltered, filtered };
  } finally {
    await drop();
  }
}

function printQuality(q: QualityFigures): void {
  console.log(
    `Semantic search quality: ${String(q.queries)} IN-Abs summaries as queries over ${String(q.cases)} real full-text judgments ` +
      `(IN-Abs 100 with their summaries nulled + Indian Kanoon 50); chunk cap ${String(q.chunkCap)} a case, ` +
      `${String(q.chunks)} chunks embedded in ${q.embedSeconds.toFixed(0)} s; ` +
      `vector queries (embed + search) ${q.vectorQuerySeconds.toFixed(0)} s, keyword queries ${q.keywordQuerySeconds.toFixed(0)} s`,
  );
  console.log(
    table([
      ['engine and query', 'recall@1', 'recall@10', 'queries with no hit'],
      ['local embedder (USE lite), whole summary', q.vector.at1, q.vector.at10, String(q.vector.empty)],
      ['keyword (PostgreSQL FTS), whole summary', q.keywordSummary.at1, q.keywordSummary.at10, String(q.keywordSummary.empty)],
      [
        'keyword (PostgreSQL FTS), first sentence',
        q.keywordFirstSentence.at1,
        q.keywordFirstSentence.at10,
        String(q.keywordFirstSentence.empty),
      ],
    ]),
  );
  console.log(
    "(keyword search requires every word of the query (websearch syntax, so an 'or' in a summary splits it into alternatives): a long query often matches nothing, hence the first-sentence row)",
  );
}

function print(f: SemanticFigures): void {
  if (f.quality !== null) printQuality(f.quality);
  console.log(
    `\nVector index, SYNTHETIC vectors (${String(DIMENSIONS)} dimensions, clusters of ~100), ${String(QUERIES)} queries, HNSW m=16 ef_construction=64, ef_search=100; filtered: each query under a one-year filter (about 1 in ${String(YEARS)} vectors)`,
  );
  console.log(
    table([
      [
        'engine',
        'vectors',
        'HNSW build s',
        'recall@10 vs exact',
        'p50 ms',
        'p99 ms',
        'exact scan p50 ms',
        'filtered recall@10',
        'filtered p50 ms',
        'filtered p99 ms',
        `filtered full pages of ${String(QUERIES)}`,
      ],
      ...f.index.map((i) => [
        i.backend,
        i.vectors,
        i.buildSeconds,
        i.recallAt10,
        i.p50Ms,
        i.p99Ms,
        i.exactP50Ms,
        i.filtered.recallAt10,
        i.filtered.p50Ms,
        i.filtered.p99Ms,
        i.filtered.fullPages,
      ]),
    ]),
  );
  console.log(
    '(1M vectors not run: 2 GB of raw 512-dimension floats before the graph exceeds what PGlite (32-bit WebAssembly) can hold, and the build would take far beyond the budget on 2 cores)',
  );
}

/** Measures and prints; returns the figures for callers that compare runs. */
export async function semanticBench(): Promise<SemanticFigures> {
  const chunkCap = Number(process.env.SEMANTIC_BENCH_CHUNKS ?? 8);
  const sizes = (process.env.SEMANTIC_BENCH_SIZES ?? '10000,100000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const backends = (process.env.SEMANTIC_BENCH_BACKENDS ?? (adminUrl === undefined ? 'pglite' : 'pglite,postgres'))
    .split(',')
    .map((b) => b.trim()) as VectorBackend[];
  const quality = process.env.SEMANTIC_BENCH_QUALITY === '0' ? null : await semanticQuality(chunkCap);
  const index: IndexFigures[] = [];
  for (const backend of backends) for (const size of sizes) index.push(await vectorIndexAt(size, backend, adminUrl));
  const figures = { quality, index };
  print(figures);
  return figures;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await semanticBench();
