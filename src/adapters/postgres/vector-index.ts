/**
 * The VectorIndex port over pgvector (PGlite's bundled pgvector 0.8, or PostgreSQL with
 * the extension). Chunks nearest the query by cosine distance are read from the HNSW index
 * of the configured model with the filters in the same scan: pgvector 0.8's iterative
 * index scan (`hnsw.iterative_scan = relaxed_order`, set per transaction) keeps walking the
 * graph until enough chunks pass the filters, instead of filtering a fixed top-k down to a
 * short page. Chunks are grouped into cases by their best chunk. When the scan runs dry
 * before a page is full (the filters match few chunks, or the walk hit
 * `hnsw.max_scan_tuples`), the few matching chunks are ranked exactly instead, which also
 * makes `total` exact. Otherwise `total` counts the distinct cases seen so far: at least
 * one more than the page reaches, so a client always sees there is a next page.
 *
 * Each model has its own partial HNSW index over the column cast to its dimension; the
 * model name and dimension are written into the SQL as literals (validated here) so the
 * planner can match that partial index.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { VectorFilters, VectorHit, VectorIndex, VectorQuery, VectorResult } from '../../ports/vector-index.ts';

export interface PostgresVectorIndexOptions {
  readonly model: string;
  readonly dimensions: number;
  /** Graph tuples one iterative scan may visit before it gives up (pgvector default 20,000). */
  readonly maxScanTuples?: number;
  /** Candidate list size of the HNSW search (pgvector default 40). */
  readonly efSearch?: number;
  /**
   * 'hnsw' keeps the planner off sequential and bitmap scans, so the HNSW index is used
   * even where a scan would be cheaper (small tables, selective filters): benchmarks and
   * the tests that prove the iterative scan fills pages. Default 'auto'.
   */
  readonly scan?: 'auto' | 'hnsw';
}

/** Chunks read per case still wanted, on the first try; grows fourfold while short. */
const CHUNKS_PER_CASE = 4;
const MAX_CANDIDATES = 20_000;
const MODEL_NAME = /^[A-Za-z0-9._:/-]{1,100}$/;
/** pgvector's HNSW limit for `vector`. */
const MAX_HNSW_DIMENSIONS = 2000;

interface Candidate {
  readonly caseId: string;
  readonly withheld: boolean;
  readonly distance: number;
}

/** The index name for a model: the default model's is the one the migration creates. */
export function hnswIndexName(model: string, dimensions: number): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 40);
  return model === 'use-lite-512' && dimensions === 512
    ? 'case_chunks_use_lite_512_hnsw_idx'
    : `case_chunks_${slug}_${String(dimensions)}_hnsw_idx`;
}

/** Best chunk per case, nearest first; a case is withheld if any of its chunks says so. */
function byCase(chunks: readonly Candidate[]): Candidate[] {
  const best = new Map<string, Candidate>();
  for (const c of chunks) {
    const seen = best.get(c.caseId);
    if (!seen || c.distance < seen.distance) best.set(c.caseId, { ...c, withheld: c.withheld || (seen?.withheld ?? false) });
  }
  return [...best.values()].sort((a, b) => a.distance - b.distance || (a.caseId < b.caseId ? -1 : 1));
}

export class PostgresVectorIndex implements VectorIndex {
  readonly #model: RawBuilder<unknown>;
  readonly #vectorType: RawBuilder<unknown>;

  constructor(
    private readonly db: Db,
    private readonly options: PostgresVectorIndexOptions,
  ) {
    if (!MODEL_NAME.test(options.model)) throw new Error(`embedding model name not usable in the index: ${options.model}`);
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1 || options.dimensions > MAX_HNSW_DIMENSIONS) {
      throw new Error(`embedding dimensions must be an integer from 1 to ${String(MAX_HNSW_DIMENSIONS)}`);
    }
    this.#model = sql.lit(options.model);
    this.#vectorType = sql.raw(`vector(${String(options.dimensions)})`);
  }

  /** Creates the model's partial HNSW index when missing (a model other than the default). */
  async prepare(): Promise<void> {
    const name = sql.id(hnswIndexName(this.options.model, this.options.dimensions));
    await sql`create index if not exists ${name} on case_chunks using hnsw ((embedding::${this.#vectorType}) vector_cosine_ops)
      where model = ${this.#model}`.execute(this.db);
  }

  async ping(): Promise<void> {
    await sql`select 1 from case_chunks limit 1`.execute(this.db);
  }

  async search(query: VectorQuery): Promise<VectorResult> {
    if (query.vector.length !== this.options.dimensions) {
      throw new Error(`query vector has ${String(query.vector.length)} dimensions, the index ${String(this.options.dimensions)}`);
    }
    const wanted = query.offset + query.limit + 1;
    const vector = `[${query.vector.join(',')}]`;
    for (let k = wanted * CHUNKS_PER_CASE; k <= MAX_CANDIDATES * 4; k *= 4) {
      const limit = Math.min(k, MAX_CANDIDATES);
      const chunks = await this.#nearest(vector, query.filters, limit);
      const cases = byCase(chunks);
      const visible = cases.filter((c) => !c.withheld);
      if (visible.length >= wanted) return this.#page(cases, query, false);
      if (chunks.length < limit || limit === MAX_CANDIDATES) break;
    }
    return this.#page(await this.#exact(vector, query.filters), query, true);
  }

  #page(cases: readonly Candidate[], query: VectorQuery, exhausted: boolean): VectorResult {
    const visible = cases.filter((c) => !c.withheld);
    const page = visible.slice(query.offset, query.offset + query.limit);
    const last = page.at(-1);
    const reach = last === undefined ? (exhausted ? Infinity : -Infinity) : last.distance;
    const hits: VectorHit[] = page.map((c) => ({ caseId: c.caseId, similarity: 1 - c.distance }));
    return {
      hits,
      total: exhausted ? visible.length : Math.max(visible.length, query.offset + hits.length + 1),
      exhausted,
      withheld: cases.some((c) => c.withheld && c.distance <= reach),
    };
  }

  /** Nearest chunks through the HNSW index, filters inside the iterative scan. */
  async #nearest(vector: string, filters: VectorFilters, limit: number): Promise<Candidate[]> {
    const distance = sql<number>`(embedding::${this.#vectorType}) <=> ${vector}::${this.#vectorType}`;
    return this.db.transaction().execute(async (trx) => {
      await sql`set local hnsw.iterative_scan = relaxed_order`.execute(trx);
      await sql.raw(`set local hnsw.max_scan_tuples = ${String(this.options.maxScanTuples ?? 20_000)}`).execute(trx);
      await sql.raw(`set local hnsw.ef_search = ${String(this.options.efSearch ?? 100)}`).execute(trx);
      if (this.options.scan === 'hnsw') {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_bitmapscan = off`.execute(trx);
      }
      const rows = await sql<Candidate>`select case_id, withheld, ${distance} as distance from case_chunks
        where ${this.#where(filters)} order by ${distance} limit ${limit}`.execute(trx);
      return rows.rows;
    });
  }

  /** Every matching case ranked exactly by its best chunk: used only when matches are few. */
  async #exact(vector: string, filters: VectorFilters): Promise<Candidate[]> {
    const distance = sql<number>`(embedding::${this.#vectorType}) <=> ${vector}::${this.#vectorType}`;
    const rows = await sql<Candidate>`select case_id, bool_or(withheld) as withheld, min(${distance}) as distance
      from case_chunks where ${this.#where(filters)} group by case_id order by distance, case_id`.execute(this.db);
    return rows.rows;
  }

  #where(f: VectorFilters): RawBuilder<boolean> {
    const parts: RawBuilder<boolean>[] = [sql<boolean>`model = ${this.#model}`];
    if (f.courtCodes?.length) parts.push(sql<boolean>`court_code = any(${[...f.courtCodes]}::text[])`);
    if (f.caseTypes?.length) parts.push(sql<boolean>`case_type = any(${[...f.caseTypes]}::text[])`);
    if (f.judges?.length) parts.push(sql<boolean>`judges && ${[...f.judges]}::text[]`);
    if (f.years?.length) parts.push(sql<boolean>`decision_year = any(${[...f.years]}::int[])`);
    if (f.caseNumbers?.length) parts.push(sql<boolean>`case_number_key = any(${[...f.caseNumbers]}::text[])`);
    if (f.fromDate !== undefined) parts.push(sql<boolean>`decision_date >= ${f.fromDate}::date`);
    if (f.toDate !== undefined) parts.push(sql<boolean>`decision_date <= ${f.toDate}::date`);
    return sql<boolean>`${sql.join(parts, sql` and `)}`;
  }
}

/** Whether the vector table exists: the migration skips it on a PostgreSQL without pgvector. */
export async function vectorStoreAvailable(db: Db): Promise<boolean> {
  const row = await sql<{ present: boolean }>`select to_regclass('case_chunks') is not null as present`.execute(db);
  return row.rows[0]?.present === true;
}
