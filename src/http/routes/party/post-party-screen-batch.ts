/**
 * POST /party/screen/batch: 1 to 25 litigation checks in one call, by the spec's six
 * rules. The Free tier is refused before the body is read (API_TIER_NOT_ALLOWED with an
 * upgradeUrl). The top level is strict (items, purpose, entityType, adjudicate false or
 * absent); each item is validated on its own, so a malformed item becomes a result with
 * ok false and a VALIDATION_ERROR instead of failing the batch. Items run concurrently
 * with a bound; items left out at the distinct-names cap are reported in meta.truncated.
 * Every result carries its index and clientRef (null when none was sent).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { BatchItemFailure, BatchItemInput } from '../../../application/screening/litigation-checks.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import type { ErrorCode } from '../../error-codes.ts';
import { ERROR_MESSAGE } from '../../error-codes.ts';
import { recordCharge, refusalError, requireEntitlement } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { describeIssue } from '../../validation.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { batchAuditDetail } from './audit-detail-support.ts';
import type { PartyRouteDeps } from './party-route-support.ts';
import { BatchItem, PURPOSES, reportView, ScreeningReportSchema, screeningRequestOf } from './party-schemas.ts';
import { comparableName } from '../../../application/screening/screened-name-key.ts';

export const MAX_BATCH_ITEMS = 25;

const Body = z
  .object({
    items: z
      .array(z.unknown())
      .min(1)
      .max(MAX_BATCH_ITEMS)
      .openapi({
        items: { $ref: '#/components/schemas/PartyScreenBatchItem' },
        description: `1 to ${MAX_BATCH_ITEMS} items, each a PartyScreenBatchItem. A malformed item does not fail the batch: its result has ok false.`,
        example: [{ clientRef: 'vendor-0001', name: 'National Insurance Company Limited', entityType: 'company' }],
      }),
    purpose: z.enum(PURPOSES).openapi({ description: 'Applies to every item; recorded in the audit trail, never logged with the names.' }),
    entityType: z.enum(['person', 'company']).optional().openapi({ description: 'Default for items that do not give one.' }),
    adjudicate: z.literal(false).optional().openapi({ description: 'Must be false or omitted: batches are not adjudicated.' }),
  })
  .strict()
  .openapi('PartyScreenBatchRequest');

const ItemError = z.object({
  code: z
    .string()
    .openapi({ description: 'VALIDATION_ERROR, DISTINCT_NAMES_LIMIT_REACHED, PARTY_SCREEN_SEARCH_DEGRADED or INTERNAL_ERROR.' }),
  message: z.string(),
  details: z.array(z.string()).optional(),
});

const Result = z
  .union([
    z.object({
      index: z.number().int(),
      clientRef: z.string().nullable(),
      ok: z.literal(true),
      data: ScreeningReportSchema,
      creditsCharged: z.number().int(),
    }),
    z.object({ index: z.number().int(), clientRef: z.string().nullable(), ok: z.literal(false), error: ItemError }),
  ])
  .openapi('PartyScreenBatchResult');

const Response = z
  .object({
    success: z.literal(true),
    data: z.array(Result).openapi({ description: 'One result per item, in item order.' }),
    meta: z.object({
      purpose: z.string(),
      items: z.number().int(),
      completed: z.number().int(),
      creditsCharged: z
        .number()
        .int()
        .openapi({ description: 'Completed items only: 100 per item with a match, 20 per genuine no match.' }),
      truncated: z.boolean().openapi({ description: 'Some items were left out at the distinct-names cap (their results say so).' }),
      truncatedReason: z.string().nullable(),
      responseTimeMs: z.number().int(),
    }),
  })
  .openapi('PartyScreenBatchResponse');

const FAILURE_CODES: Record<BatchItemFailure, ErrorCode> = {
  Invalid: 'VALIDATION_ERROR',
  DistinctNamesCapReached: 'DISTINCT_NAMES_LIMIT_REACHED',
  SearchDegraded: 'PARTY_SCREEN_SEARCH_DEGRADED',
  Failed: 'INTERNAL_ERROR',
};

function clientRefOf(item: unknown): string | null {
  if (item === null || typeof item !== 'object') return null;
  const ref = (item as Record<string, unknown>).clientRef;
  return typeof ref === 'string' ? ref : null;
}

const route = (auth: MiddlewareHandler<AppEnv>, tierGate: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'screenPartyBatch',
    method: 'post',
    path: '/party/screen/batch',
    tags: ['Litigation check'],
    summary: 'Screen up to 25 persons or companies in one call',
    description: `Price: ${describePrice('partyScreenBatch')} Nothing is charged for items that failed, and nothing at all when the call is refused. Not on the Free tier. The screening rate limit counts the batch as one request; the distinct-names caps count every item's names. PARTY_SCREEN_LIMIT_REACHED refuses the whole batch when the monthly allowance cannot cover its items.`,
    security: keyedSecurity,
    // Entitlement before idempotency: a refused tier must not leave a record behind.
    middleware: [auth, tierGate, idempotency] as const,
    request: {
      body: { required: true, content: { 'application/json': { schema: Body } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      200: { description: 'One result per item.', content: { 'application/json': { schema: Response } } },
      ...errorResponses(
        ...KEYED_ERRORS,
        ...BODY_ERRORS,
        'API_TIER_NOT_ALLOWED',
        'PARTY_SCREEN_LIMIT_REACHED',
        'DISTINCT_NAMES_LIMIT_REACHED',
        'INSUFFICIENT_API_CREDITS',
        'PARTY_SCREEN_SEARCH_DEGRADED',
        'IDEMPOTENCY_KEY_INVALID',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_IN_PROGRESS',
      ),
    },
  });

export function registerPostPartyScreenBatch(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: PartyRouteDeps,
): void {
  app.openAPIRegistry.register('PartyScreenBatchItem', BatchItem);
  app.openapi(route(auth, requireEntitlement('batchScreening', deps), idempotency), async (c) => {
    const started = performance.now();
    const principal = principalOf(c);
    const body = c.req.valid('json');
    const inputs = body.items.map((raw): BatchItemInput => {
      const parsed = BatchItem.safeParse(raw);
      if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => describeIssue(issue, raw)) };
      const entityType = parsed.data.entityType ?? body.entityType;
      if (entityType === undefined) return { ok: false, problems: ['entityType: required on the item or at the top level'] };
      if (comparableName(parsed.data.name, entityType) === '')
        return { ok: false, problems: ['name: nothing is left to search once honorifics and company forms are removed'] };
      const built = screeningRequestOf({ ...parsed.data, entityType }, { adjudicate: false, limits: principal.limits });
      return built.ok ? { ok: true, request: built.request } : { ok: false, problems: built.problems };
    });
    c.set('auditDetail', batchAuditDetail(body, inputs));
    const now = deps.clock.now();
    const outcome = await deps.checks.batch({ principal, requestId: c.get('callId'), purpose: body.purpose }, inputs, now);
    if (!outcome.ok) throw refusalError(outcome.refusal, deps);
    recordCharge(c, outcome.charged, outcome.balance);
    const data = outcome.results.map((r) => {
      const clientRef = clientRefOf(body.items[r.index]);
      if (r.ok) return { index: r.index, clientRef, ok: true as const, data: reportView(r.report), creditsCharged: r.charged };
      const code = FAILURE_CODES[r.failure];
      return {
        index: r.index,
        clientRef,
        ok: false as const,
        error: { code, message: ERROR_MESSAGE[code], ...(r.problems.length > 0 ? { details: [...r.problems] } : {}) },
      };
    });
    const truncated = outcome.truncated;
    return c.json(
      {
        success: true as const,
        data,
        meta: {
          purpose: body.purpose,
          items: body.items.length,
          completed: data.filter((d) => d.ok).length,
          creditsCharged: outcome.charged,
          truncated: truncated !== null,
          truncatedReason:
            truncated === null
              ? null
              : `DISTINCT_NAMES_LIMIT_REACHED: the ${truncated.window === 'minute' ? 'per-minute' : 'daily'} cap on distinct screened names was reached; the items marked so were not screened (retry after ${truncated.retryAfterSeconds} seconds).`,
          responseTimeMs: Math.round(performance.now() - started),
        },
      },
      200,
    );
  });
}
