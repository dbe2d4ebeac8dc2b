/**
 * The semantic (vector) index port: cases found by the nearest chunk of their text to a
 * query vector, with filters applied inside the index scan so a page is full whenever that
 * many cases match. A restricted case stays in the index flagged withheld and is never
 * returned, only reported (meta.someRecordsWithheld).
 *
 * Depth is bounded: an approximate index answers the nearest few thousand passages in
 * bounded work, but ranking "results 9,901 to 10,000" means ranking everything before
 * them, which on a large index is a scan of every chunk. So no search may reach past
 * VECTOR_SEARCH_MAX_DEPTH; callers refuse deeper pages before any work.
 */

/** The deepest result (offset + limit) a vector search serves. */
export const VECTOR_SEARCH_MAX_DEPTH = 1_000;
export interface VectorFilters {
  /** Stored court codes of the case rows. */
  readonly courtCodes?: readonly string[];
  readonly caseTypes?: readonly string[];
  /** Exact stored judge spellings; a case matches when any is on its bench. */
  readonly judges?: readonly string[];
  readonly years?: readonly number[];
  /** Normalised case-number keys (normaliseCaseNumber). */
  readonly caseNumbers?: readonly string[];
  /** Inclusive YYYY-MM-DD bounds on the decision date. */
  readonly fromDate?: string;
  readonly toDate?: string;
}

export interface VectorQuery {
  readonly vector: readonly number[];
  readonly filters: VectorFilters;
  readonly offset: number;
  readonly limit: number;
}

export interface VectorHit {
  readonly caseId: string;
  /** Cosine similarity of the case's best chunk, in [-1, 1]; higher is closer. */
  readonly similarity: number;
}

export interface VectorResult {
  readonly hits: readonly VectorHit[];
  /**
   * Matching cases as far as known: a conservative estimate (at least offset + hits) that
   * is exact when `exhausted`.
   */
  readonly total: number;
  /** No further matches within the search's reach exist past this page. */
  readonly exhausted: boolean;
  /** A withheld (restricted) case was among the nearest matches and was left out. */
  readonly withheld: boolean;
}

export interface VectorIndex {
  /** Rejects a query reaching past VECTOR_SEARCH_MAX_DEPTH (a RangeError) without touching the index. */
  search(query: VectorQuery): Promise<VectorResult>;
  /** Resolves when the index answers (health checks). */
  ping(): Promise<void>;
}
