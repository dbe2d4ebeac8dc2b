/**
 * GET /cases/:id/analysis: the stored analysis of a case (1 credit), its prose
 * watermarked for the caller's billing account. Without one it
 * answers hasAnalysis false with meta.note pointing to POST /cases/:id/analyze, plus the
 * caller's latest run on the case (running, or failed with its charge given back), and is
 * not charged: nothing was read. Free tier: 403 API_TIER_NOT_ALLOWED, not charged.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { admitted, requireEntitlement, type PricedRouteDeps } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { StoredAnalysisSchema, storedAnalysisOf, type AnalysisRouteDeps, type Watermark } from './analysis-route-support.ts';
import { CaseIdParam, lookupCase } from './case-support.ts';
import { ANALYSIS_FAILURE_CODES, ANALYSIS_FAILURES } from '../../../domain/analysis-request/failure.ts';

const failureCodesDescription = Object.entries(ANALYSIS_FAILURES)
  .map(([code, message]) => `${code}: ${message}`)
  .join(' ');

const LatestRun = z
  .object({
    runId: z.string(),
    status: z.enum(['running', 'stored', 'failed']),
    failure: z
      .string()
      .nullable()
      .openapi({ description: 'Why a failed run failed, in words (the message of failureCode); its charge was given back.' }),
    failureCode: z
      .enum(ANALYSIS_FAILURE_CODES)
      .nullable()
      .openapi({ description: `Why a failed run failed; null unless status is failed. ${failureCodesDescription}` }),
  })
  .nullable()
  .openapi({ description: 'Your latest run on this case, if any.' });

const Response = z
  .object({
    success: z.literal(true),
    data: z.union([StoredAnalysisSchema, z.object({ caseId: z.string(), caseNumber: z.string(), hasAnalysis: z.literal(false) })]),
    meta: z.object({
      creditsCharged: z.number().int(),
      latestRun: LatestRun,
      note: z.string().optional().openapi({ description: 'Present when hasAnalysis is false: how to get one.' }),
    }),
  })
  .openapi('CaseAnalysisRead');

const route = (auth: MiddlewareHandler<AppEnv>, gate: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getCaseAnalysis',
    method: 'get',
    path: '/cases/{id}/analysis',
    tags: ['Analysis'],
    summary: 'The stored analysis of a case',
    description: `Price: ${describePrice('analysisRead')} Charged only when an analysis is returned. Free tier: 403 API_TIER_NOT_ALLOWED, not charged. A research aid, not legal advice.`,
    security: keyedSecurity,
    middleware: [auth, gate] as const,
    request: { params: CaseIdParam },
    responses: {
      200: { description: 'The stored analysis, or hasAnalysis false with a note.', content: { 'application/json': { schema: Response } } },
      ...errorResponses(
        ...KEYED_ERRORS,
        'VALIDATION_ERROR',
        'CASE_NOT_FOUND',
        'CASE_RESTRICTED',
        'API_TIER_NOT_ALLOWED',
        'INSUFFICIENT_API_CREDITS',
      ),
    },
  });

export function registerGetCaseAnalysis(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  deps: AnalysisRouteDeps & PricedRouteDeps & { readonly watermark: Watermark },
): void {
  app.openapi(route(auth, requireEntitlement('aiAnalysis', deps.links)), async (c) => {
    const principal = principalOf(c);
    const account = billingAccountOf(principal);
    const view = (await lookupCase(deps.cases, c.req.valid('param').id)).found;
    const latest = await deps.requests.latestRun(view.caseId, account);
    const latestRun = latest && {
      runId: latest.runId,
      status: latest.status,
      failure: latest.failure?.message ?? null,
      failureCode: latest.failure?.code ?? null,
    };
    const stored = await deps.requests.stored(view.caseId);
    if (!stored) {
      return c.json(
        {
          success: true as const,
          data: { caseId: view.caseId, caseNumber: view.caseNumber, hasAnalysis: false as const },
          meta: {
            creditsCharged: 0,
            latestRun,
            note: `No analysis is stored for this case. Request one with POST ${deps.basePath}/cases/${encodeURIComponent(view.caseId)}/analyze, then read it here after 30 to 60 seconds.`,
          },
        },
        200,
      );
    }
    const result = await deps.admission.run({
      payer: principal,
      callId: c.get('callId'),
      endpoint: 'analysisRead',
      feature: 'aiAnalysis',
      work: async () => storedAnalysisOf(view, stored, deps.watermark, account),
    });
    const { value, charged } = admitted(c, result, deps.links);
    return c.json({ success: true as const, data: value, meta: { creditsCharged: charged, latestRun } }, 200);
  });
}
