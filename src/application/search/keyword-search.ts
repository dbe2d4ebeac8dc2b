/**
 * Keyword search over the full corpus: maps court filters onto the court codes the store
 * holds, asks the search index for one page of hits, then loads those cases from the case
 * store, the authority on restriction. A hit the store no longer shows (restricted after
 * the index was last fed) is left out and reported as withheld, like the withheld matches
 * the index itself counts, so a restricted case never appears in results.
 */
import type { SearchIndex, SearchRequest, SearchSort } from '../../ports/search-index.ts';
import type { Clock } from '../../ports/clock.ts';
import { resolveCourt } from '../../reference/reference-data.ts';
import type { CaseReader, CaseView } from '../cases/case-reader.ts';
import type { ResolvedFilters } from './search-filters.ts';

export interface KeywordSearchDeps {
  readonly index: SearchIndex;
  readonly cases: CaseReader;
  readonly clock: Clock;
  /** How long the court-code map is reused before it is read again (ingest adds courts). */
  readonly courtMapTtlMs?: number;
}

export interface KeywordQuery {
  readonly query: string;
  readonly resolved: ResolvedFilters;
  readonly sort: SearchSort;
  readonly offset: number;
  readonly limit: number;
}

export interface KeywordResults {
  readonly cases: readonly (CaseView & { readonly score: number })[];
  readonly total: number;
  readonly withheld: boolean;
}

const DEFAULT_COURT_MAP_TTL_MS = 5 * 60_000;

export class KeywordSearch {
  #courtCodes: { map: Map<string, string[]>; at: number } | undefined;

  constructor(private readonly deps: KeywordSearchDeps) {}

  async search(q: KeywordQuery): Promise<KeywordResults> {
    const courtCodes = q.resolved.courtIds === undefined ? undefined : await this.#codesFor(q.resolved.courtIds);
    // A court the store holds nothing for matches nothing; no index call needed.
    if (courtCodes !== undefined && courtCodes.length === 0) return { cases: [], total: 0, withheld: false };
    const request: SearchRequest = {
      query: q.query,
      filters: { ...q.resolved.filters, ...(courtCodes ? { courtCodes } : {}) },
      sort: q.sort,
      offset: q.offset,
      limit: q.limit,
    };
    const result = await this.deps.index.search(request);
    const loaded = await this.deps.cases.byIds(result.hits.map((h) => h.caseId));
    const scores = new Map(result.hits.map((h) => [h.caseId, h.score]));
    return {
      cases: loaded.cases.map((c) => ({ ...c, score: scores.get(c.caseId) ?? 0 })),
      total: Math.max(0, result.total - loaded.withheld),
      withheld: result.withheld || loaded.withheld > 0,
    };
  }

  async #codesFor(courtIds: readonly string[]): Promise<string[]> {
    const now = this.deps.clock.now().getTime();
    if (!this.#courtCodes || now - this.#courtCodes.at > (this.deps.courtMapTtlMs ?? DEFAULT_COURT_MAP_TTL_MS)) {
      const map = new Map<string, string[]>();
      for (const { courtCode, courtName } of await this.deps.cases.storedCourts()) {
        const id = resolveCourt(courtName)?.id;
        if (id !== undefined) map.set(id, [...(map.get(id) ?? []), courtCode]);
      }
      this.#courtCodes = { map, at: now };
    }
    const map = this.#courtCodes.map;
    return [...new Set(courtIds.flatMap((id) => map.get(id) ?? []))];
  }
}
