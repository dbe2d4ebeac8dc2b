/**
 * One page of search as one priced call, for both search routes: the page window decided
 * before any work (page-window.ts; a searchAfter cursor is decoded against the search it
 * was issued for), the search run and charged through Admission, and an index that did
 * not answer turned into a refusal after Admission has undone the call, so nothing is
 * charged. The routes only parse, call and render.
 */
import { VECTOR_SEARCH_MAX_DEPTH } from '../../ports/vector-index.ts';
import type { SearchSort } from '../../ports/search-index.ts';
import type { SearchCursors } from '../../ports/search-cursors.ts';
import type { Admission, AdmissionResult, FixedPriceCall, Payer } from '../admission/admission.ts';
import { searchPageEarns } from '../admission/decision.ts';
import { SearchIndexUnavailable, type KeywordResults, type KeywordSearch } from './keyword-search.ts';
import { nextOffset, pageWindow, pagination, type PageRules, type Pagination } from './page-window.ts';
import type { ResolvedFilters } from './search-filters.ts';
import type { ResolvedSemanticFilters } from './semantic-filters.ts';
import type { SemanticResults, SemanticSearch } from './semantic-search.ts';

export const KEYWORD_PAGES: PageRules = {
  search: 'keyword',
  defaultLimit: 20,
  maxLimit: 100,
  oversize: 'refuse',
  indexDepth: Number.POSITIVE_INFINITY,
};

/** A semantic page's limit is capped, never refused, and no page reaches past the vector index's bound. */
export const SEMANTIC_PAGES: PageRules = {
  search: 'semantic',
  defaultLimit: 20,
  maxLimit: 100,
  oversize: 'cap',
  indexDepth: VECTOR_SEARCH_MAX_DEPTH,
};

export interface SearchPagesDeps {
  readonly admission: Pick<Admission, 'run'>;
  readonly cursors: SearchCursors;
  readonly keyword: KeywordSearch;
  readonly semantic: SemanticSearch;
}

interface PageCall {
  readonly payer: Payer;
  /** The server's id of this call: the charge is keyed by it. */
  readonly callId: string;
  readonly query: string;
  readonly page?: number;
  readonly limit?: number;
}

export interface KeywordPageCall extends PageCall {
  readonly resolved: ResolvedFilters;
  readonly sort: SearchSort;
  readonly searchAfter?: string;
}

export interface SemanticPageCall extends PageCall {
  readonly filters: ResolvedSemanticFilters;
}

export interface KeywordPage {
  readonly results: KeywordResults;
  readonly pagination: Pagination & { readonly nextCursor: string | null };
}

export interface SemanticPage {
  readonly results: SemanticResults;
  readonly pagination: Pagination;
}

export class SearchPages {
  constructor(private readonly deps: SearchPagesDeps) {}

  async keyword(call: KeywordPageCall): Promise<AdmissionResult<KeywordPage>> {
    const { caseNumber: _inert, ...applied } = call.resolved.applied;
    // A cursor is bound to what decides the order of results: the query, the applied filters and the sort.
    const scope = { query: call.query, filters: applied, sort: call.sort };
    const cursor = call.searchAfter === undefined ? undefined : await this.deps.cursors.decode(call.searchAfter, scope);
    const decided = pageWindow({ limit: call.limit, page: call.page, cursor }, KEYWORD_PAGES, call.payer.limits);
    if (!decided.ok) return decided;
    const window = decided.value;
    const result = await this.#run('keyword', {
      payer: call.payer,
      callId: call.callId,
      endpoint: 'keywordSearch',
      work: () =>
        this.deps.keyword.search({
          query: call.query,
          resolved: call.resolved,
          sort: call.sort,
          offset: window.offset,
          limit: window.limit,
        }),
      earned: (results) => searchPageEarns(results, 'keywordSearch'),
    });
    if (!result.ok) return result;
    const { value: results } = result;
    const hasMore = window.offset + window.limit < results.total;
    const next = nextOffset(window, hasMore);
    const nextCursor = next === null ? null : await this.deps.cursors.encode({ offset: next }, scope);
    return { ...result, value: { results, pagination: { ...pagination(window, results.total, hasMore), nextCursor } } };
  }

  async semantic(call: SemanticPageCall): Promise<AdmissionResult<SemanticPage>> {
    const decided = pageWindow({ limit: call.limit, page: call.page }, SEMANTIC_PAGES, call.payer.limits);
    if (!decided.ok) return decided;
    const window = decided.value;
    const result = await this.#run('semantic', {
      payer: call.payer,
      callId: call.callId,
      endpoint: 'semanticSearch',
      work: () => this.deps.semantic.search({ query: call.query, filters: call.filters, offset: window.offset, limit: window.limit }),
      // Keyword fallback results earn the keyword price.
      earned: (results) => searchPageEarns(results, results.mode === 'keyword' ? 'keywordSearch' : 'semanticSearch'),
    });
    if (!result.ok) return result;
    const { value: results } = result;
    // Until the vector index is exhausted its total is an estimate: a full page says there may be more.
    const hasMore = results.exact ? window.offset + results.cases.length < results.total : results.cases.length === window.limit;
    return { ...result, value: { results, pagination: pagination(window, results.total, hasMore) } };
  }

  /** The call through Admission, which undoes it when the search throws; an index that did not answer is then a refusal. */
  async #run<T>(search: 'keyword' | 'semantic', call: FixedPriceCall<T>): Promise<AdmissionResult<T>> {
    try {
      return await this.deps.admission.run(call);
    } catch (error) {
      if (error instanceof SearchIndexUnavailable)
        return { ok: false, refusal: { tag: 'SearchIndexUnavailable', search, cause: error.cause } };
      throw error;
    }
  }
}
