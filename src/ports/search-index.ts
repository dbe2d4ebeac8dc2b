/**
 * The keyword search index port. Two adapters stand behind it (PostgreSQL full-text search,
 * the embedded default, and Meilisearch when MEILI_URL is set) and one contract test suite
 * runs against every adapter present. The index holds one document per case; a case
 * restricted under the removal policy stays in the index flagged `withheld`, so a search
 * can say that a matching record was left out (meta.someRecordsWithheld) without ever
 * returning it. Documents arrive with HTML entities decoded (the projector's mapping does
 * it), so adapters index text as given.
 */

/** What the index stores for one case: the fields search matches, filters and sorts on. */
export interface SearchDocument {
  readonly caseId: string;
  /** As printed by the source, e.g. "C.A. No.-001918-001918 - 2015". */
  readonly caseNumber: string;
  /** `normaliseCaseNumber(caseNumber)`: one searchable form of the number. */
  readonly caseNumberNormalised: string;
  /** eCourts CNR (16 characters, e.g. "GAHC010225502018") when the source gives one. */
  readonly cnr: string | null;
  /** Stored court code of the case row (e.g. "SC", an HC code). */
  readonly courtCode: string;
  readonly courtName: string;
  readonly caseType: string | null;
  readonly title: string | null;
  readonly petitioners: readonly string[];
  readonly respondents: readonly string[];
  /** Exact stored spellings; the judgeName filter matches these exactly. */
  readonly judges: readonly string[];
  /** YYYY-MM-DD or null. */
  readonly decisionDate: string | null;
  readonly decisionYear: number | null;
  /** Headnote or summary when the source has one. */
  readonly summary: string | null;
  /** Full judgment text when held; may be long (Meilisearch chunks it). */
  readonly text: string | null;
  /** Restricted or de-indexed: never returned, only counted as withheld. */
  readonly withheld: boolean;
}

/** Filters already resolved by the route: court codes, case-type codes, exact judge spellings. */
export interface SearchFilters {
  readonly courtCodes?: readonly string[];
  readonly years?: readonly number[];
  readonly caseTypes?: readonly string[];
  readonly judges?: readonly string[];
  /** Inclusive YYYY-MM-DD bounds on the decision date. */
  readonly fromDate?: string;
  readonly toDate?: string;
}

export type SearchSort = 'relevance' | 'recent' | 'oldest';

export interface SearchRequest {
  /** Trimmed, non-empty user text: words, party names or a case number in any printed form. */
  readonly query: string;
  readonly filters: SearchFilters;
  readonly sort: SearchSort;
  readonly offset: number;
  readonly limit: number;
}

export interface SearchHit {
  readonly caseId: string;
  /** Adapter-specific relevance, higher is better; only comparable within one response. */
  readonly score: number;
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  /** Matching documents that are not withheld. */
  readonly total: number;
  /** Whether at least one withheld document matched the query and filters. */
  readonly withheld: boolean;
}

export interface SearchIndex {
  readonly name: 'postgres' | 'meilisearch';
  /** Names this index's projector checkpoint: another index (a new uid, another engine) starts from zero. */
  readonly checkpointKey: string;
  /** How many cases the projector hands `upsert` at once: what one write costs differs by engine. */
  readonly writeBatchSize: number;
  search(request: SearchRequest): Promise<SearchResult>;
  /** Inserts or replaces documents by caseId; durable when the promise resolves. */
  upsert(documents: readonly SearchDocument[]): Promise<void>;
  /** Drops documents entirely (a case gone from the store). Unknown ids are ignored. */
  remove(caseIds: readonly string[]): Promise<void>;
  /** Resolves when the index answers; rejects otherwise (health checks). */
  ping(): Promise<void>;
}

/**
 * An index held apart from the case store (Meilisearch) that can be rebuilt beside itself:
 * a shadow is filled while this one keeps serving, then swapped in whole. PostgreSQL's
 * index is a table the case store's own transactions keep, so it has no such step.
 */
export interface ReindexableSearchIndex extends SearchIndex {
  /** A new, empty index with the latest settings; searches keep going to this one. */
  createShadow(): Promise<SearchIndex>;
  /** Atomically puts the shadow's documents in place of this index's, then drops the old ones. */
  swapIn(shadow: SearchIndex): Promise<void>;
}

/** Filters of a party-name retrieval: the litigation check's court and `since`, already resolved. */
export interface PartySearchFilters {
  readonly courtCodes?: readonly string[];
  /**
   * YYYY-MM-DD: keeps cases decided on or after it and cases with no decision date (the
   * index holds no filing date; the caller applies the full rule to what it loads).
   */
  readonly decidedOnOrAfter?: string;
}

export interface PartySearchRequest {
  /** One screened name as the caller wrote it; the adapter normalises it as it normalises party names. */
  readonly name: string;
  readonly filters: PartySearchFilters;
  /** At most this many hits, best first. */
  readonly limit: number;
}

export interface PartyHit {
  readonly caseId: string;
  /** Adapter-specific closeness of the name to the case's party names, higher is better; only comparable within one response. */
  readonly score: number;
}

export interface PartySearchResult {
  readonly hits: readonly PartyHit[];
  /**
   * True when `hits` holds every document that is not withheld and that the adapter's
   * party-name predicate admits under the filters (fewer matched than the limit); false
   * when more matched and the rest were cut.
   */
  readonly complete: boolean;
  /** Whether at least one withheld document matched the name and filters. */
  readonly withheld: boolean;
}

export interface PartySearchIndex {
  /**
   * Cases whose party names (petitioners and respondents) match `name`: every word of it
   * among the party names (on PostgreSQL a single letter counts as an initial, a word
   * prefix), or close in spelling (trigram similarity on PostgreSQL, typo tolerance on
   * Meilisearch). Best first, ties by caseId, so the same call gives the same page.
   */
  searchParties(request: PartySearchRequest): Promise<PartySearchResult>;
}
