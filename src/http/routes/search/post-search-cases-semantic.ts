/**
 * POST /search/cases/semantic: meaning-based search over the embedded subset. The Free
 * tier is refused before any work or charge (SEMANTIC_NOT_ALLOWED). `filters` is the only
 * place filtering works, merged over what the query text names (caller wins); the
 * top-level court, year, caseType, caseNumber, judgeName, judges, judge, fromDate and
 * toDate are accepted and ignored, as the spec says; sortBy is not a parameter. limit is
 * capped (never refused), page becomes an offset, and no page reaches past the vector
 * index's depth bound (VECTOR_SEARCH_MAX_DEPTH) or the tier's. When the vector path is
 * down the keyword index answers, flagged fallbackMode "opensearch" (the spec's value,
 * kept for clients that test for it) and charged at the keyword price.
 *
 * The spec says this route may answer HTTP 200 with success false. The rule kept here
 * (STATUS_RULE, also the 200 response's description): a refusal decided before the search
 * runs keeps its own status; once the search runs, the answer is 200, with results or with
 * success false and a code (neither index answered). Such an answer is never charged and
 * never replayed. Clients that only read the status line still get a parseable body.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { resolveSemanticFilters } from '../../../application/search/semantic-filters.ts';
import { SEMANTIC_PAGES, type SearchPages } from '../../../application/search/search-pages.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import type { Clock } from '../../../ports/clock.ts';
import { VECTOR_SEARCH_MAX_DEPTH } from '../../../ports/vector-index.ts';
import { admitted, requireEntitlement, type RefusalLinks } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { validationFailed } from '../../validation.ts';
import { BODY_ERRORS, CodedErrorSchema, errorResponses } from '../../openapi-errors.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { caseFieldsOf, CaseListingSchema } from '../cases/case-schemas.ts';
import { limitsOf, oneOrMany, RESTRICTED_CHECK_DEGRADED, years } from './filter-schemas.ts';

export interface SemanticSearchRouteDeps {
  readonly searches: SearchPages;
  readonly links: RefusalLinks;
  readonly clock: Clock;
}

/** The spec's name for the keyword fallback, kept for compatibility; our keyword index is PostgreSQL or Meilisearch. */
export const FALLBACK_MODE = 'opensearch';

const FALLBACK_NOTE =
  'The vector index was unavailable: these are keyword results (no similarity; caseNumber not applied), charged at the keyword price.';

/** When this route answers 200 with success false: the rule, as the OpenAPI document states it. */
const STATUS_RULE =
  'Branch on the body, not only the status. A request refused before the search runs (key, tier, body, page depth, credits, Idempotency-Key) gets its own status and coded error. ' +
  'Once the search runs, the answer is HTTP 200: success true with results (from the vector index, or from the keyword index when the vector path failed: meta.fallbackMode), ' +
  'or success false with a code when the search itself failed: UPSTREAM_UNAVAILABLE when neither the vector path nor the keyword fallback answered. ' +
  'A success-false answer is never charged (no X-Credits-Charged header) and never stored for Idempotency-Key replay (Cache-Control: no-store), so a retry runs again.';

/** YYYY-MM-DD and a real calendar day (format: date in the OpenAPI document). */
const isoDay = z.iso.date();

const Filters = z
  .object({
    court: oneOrMany('court')
      .optional()
      .openapi({ description: `Court name(s) or /reference/courts ids; a comma-separated string is split. ${limitsOf('court')}` }),
    caseType: oneOrMany('caseType')
      .optional()
      .openapi({ description: `Label (expands to its codes) or code. ${limitsOf('caseType')}` }),
    judgeName: oneOrMany('judgeName')
      .optional()
      .openapi({ description: `Exact stored spelling; judges and judge map onto it. ${limitsOf('judgeName')}` }),
    judges: oneOrMany('judgeName')
      .optional()
      .openapi({ description: limitsOf('judgeName') }),
    judge: oneOrMany('judgeName')
      .optional()
      .openapi({ description: limitsOf('judgeName') }),
    caseYear: years()
      .optional()
      .openapi({ description: `Decision year(s). ${limitsOf('year')}` }),
    caseNumber: oneOrMany('caseNumber')
      .optional()
      .openapi({ description: `Case number(s) in any printed form. ${limitsOf('caseNumber')}` }),
    decisionDate: z
      .object({ $gte: isoDay.optional(), $lte: isoDay.optional() })
      .optional()
      .openapi({ description: 'Inclusive bounds, YYYY-MM-DD.' }),
  })
  .openapi('SemanticFilters');

const inert = z.unknown().optional().openapi({ description: 'Accepted at top level but never read: put filters in `filters`.' });

const Body = z
  .object({
    query: z
      .string()
      .trim()
      .min(3)
      .max(2000)
      .openapi({ example: 'compensation for land acquired for a public purpose', description: 'Natural language; at least 3 characters.' }),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({
        description: `Default ${SEMANTIC_PAGES.defaultLimit}; values above ${SEMANTIC_PAGES.maxLimit} (or the tier's page size) are capped.`,
      }),
    page: z.number().int().min(1).optional().openapi({ description: 'Default 1; becomes a vector search offset.' }),
    filters: Filters.optional(),
    court: inert,
    year: inert,
    caseType: inert,
    caseNumber: inert,
    judgeName: inert,
    judges: inert,
    judge: inert,
    fromDate: inert,
    toDate: inert,
  })
  .openapi('SemanticSearchRequest');

const AppliedFilters = z.object({
  court: z.array(z.string()).optional(),
  caseType: z.array(z.string()).optional(),
  judgeName: z.array(z.string()).optional(),
  caseYear: z.array(z.number().int()).optional(),
  caseNumber: z.array(z.string()).optional(),
  decisionDate: z.object({ $gte: z.string().optional(), $lte: z.string().optional() }).optional(),
  inferredFromQuery: z
    .array(z.enum(['court', 'caseType', 'caseYear']))
    .openapi({ description: 'Filters taken from the query text (the caller gave none for them).' }),
});

const Result = CaseListingSchema.omit({ score: true })
  .extend({
    similarity: z
      .number()
      .nullable()
      .openapi({ description: 'Cosine similarity of the best-matching passage; null on a keyword fallback.' }),
  })
  .openapi('SemanticSearchResult');

const Response = z
  .object({
    success: z.literal(true),
    data: z.array(Result),
    meta: z.object({
      query: z.string(),
      appliedFilters: AppliedFilters,
      responseTimeMs: z.number().int(),
      someRecordsWithheld: z.boolean(),
      restrictedCheckDegraded: z.boolean().openapi({ description: RESTRICTED_CHECK_DEGRADED }),
      fallbackMode: z.literal(FALLBACK_MODE).optional().openapi({
        description:
          'Present when the vector path was unavailable and the keyword index answered (value kept from the spec for compatibility).',
      }),
      note: z.string().optional(),
    }),
    pagination: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int().openapi({ description: 'A conservative estimate until exact is true (on the final page).' }),
      totalPages: z.number().int(),
      exact: z.boolean(),
      hasMore: z.boolean(),
    }),
  })
  .openapi('SemanticSearchResponse');

/** The in-band failure: the coded error body under HTTP 200 (see STATUS_RULE). */
const Failure = CodedErrorSchema.extend({
  code: z
    .enum(['UPSTREAM_UNAVAILABLE'])
    .openapi({ description: 'UPSTREAM_UNAVAILABLE: neither the vector nor the keyword index answered.' }),
}).openapi('SemanticSearchFailure');

const route = (auth: MiddlewareHandler<AppEnv>, entitled: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'searchCasesSemantic',
    method: 'post',
    path: '/search/cases/semantic',
    tags: ['Search'],
    summary: 'Meaning-based search over the embedded subset',
    description: `Price: ${describePrice('semanticSearch')} (a keyword fallback answer: ${describePrice('keywordSearch')}) Not charged when it fails, nor for a page masked by a degraded restricted-record check (meta.restrictedCheckDegraded). Free tier: 403 SEMANTIC_NOT_ALLOWED before any work. Pages reach at most ${VECTOR_SEARCH_MAX_DEPTH} results deep (page times limit; less if the tier's depth cap is lower): deeper is 400 PAGINATION_DEPTH_EXCEEDED. ${STATUS_RULE}`,
    security: keyedSecurity,
    // Entitlement before idempotency: a refused tier must not leave a record behind.
    middleware: [auth, entitled, idempotency] as const,
    request: {
      body: { required: true, content: { 'application/json': { schema: Body } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      200: {
        description: `Cases ordered by similarity (success true), or the search failed after it started (success false). ${STATUS_RULE}`,
        content: { 'application/json': { schema: z.union([Response, Failure]) } },
      },
      ...errorResponses(
        ...KEYED_ERRORS,
        ...BODY_ERRORS,
        'SEMANTIC_NOT_ALLOWED',
        'PAGINATION_DEPTH_EXCEEDED',
        'INSUFFICIENT_API_CREDITS',
        'IDEMPOTENCY_KEY_INVALID',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_IN_PROGRESS',
      ),
    },
  });

export function registerPostSearchCasesSemantic(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: SemanticSearchRouteDeps,
): void {
  // The spec's entitlement check, before any validation, work or charge.
  app.openapi(route(auth, requireEntitlement('semanticSearch', deps.links), idempotency), async (c) => {
    const started = performance.now();
    const { query, page, limit, filters } = c.req.valid('json');
    const resolution = resolveSemanticFilters(query, filters ?? {}, deps.clock.now().getUTCFullYear());
    if (!resolution.ok) throw validationFailed(resolution.problems);
    const call = { payer: principalOf(c), callId: c.get('callId'), query, filters: resolution.value, page, limit };
    const { results, pagination } = admitted(c, await deps.searches.semantic(call), deps.links).value;
    // A masked page is not stored for Idempotency-Key replay: a retry runs again for the unmasked page.
    if (results.restrictedCheckDegraded) c.header('Cache-Control', 'no-store');
    const fallback = results.mode === 'keyword';
    const { caseNumber: _unappliedInFallback, ...withoutCaseNumber } = resolution.value.applied;
    const meta = {
      query,
      appliedFilters: fallback ? withoutCaseNumber : resolution.value.applied,
      responseTimeMs: Math.round(performance.now() - started),
      someRecordsWithheld: results.withheld,
      restrictedCheckDegraded: results.restrictedCheckDegraded,
      ...(fallback ? ({ fallbackMode: FALLBACK_MODE, note: FALLBACK_NOTE } as const) : {}),
    };
    const data = results.cases.map((view) => ({ ...caseFieldsOf(view), similarity: view.similarity }));
    const { offset: _offset, hasMore, ...counts } = pagination;
    return c.json({ success: true as const, data, meta, pagination: { ...counts, exact: results.exact, hasMore } }, 200);
  });
}
