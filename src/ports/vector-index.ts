/**
 * The semantic (vector) index port: cases found by the nearest chunk of their text to a
 * query vector, with filters applied inside the index scan so a page is full whenever that
 * many cases match. A restricted case stays in the index flagged withheld and is never
 * returned, only reported (meta.someRecordsWithheld).
 */
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
  /** No further matches exist past this page. */
  readonly exhausted: boolean;
  /** A withheld (restricted) case was among the nearest matches and was left out. */
  readonly withheld: boolean;
}

export interface VectorIndex {
  search(query: VectorQuery): Promise<VectorResult>;
  /** Resolves when the index answers (health checks). */
  ping(): Promise<void>;
}
