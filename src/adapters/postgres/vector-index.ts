/**
 * The VectorIndex port over pgvector (PGlite's bundled pgvector 0.8, or PostgreSQL with
 * the extension). Chunks nearest the query by cosine distance are read from the HNSW index
 * of the configured model with the filters in the same scan: pgvector 0.8's iterative
 * index scan (`hnsw.iterative_scan = relaxed_order`, set per transaction) keeps walking the
 * graph until enough chunks pass the filters, instead of filtering a fixed top-k down to a
 * short page. Chunks are grouped into cases by their best chunk.
 *
 * Every search is bounded, whatever the table's size, because a caller chooses the page:
 * - depth: offset + limit may not pass VECTOR_SEARCH_MAX_DEPTH (refused before any SQL);
 * - candidates: at most two walks, the second asking for MAX_CANDIDATES chunks;
 * - the walk itself: `hnsw.max_scan_tuples` caps the graph tuples one walk may visit;
 * - the plan: sorts, sequential and bitmap scans are off in the walk's transaction, so the
 *   planner takes the HNSW index, the only plan that yields chunks in distance order. Any
 *   other plan reads and sorts every matching chunk, unbounded; yet the planner picks one
 *   (a full scan, or a btree on a filter column and a sort) when its statistics say few
 *   chunks match or the LIMIT is large, as PostgreSQL's do once autovacuum has analysed
 *   the table.
 * When a walk comes back short (the filters match few chunks, or the walk reached its
 * bound), the search's reach ends there: the page holds what was found and `total` is
 * exact for that reach. Nothing ranks the whole table: there is no exact-scan fallback.
 * Two rankings are exact, each over a bounded set read through a btree or GIN index:
 * - by case number: a handful of cases, whose chunks the walk might never reach however
 *   near they are;
 * - under a selective filter on an indexed column (court, year, judge, date): when at most
 *   `exactFilteredMax` chunks pass it (counted first, through those indexes), all of them
 *   are ranked. A walk would visit some hundred graph tuples for each chunk kept by a filter
 *   keeping one in a hundred (measured: 53 ms p50 for a one-year filter at 100k vectors),
 *   while ranking a few thousand chunks exactly takes a few milliseconds.
 *
 * Each model has its own partial HNSW index over the column cast to its dimension; the
 * model name and dimension are written into the SQL as literals (validated here) so the
 * planner can match that partial index.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import {
  VECTOR_SEARCH_MAX_DEPTH,
  type VectorFilters,
  type VectorHit,
  type VectorIndex,
  type VectorQuery,
  type VectorResult,
} from '../../ports/vector-index.ts';

export interface PostgresVectorIndexOptions {
  readonly model: string;
  readonly dimensions: number;
  /** Graph tuples one iterative scan may visit before it gives up (default MAX_SCAN_TUPLES). */
  readonly maxScanTuples?: number;
  /** Candidate list size of the HNSW search (pgvector default 40; ours 100). */
  readonly efSearch?: number;
  /** Most chunks a filter may keep to be ranked exactly instead of walked (default EXACT_FILTERED_MAX; 0: always walk). */
  readonly exactFilteredMax?: number;
}

/** Chunks read per case wanted, on the first walk. */
const CHUNKS_PER_CASE = 4;
/**
 * Chunks the second (last) walk asks for: enough for the deepest page when cases average
 * up to 20 chunks among the nearest, which a case rarely exceeds (its chunks differ).
 */
const MAX_CANDIDATES = 20_000;
/** Chunks a filter may keep for an exact ranking: a few milliseconds of distances, well under one walk's cost. */
const EXACT_FILTERED_MAX = 5_000;
/** Twice the candidates: room for the filters to reject half of what the walk visits. */
const MAX_SCAN_TUPLES = 2 * MAX_CANDIDATES;
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
    if (query.offset + query.limit > VECTOR_SEARCH_MAX_DEPTH) {
      throw new RangeError(`a vector search reaches at most ${String(VECTOR_SEARCH_MAX_DEPTH)} results deep`);
    }
    const wanted = query.offset + query.limit + 1;
    const vector = `[${query.vector.join(',')}]`;
    if (query.filters.caseNumbers?.length) return this.#page(await this.#exactly(vector, query.filters), query);
    const few = await this.#exactlyIfFew(vector, query.filters);
    if (few !== null) return this.#page(few, query);
    const first = Math.min(wanted * CHUNKS_PER_CASE, MAX_CANDIDATES);
    const chunks = await this.#nearest(vector, query.filters, first);
    const cases = byCase(chunks);
    // A full first walk whose chunks fall in too few cases walks once more, as far as allowed.
    // (A short one ran out of matches or reached its bound: walking again finds no more.)
    const full = chunks.length === first && first < MAX_CANDIDATES;
    if (full && cases.filter((c) => !c.withheld).length < wanted) {
      return this.#page(byCase(await this.#nearest(vector, query.filters, MAX_CANDIDATES)), query);
    }
    return this.#page(cases, query);
  }

  /** One page of the cases found; fewer found than the page needs means the reach ended. */
  #page(cases: readonly Candidate[], query: VectorQuery): VectorResult {
    const visible = cases.filter((c) => !c.withheld);
    const exhausted = visible.length <= query.offset + query.limit;
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
      // set_config(..., true) is SET LOCAL: the walk's settings, in one round trip.
      await sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true),
        set_config('hnsw.max_scan_tuples', ${String(this.options.maxScanTuples ?? MAX_SCAN_TUPLES)}, true),
        set_config('hnsw.ef_search', ${String(this.options.efSearch ?? 100)}, true),
        set_config('enable_sort', 'off', true), set_config('enable_seqscan', 'off', true),
        set_config('enable_bitmapscan', 'off', true)`.execute(trx);
      const rows = await sql<Candidate>`select case_id, withheld, ${distance} as distance from case_chunks
        where ${this.#where(filters)} order by ${distance} limit ${limit}`.execute(trx);
      return rows.rows;
    });
  }

  /**
   * The chunks under the filters ranked exactly when they number at most `exactFilteredMax`,
   * counted first through the btree and GIN indexes of the filtered columns (no vectors
   * read), in the same transaction; null when more pass (the graph is walked instead). Only
   * a filter on an indexed column can be counted that way; one on case types alone is walked.
   */
  async #exactlyIfFew(vector: string, f: VectorFilters): Promise<Candidate[] | null> {
    const max = this.options.exactFilteredMax ?? EXACT_FILTERED_MAX;
    const indexed =
      Boolean(f.courtCodes?.length || f.years?.length || f.judges?.length) || f.fromDate !== undefined || f.toDate !== undefined;
    if (max === 0 || !indexed) return null;
    return this.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const counted = await sql<{ n: number }>`select count(*)::int as n from (select 1 from case_chunks
        where ${this.#where(f)} limit ${max + 1}) kept`.execute(trx);
      return (counted.rows[0]?.n ?? 0) <= max ? this.#ranked(trx, vector, f) : null;
    });
  }

  /** The chunks of the named cases ranked exactly: a handful of cases, read through the case-number index. */
  async #exactly(vector: string, filters: VectorFilters): Promise<Candidate[]> {
    return this.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      return this.#ranked(trx, vector, filters);
    });
  }

  /**
   * Every chunk under the filters ranked exactly, each case by its best chunk, read through
   * the filtered columns' indexes (the caller has turned sequential scans off, as in the
   * walk). Only for a bounded set: named case numbers, or a filter counted as few.
   */
  async #ranked(trx: Trx, vector: string, filters: VectorFilters): Promise<Candidate[]> {
    const distance = sql<number>`(embedding::${this.#vectorType}) <=> ${vector}::${this.#vectorType}`;
    const rows = await sql<Candidate>`select case_id, bool_or(withheld) as withheld, min(${distance}) as distance
      from case_chunks where ${this.#where(filters)} group by case_id order by distance, case_id`.execute(trx);
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
