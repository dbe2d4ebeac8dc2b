/**
 * POST /search/cases: keyword search over the full corpus, by every rule of the spec's
 * table. The body is schema-parsed with unknown keys dropped (so practiceArea is silently
 * stripped); page and limit must be JSON numbers; a limit above the tier's page size is
 * PAGE_LIMIT_EXCEEDED and a page reaching past the tier's depth PAGINATION_DEPTH_EXCEEDED;
 * searchAfter cursors are signed and bound to the query, filters and sort. 5 credits,
 * charged only when the search answers, and not for a page answered masked because the
 * restricted-record check was degraded (see `searchPageEarns`).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { resolveFilters, FIRST_YEAR } from '../../../application/search/search-filters.ts';
import { KEYWORD_PAGES, type SearchPages } from '../../../application/search/search-pages.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { SearchSort } from '../../../ports/search-index.ts';
import { admitted, type RefusalLinks } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { validationFailed } from '../../validation.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { CaseListingSchema, caseFieldsOf } from '../cases/case-schemas.ts';
import { limitsOf, oneOrMany, RESTRICTED_CHECK_DEGRADED, years } from './filter-schemas.ts';

export interface KeywordSearchRouteDeps {
  readonly searches: SearchPages;
  readonly links: RefusalLinks;
  readonly clock: Clock;
}
/** A cursor as issued is at most 112 characters (payload with the largest offset, and the MAC). */
const MAX_CURSOR_LENGTH = 128;

/** YYYY-MM-DD and a real calendar day (format: date in the OpenAPI document). */
const isoDay = z.iso.date();

const Body = z
  .object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .openapi({ example: 'Civil Appeal No. 1918 of 2015', description: 'Words, party names or a case number.' }),
    court: oneOrMany('court')
      .optional()
      .openapi({ description: `Court name(s), alias or /reference/courts id; a comma-separated string is split. ${limitsOf('court')}` }),
    year: years()
      .optional()
      .openapi({
        description: `Decision year(s), ${FIRST_YEAR} to the current year. ${limitsOf('year')} For a longer run, fromDate and toDate.`,
      }),
    caseType: oneOrMany('caseType')
      .optional()
      .openapi({ description: `Label (expands to all its codes) or code; see /reference/case-types. ${limitsOf('caseType')}` }),
    judgeName: oneOrMany('judgeName')
      .optional()
      .openapi({ description: `Exact stored spelling (see /judges/search). Aliases: judges, judge. ${limitsOf('judgeName')}` }),
    judges: oneOrMany('judgeName')
      .optional()
      .openapi({ description: `Alias of judgeName; used when judgeName is absent. ${limitsOf('judgeName')}` }),
    judge: oneOrMany('judgeName')
      .optional()
      .openapi({ description: `Alias of judgeName; used when judgeName and judges are absent. ${limitsOf('judgeName')}` }),
    fromDate: isoDay.optional().openapi({ description: 'Inclusive lower bound on decision date, YYYY-MM-DD.' }),
    toDate: isoDay.optional().openapi({ description: 'Inclusive upper bound on decision date, YYYY-MM-DD.' }),
    page: z.number().int().min(1).optional().openapi({ description: 'Default 1. A JSON number; a string is refused.' }),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: `Default ${KEYWORD_PAGES.defaultLimit}, at most ${KEYWORD_PAGES.maxLimit} and the tier's maxPageSize.` }),
    searchAfter: z
      .string()
      .min(1)
      .max(MAX_CURSOR_LENGTH)
      .optional()
      .openapi({ description: 'pagination.nextCursor of the previous page; takes precedence over page.' }),
    sortBy: z
      .enum(['relevance', 'recent', 'oldest', 'date'])
      .optional()
      .openapi({ description: 'relevance (default), recent, oldest. "date" is a deprecated alias that ranks by relevance.' }),
    caseNumber: oneOrMany('caseNumber')
      .optional()
      .openapi({
        description: `Accepted but inert: echoed in meta.filters, never applied. Put case numbers in query. ${limitsOf('caseNumber')}`,
      }),
  })
  .openapi('KeywordSearchRequest');

const Filters = z
  .object({
    court: z.array(z.string()).optional(),
    year: z.array(z.number().int()).optional(),
    caseType: z.array(z.string()).optional().openapi({ description: 'The case-type codes searched (labels expanded).' }),
    judgeName: z.array(z.string()).optional(),
    fromDate: z.string().optional(),
    toDate: z.string().optional(),
    caseNumber: z.array(z.string()).optional().openapi({ description: 'Echoed, not applied.' }),
  })
  .openapi({ description: 'Filters actually applied; one missing here was not applied (caseNumber is echoed but never applied).' });

const Response = z
  .object({
    success: z.literal(true),
    data: z.array(CaseListingSchema),
    meta: z.object({
      query: z.string(),
      sortBy: z.enum(['relevance', 'recent', 'oldest']),
      filters: Filters,
      responseTimeMs: z.number().int(),
      someRecordsWithheld: z.boolean().openapi({ description: 'A restricted or de-indexed record matching the search was left out.' }),
      restrictedCheckDegraded: z.boolean().openapi({ description: RESTRICTED_CHECK_DEGRADED }),
    }),
    pagination: z.object({
      page: z.number().int().openapi({ description: 'Page number this offset corresponds to (1-based).' }),
      limit: z.number().int(),
      offset: z.number().int(),
      total: z.number().int().openapi({
        description:
          "Matching cases, counted exactly up to a bound and then no further (as Meilisearch's totalHits and Stripe's has_more do): 1,000 or the end of the requested page, whichever is larger, on the PostgreSQL full-text index (the embedded default), 10,000 on Meilisearch. A total equal to the bound means at least that many; hasMore says whether another page exists.",
      }),
      totalPages: z.number().int().openapi({ description: 'ceil(total / limit): a lower bound when total is.' }),
      hasMore: z.boolean(),
      nextCursor: z
        .string()
        .nullable()
        .openapi({ description: 'Send as searchAfter for the next page; null on the last page or past the depth cap.' }),
    }),
  })
  .openapi('KeywordSearchResponse');

const route = (auth: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'searchCases',
    method: 'post',
    path: '/search/cases',
    tags: ['Search'],
    summary: 'Keyword search over the full corpus',
    description: `Price: ${describePrice('keywordSearch')} Not charged when it fails, nor for a page masked by a degraded restricted-record check (meta.restrictedCheckDegraded). Honours Idempotency-Key like the other charging POST routes: a retry with the same key and body replays the first answer (Idempotency-Replayed: true) and charges nothing.`,
    security: keyedSecurity,
    // The gate first: idempotency records are scoped per API key.
    middleware: [auth, idempotency] as const,
    request: {
      body: { required: true, content: { 'application/json': { schema: Body } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      200: { description: 'One page of matching cases.', content: { 'application/json': { schema: Response } } },
      ...errorResponses(
        ...KEYED_ERRORS,
        ...BODY_ERRORS,
        'PAGE_LIMIT_EXCEEDED',
        'PAGINATION_DEPTH_EXCEEDED',
        'CURSOR_INVALID',
        'INSUFFICIENT_API_CREDITS',
        'IDEMPOTENCY_KEY_INVALID',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_IN_PROGRESS',
        'UPSTREAM_UNAVAILABLE',
      ),
    },
  });

export function registerPostSearchCases(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: KeywordSearchRouteDeps,
): void {
  app.openapi(route(auth, idempotency), async (c) => {
    const started = performance.now();
    const body = c.req.valid('json');
    const resolution = resolveFilters(body, deps.clock.now().getUTCFullYear());
    if (!resolution.ok) throw validationFailed(resolution.problems);
    const sort: SearchSort = body.sortBy === undefined || body.sortBy === 'date' ? 'relevance' : body.sortBy;
    const { query, page, limit, searchAfter } = body;
    const call = { payer: principalOf(c), callId: c.get('callId'), query, resolved: resolution.value, sort, page, limit, searchAfter };
    const result = await deps.searches.keyword(call);
    const { results, pagination } = admitted(c, result, deps.links).value;
    // A masked page is not stored for Idempotency-Key replay: a retry runs again for the unmasked page.
    if (results.restrictedCheckDegraded) c.header('Cache-Control', 'no-store');
    const data = results.cases.map((view) => ({ ...caseFieldsOf(view), score: view.score }));
    const meta = {
      query,
      sortBy: sort,
      filters: resolution.value.applied,
      responseTimeMs: Math.round(performance.now() - started),
      someRecordsWithheld: results.withheld,
      restrictedCheckDegraded: results.restrictedCheckDegraded,
    };
    return c.json({ success: true as const, data, meta, pagination }, 200);
  });
}
