/**
 * Semantic search: embeds the query, asks the vector index for the cases whose best chunk
 * is nearest, then loads their listings through the restricted-record check, as keyword
 * search does. When the vector path fails (the embedder or the vector index is down),
 * it answers from the keyword index instead and says so: the caller gets results, marked
 * as a fallback, rather than an error. Only when both fail does the call fail, with the
 * fallback's SearchIndexUnavailable.
 */
import type { Embedder } from '../../ports/embedder.ts';
import type { VectorFilters, VectorIndex } from '../../ports/vector-index.ts';
import type { CaseListing } from '../cases/case-reader.ts';
import type { CourtCodes } from './court-codes.ts';
import type { KeywordSearch } from './keyword-search.ts';
import type { RestrictionScreen } from './restriction-screen.ts';
import type { ResolvedSemanticFilters } from './semantic-filters.ts';

export interface SemanticSearchDeps {
  readonly embedder: Embedder;
  readonly vectors: VectorIndex;
  readonly keyword: KeywordSearch;
  readonly screen: RestrictionScreen;
  readonly courts: CourtCodes;
  readonly onVectorFailure: (error: unknown) => void;
}

export interface SemanticQuery {
  readonly query: string;
  readonly filters: ResolvedSemanticFilters;
  readonly offset: number;
  readonly limit: number;
}

export interface SemanticResults {
  /** 'vector', or 'keyword' when the vector path failed and the keyword index answered. */
  readonly mode: 'vector' | 'keyword';
  /** similarity is null on a keyword fallback: keyword scores are not similarities. */
  readonly cases: readonly (CaseListing & { readonly similarity: number | null })[];
  readonly total: number;
  /** Whether `total` is exact (else a conservative estimate). */
  readonly exact: boolean;
  readonly withheld: boolean;
  /** The restricted-record check failed: every listing is masked. */
  readonly restrictedCheckDegraded: boolean;
}

export class SemanticSearch {
  constructor(private readonly deps: SemanticSearchDeps) {}

  async search(q: SemanticQuery): Promise<SemanticResults> {
    try {
      return await this.#vector(q);
    } catch (error) {
      this.deps.onVectorFailure(error);
      return this.#keyword(q);
    }
  }

  async #vector(q: SemanticQuery): Promise<SemanticResults> {
    const { resolved, caseNumbers } = q.filters;
    const courtCodes = resolved.courtIds === undefined ? undefined : await this.deps.courts.codesFor(resolved.courtIds);
    if (courtCodes !== undefined && courtCodes.length === 0) {
      return { mode: 'vector', cases: [], total: 0, exact: true, withheld: false, restrictedCheckDegraded: false };
    }
    const [vector] = await this.deps.embedder.embed([q.query]);
    if (!vector) throw new Error('the embedder returned no vector for the query');
    const f = resolved.filters;
    const filters: VectorFilters = {
      ...(courtCodes ? { courtCodes } : {}),
      ...(f.caseTypes ? { caseTypes: f.caseTypes } : {}),
      ...(f.judges ? { judges: f.judges } : {}),
      ...(f.years ? { years: f.years } : {}),
      ...(caseNumbers ? { caseNumbers } : {}),
      ...(f.fromDate ? { fromDate: f.fromDate } : {}),
      ...(f.toDate ? { toDate: f.toDate } : {}),
    };
    const result = await this.deps.vectors.search({ vector, filters, offset: q.offset, limit: q.limit });
    const page = await this.deps.screen.page(result.hits.map((h) => h.caseId));
    const similarity = new Map(result.hits.map((h) => [h.caseId, h.similarity]));
    return {
      mode: 'vector',
      cases: page.cases.map((c) => ({ ...c, similarity: similarity.get(c.caseId) ?? null })),
      total: Math.max(q.offset + page.cases.length, result.total - page.withheld),
      exact: result.exhausted,
      withheld: result.withheld || page.withheld > 0,
      restrictedCheckDegraded: page.degraded,
    };
  }

  async #keyword(q: SemanticQuery): Promise<SemanticResults> {
    const found = await this.deps.keyword.search({
      query: q.query,
      resolved: q.filters.resolved,
      sort: 'relevance',
      offset: q.offset,
      limit: q.limit,
    });
    return {
      mode: 'keyword',
      cases: found.cases.map((c) => ({ ...c, similarity: null })),
      total: found.total,
      exact: true,
      withheld: found.withheld,
      restrictedCheckDegraded: found.restrictedCheckDegraded,
    };
  }
}
