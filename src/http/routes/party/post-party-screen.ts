/**
 * POST /party/screen: one litigation check. The body is parsed strictly (an unknown field
 * is a 400); adjudication on the Free tier is refused before any work (API_TIER_NOT_ALLOWED
 * with an upgradeUrl). The application layer applies the screening rate limit, reserves
 * the worst case, takes the monthly and distinct-names allowances, screens and settles;
 * this file maps its outcome to the report or to the error table. The response never
 * repeats the name, aliases, identifiers, address or known persons that were sent.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { entitlement } from '../../../application/admission/decision.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { ApiError } from '../../api-error.ts';
import { recordCharge, refusalError } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { screenAuditDetail } from './audit-detail-support.ts';
import type { PartyRouteDeps } from './party-route-support.ts';
import { reportView, ScreenBody, ScreeningReportSchema, screeningRequestOf } from './party-schemas.ts';

const Response = z
  .object({
    success: z.literal(true),
    data: ScreeningReportSchema,
    meta: z.object({
      purpose: z.string(),
      entityType: z.enum(['person', 'company']),
      displayThreshold: z.number(),
      creditsCharged: z.number().int(),
      responseTimeMs: z.number().int(),
    }),
  })
  .openapi('PartyScreenResponse');

const route = (auth: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'screenParty',
    method: 'post',
    path: '/party/screen',
    tags: ['Litigation check'],
    summary: 'Screen one person or company against the court records',
    description: `Price: ${describePrice('partyScreen')} That reservation is the worst case, match plus adjudication surcharge, held with or without adjudicate: a balance below it is a 402; the call settles at the price it earned and releases the rest; nothing is charged on any error. A genuine no match is the verdict no_matches_found (an exhaustive retrieval: no search error, no plan clamp of the limit, no since filter and no withheld record); an inconclusive no match costs nothing. Limits: the tier's screening requests per minute, distinct screened names per minute and per day (names already screened today are free), litigation checks per month (Free 10).`,
    security: keyedSecurity,
    middleware: [auth, idempotency] as const,
    request: {
      body: { required: true, content: { 'application/json': { schema: ScreenBody } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      200: { description: 'The report: matches, summary and coverage.', content: { 'application/json': { schema: Response } } },
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

export function registerPostPartyScreen(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: PartyRouteDeps,
): void {
  app.openapi(route(auth, idempotency), async (c) => {
    const started = performance.now();
    const principal = principalOf(c);
    const body = c.req.valid('json');
    c.set('auditDetail', screenAuditDetail(body));
    const adjudicate = body.adjudicate ?? false;
    const denied = adjudicate ? entitlement(principal.tier, 'adjudication') : null;
    if (denied) throw refusalError(denied, deps);
    const built = screeningRequestOf(body, { adjudicate, limits: principal.limits });
    if (!built.ok)
      throw new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${built.problems.join('; ')}`, details: built.problems });
    const now = deps.clock.now();
    const outcome = await deps.checks.single({ principal, requestId: c.get('callId'), purpose: body.purpose }, built.request, now);
    if (!outcome.ok) throw refusalError(outcome.refusal, deps);
    recordCharge(c, outcome.charged, outcome.balance);
    return c.json(
      {
        success: true as const,
        data: reportView(outcome.report),
        meta: {
          purpose: body.purpose,
          entityType: body.entityType,
          displayThreshold: built.request.displayThreshold,
          creditsCharged: outcome.charged,
          responseTimeMs: Math.round(performance.now() - started),
        },
      },
      200,
    );
  });
}
