/**
 * Keyword search over the full corpus: maps court filters onto the court codes the store
 * holds, asks the search index for one page of hits, then loads their listings through the
 * restricted-record check (restriction-screen.ts). A hit restricted after the index was
 * last fed is left out and reported as withheld, like the withheld matches the index
 * itself counts, so a restricted case never appears in results; if the check cannot be
 * made, the page comes back masked and says so. Any other failure (the index, the court
 * codes, the store) is SearchIndexUnavailable: the search did not answer, so it earns nothing.
 */
import type { SearchIndex, SearchRequest, SearchSort } from '../../ports/search-index.ts';
import type { CaseListing } from '../cases/case-reader.ts';
import type { CourtCodes } from './court-codes.ts';
import type { RestrictionScreen } from './restriction-screen.ts';
import type { ResolvedFilters } from './search-filters.ts';

export interface KeywordSearchDeps {
  readonly index: SearchIndex;
  readonly screen: RestrictionScreen;
  readonly courts: CourtCodes;
}

export interface KeywordQuery {
  readonly query: string;
  readonly resolved: ResolvedFilters;
  readonly sort: SearchSort;
  readonly offset: number;
  readonly limit: number;
}

export interface KeywordResults {
  readonly cases: readonly (CaseListing & { readonly score: number })[];
  readonly total: number;
  readonly withheld: boolean;
  /** The restricted-record check failed: every listing is masked. */
  readonly restrictedCheckDegraded: boolean;
}

/** The search could not be answered; `cause` says why, for the log. */
export class SearchIndexUnavailable extends Error {
  override readonly name = 'SearchIndexUnavailable';
}

export class KeywordSearch {
  constructor(private readonly deps: KeywordSearchDeps) {}

  async search(q: KeywordQuery): Promise<KeywordResults> {
    try {
      return await this.#search(q);
    } catch (error) {
      throw new SearchIndexUnavailable('the keyword search did not answer', { cause: error });
    }
  }

  async #search(q: KeywordQuery): Promise<KeywordResults> {
    const courtCodes = q.resolved.courtIds === undefined ? undefined : await this.deps.courts.codesFor(q.resolved.courtIds);
    // A court the store holds nothing for matches nothing; no index call needed.
    if (courtCodes !== undefined && courtCodes.length === 0)
      return { cases: [], total: 0, withheld: false, restrictedCheckDegraded: false };
    const request: SearchRequest = {
      query: q.query,
      filters: { ...q.resolved.filters, ...(courtCodes ? { courtCodes } : {}) },
      sort: q.sort,
      offset: q.offset,
      limit: q.limit,
    };
    const result = await this.deps.index.search(request);
    const page = await this.deps.screen.page(result.hits.map((h) => h.caseId));
    const scores = new Map(result.hits.map((h) => [h.caseId, h.score]));
    return {
      cases: page.cases.map((c) => ({ ...c, score: scores.get(c.caseId) ?? 0 })),
      total: Math.max(0, result.total - page.withheld),
      withheld: result.withheld || page.withheld > 0,
      restrictedCheckDegraded: page.degraded,
    };
  }
}
