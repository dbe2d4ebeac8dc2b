/**
 * POST /cases/:id/analyze-consolidated: analyses every document filed under the case's
 * number and answers when done (synchronous, possibly minutes). 400 credits are reserved
 * before the run and charged only when its analysis is stored; a run that fails or passes
 * its deadline releases them. A stored consolidated analysis is returned instead
 * (alreadyExists, 1 credit) unless `force`; so is the result of a run another caller
 * started on the same case number while this call arrived. One covering a document
 * restricted since is never returned: the model runs again without it. The analysis's
 * prose is watermarked for the caller's billing account.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { ApiError } from '../../api-error.ts';
import { recordCharge, refusalError, requireEntitlement } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { StoredAnalysisSchema, storedAnalysisOf, type AnalysisRouteDeps, type Watermark } from './analysis-route-support.ts';
import { CaseIdParam, lookupCase } from './case-support.ts';
import { customerFailure } from '../../../domain/analysis-request/failure.ts';

const Body = z
  .object({
    force: z
      .boolean()
      .optional()
      .openapi({ description: 'Default false. True re-runs the model even when a consolidated analysis is stored.' }),
  })
  .openapi('AnalyzeConsolidatedRequest');

const Response = z
  .object({
    success: z.literal(true),
    data: StoredAnalysisSchema.extend({ alreadyExists: z.boolean() }),
    meta: z.object({ creditsCharged: z.number().int() }),
  })
  .openapi('ConsolidatedAnalysis');

const route = (auth: MiddlewareHandler<AppEnv>, gate: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'analyzeCaseConsolidated',
    method: 'post',
    path: '/cases/{id}/analyze-consolidated',
    tags: ['Analysis'],
    summary: 'Analyse every document sharing the case number (synchronous)',
    description: `Price: ${describePrice('analyzeConsolidated')} Reserved first, charged only when the analysis is stored. Free tier: 403 API_TIER_NOT_ALLOWED. May take minutes; past the service's deadline it answers 408 UPSTREAM_TIMEOUT with nothing charged. A research aid, not legal advice.`,
    security: keyedSecurity,
    middleware: [auth, gate, idempotency] as const,
    request: {
      params: CaseIdParam,
      body: { required: false, content: { 'application/json': { schema: Body } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      200: { description: 'The consolidated analysis.', content: { 'application/json': { schema: Response } } },
      ...errorResponses(
        ...KEYED_ERRORS,
        'VALIDATION_ERROR',
        'MALFORMED_JSON',
        'CASE_NOT_FOUND',
        'CASE_RESTRICTED',
        'PDF_NOT_STORED',
        'API_TIER_NOT_ALLOWED',
        'INSUFFICIENT_API_CREDITS',
        'UPSTREAM_TIMEOUT',
        'UPSTREAM_UNAVAILABLE',
        'IDEMPOTENCY_KEY_INVALID',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_IN_PROGRESS',
        'WORKFLOW_ENGINE_UNAVAILABLE',
      ),
    },
  });

export function registerPostCaseAnalyzeConsolidated(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: AnalysisRouteDeps & { readonly watermark: Watermark },
): void {
  app.openapi(route(auth, requireEntitlement('aiAnalysis', deps), idempotency), async (c) => {
    const account = billingAccountOf(principalOf(c));
    const body = (await c.req.text()).trim() === '' ? {} : c.req.valid('json');
    const view = (await lookupCase(deps.cases, c.req.valid('param').id)).found;
    const result = await deps.requests.requestConsolidated({
      view,
      accountId: account,
      requestId: c.get('callId'),
      force: body.force ?? false,
    });
    switch (result.outcome) {
      case 'refused':
        throw refusalError(result.refusal, deps);
      case 'failed':
        // The recorded reason is for the log (as the cause); the caller gets a code and a fixed message.
        throw new ApiError(customerFailure(result.reason).code === 'ANALYSIS_TIMED_OUT' ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE', {
          message: 'The consolidated analysis did not complete; nothing was charged. Retry later.',
          cause: result.reason,
        });
      case 'cache-hit':
      case 'stored': {
        const price = result.charged;
        recordCharge(c, price, result.outcome === 'cache-hit' ? result.balance : undefined);
        return c.json(
          {
            success: true as const,
            data: { ...storedAnalysisOf(view, result.stored, deps.watermark, account), alreadyExists: result.outcome === 'cache-hit' },
            meta: { creditsCharged: price },
          },
          200,
        );
      }
    }
  });
}
