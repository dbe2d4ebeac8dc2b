/**
 * POST /cases/:id/analyze: admits a background analysis of one case and answers 202 at
 * once, 100 credits charged at admission (a failed run gives them back), plus 20 when the
 * run plans to fetch its document (given back if it finds the document stored and fetches
 * nothing). A stored analysis is returned instead (alreadyExists, 1 credit, its prose
 * watermarked for the caller's billing account) unless `force`. Checks run in the spec's
 * order: the case, the remote-fetch allowlist (whatever the tier or balance), the tier,
 * the readable source (a case with no text and no stored document is refused up front),
 * then the concurrency cap and the balance inside the admitting transaction.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { recordCharge, refusalError } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { StoredAnalysisSchema, storedAnalysisOf, type AnalysisRouteDeps, type Watermark } from './analysis-route-support.ts';
import { CaseIdParam, lookupCase } from './case-support.ts';

const Body = z
  .object({
    force: z.boolean().optional().openapi({ description: 'Default false. True re-runs the model even when an analysis is stored.' }),
    allowRemoteFetch: z.boolean().optional().openapi({
      description:
        'Default false. When the document is not stored, fetch it from the court’s own site (allow-listed official domains only); +20 credits only if a fetch happened.',
    }),
  })
  .openapi('AnalyzeRequest');

const Accepted = z
  .object({
    success: z.literal(true),
    data: z.object({
      caseId: z.string(),
      caseNumber: z.string(),
      runId: z
        .string()
        .openapi({ description: 'The run, also its workflow id: analysis-<caseId>-<n>.', example: 'analysis-sc-inabs-5861-1' }),
      status: z.literal('running'),
      hasAnalysis: z
        .boolean()
        .openapi({ description: 'Whether an earlier analysis is stored (a forced re-run replaces it when it completes).' }),
      alreadyExists: z.literal(false),
      resultUrl: z.string().openapi({ description: 'Where to collect the result, after 30 to 60 seconds.' }),
    }),
    meta: z.object({
      creditsCharged: z.number().int().openapi({
        description:
          'Charged at admission (100, or 120 when the run plans to fetch its document); given back in full if the run fails, and the 20 alone if the run finds the document already stored and fetches nothing.',
      }),
      remoteFetch: z.boolean().openapi({
        description:
          'The run plans to fetch the document from the court’s site (+20 included in creditsCharged). The surcharge is kept only when a fetch happened: a run that finds the document stored meanwhile gives it back, and one that cannot fetch fails and is refunded.',
      }),
      retryAfterSeconds: z.number().int(),
    }),
  })
  .openapi('AnalyzeAccepted');

const Existing = z
  .object({
    success: z.literal(true),
    data: StoredAnalysisSchema.extend({ alreadyExists: z.literal(true) }),
    meta: z.object({ creditsCharged: z.number().int() }),
  })
  .openapi('AnalyzeAlreadyExists');

const route = (auth: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'analyzeCase',
    method: 'post',
    path: '/cases/{id}/analyze',
    tags: ['Analysis'],
    summary: 'Analyse one case in the background',
    description: `Price: ${describePrice('analyze')} Charged at admission and given back if the run fails. Free tier: 403 API_TIER_NOT_ALLOWED. Collect the result with GET /cases/:id/analysis. The analysis is a research aid, not legal advice.`,
    security: keyedSecurity,
    middleware: [auth, idempotency] as const,
    request: {
      params: CaseIdParam,
      body: { required: false, content: { 'application/json': { schema: Body } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      200: {
        description: 'A stored analysis (alreadyExists true), at the cache-hit price.',
        content: { 'application/json': { schema: Existing } },
      },
      202: {
        description: 'Admitted: the run is in progress.',
        headers: { 'Retry-After': { schema: { type: 'string' }, description: 'Seconds until the result is worth collecting.' } },
        content: { 'application/json': { schema: Accepted } },
      },
      ...errorResponses(
        ...KEYED_ERRORS,
        'VALIDATION_ERROR',
        'MALFORMED_JSON',
        'CASE_NOT_FOUND',
        'CASE_RESTRICTED',
        'PDF_NOT_STORED',
        'REMOTE_FETCH_NOT_ALLOWED',
        'API_TIER_NOT_ALLOWED',
        'CONCURRENT_ANALYSIS_LIMIT',
        'INSUFFICIENT_API_CREDITS',
        'IDEMPOTENCY_KEY_INVALID',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_IN_PROGRESS',
        'WORKFLOW_ENGINE_UNAVAILABLE',
      ),
    },
  });

export function registerPostCaseAnalyze(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: AnalysisRouteDeps & { readonly watermark: Watermark },
): void {
  app.openapi(route(auth, idempotency), async (c) => {
    const principal = principalOf(c);
    const account = billingAccountOf(principal);
    const body = (await c.req.text()).trim() === '' ? {} : c.req.valid('json');
    const view = (await lookupCase(deps.cases, c.req.valid('param').id)).found;
    const result = await deps.requests.requestSingle({
      view,
      accountId: account,
      requestId: c.get('callId'),
      force: body.force ?? false,
      allowRemoteFetch: body.allowRemoteFetch ?? false,
      concurrencyCap: principal.limits.concurrentAnalyses,
      tier: principal.tier,
    });
    if (result.outcome === 'refused') throw refusalError(result.refusal, deps);
    if (result.outcome === 'cache-hit') {
      const price = result.charged;
      recordCharge(c, price, result.balance);
      return c.json(
        {
          success: true as const,
          data: { ...storedAnalysisOf(view, result.stored, deps.watermark, account), alreadyExists: true as const },
          meta: { creditsCharged: price },
        },
        200,
      );
    }
    const hasAnalysis = (await deps.requests.stored(view.caseId)) !== null;
    const charged = result.charged;
    recordCharge(c, charged, result.balance);
    c.header('Retry-After', '30');
    c.header('Location', `${deps.basePath}/cases/${encodeURIComponent(view.caseId)}/analysis`);
    return c.json(
      {
        success: true as const,
        data: {
          caseId: view.caseId,
          caseNumber: view.caseNumber,
          runId: result.runId,
          status: 'running' as const,
          hasAnalysis,
          alreadyExists: false as const,
          resultUrl: `${deps.basePath}/cases/${encodeURIComponent(view.caseId)}/analysis`,
        },
        meta: { creditsCharged: charged, remoteFetch: result.remoteFetch, retryAfterSeconds: 30 },
      },
      202,
    );
  });
}
