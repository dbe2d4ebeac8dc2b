/**
 * GET /cases/:id: one case by document id or case number, AI analysis excluded. 1 credit.
 * A restricted case is a 403 and is never shown; a case number shared by several documents
 * answers with the preferred one (see case-reader.ts) and lists the others in
 * meta.otherDocuments. The tier's daily cap on distinct cases read applies; re-reading a
 * case already read today does not count against it.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { CaseReader } from '../../../application/cases/case-reader.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { admitted, type PricedRouteDeps } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { caseBody } from './case-body-support.ts';
import { CaseIdParam, lookupCase } from './case-support.ts';
import { CaseSchema, caseFieldsOf } from './case-schemas.ts';

export interface CaseRouteDeps extends PricedRouteDeps {
  readonly cases: CaseReader;
  /** Marks prose with the billing account's watermark, as the UTF-8 bytes of its JSON string (see marked-texts.ts). */
  readonly markedJson: (accountId: string, text: string) => Promise<Uint8Array>;
}

const Sibling = z.object({ caseId: z.string(), caseNumber: z.string(), courtName: z.string(), decisionDate: z.string().nullable() });

const CaseResponse = z
  .object({
    success: z.literal(true),
    data: CaseSchema,
    meta: z.object({
      otherDocuments: z
        .array(Sibling)
        .openapi({ description: 'Other documents filed under the same case number (at most 20); fetch them by caseId.' }),
    }),
  })
  .openapi('CaseDetail');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getCase',
    method: 'get',
    path: '/cases/{id}',
    tags: ['Cases'],
    summary: 'One case',
    description: `Price: ${describePrice('caseDetail')} Not charged when it fails. AI analysis is excluded: use hasAnalysis and GET /cases/:id/analysis.`,
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { params: CaseIdParam },
    responses: {
      200: { description: 'The case.', content: { 'application/json': { schema: CaseResponse } } },
      ...errorResponses(
        ...KEYED_ERRORS,
        'VALIDATION_ERROR',
        'CASE_NOT_FOUND',
        'CASE_RESTRICTED',
        'DISTINCT_CASES_LIMIT_REACHED',
        'INSUFFICIENT_API_CREDITS',
      ),
    },
  });

export function registerGetCase(app: App, auth: MiddlewareHandler<AppEnv>, deps: CaseRouteDeps): void {
  app.openapi(route(auth), async (c) => {
    const principal = principalOf(c);
    const account = billingAccountOf(principal);
    const { found, siblings } = await lookupCase(deps.cases, c.req.valid('param').id);
    const mark = (text: string | null) => (text === null ? null : deps.markedJson(account, text));
    const result = await deps.admission.run({
      payer: principal,
      callId: c.get('callId'),
      endpoint: 'caseDetail',
      cap: { cap: 'distinctCasesPerDay', caseId: found.caseId },
      work: async () => caseBody(caseFieldsOf(found), await mark(found.summary), await mark(found.text), { otherDocuments: siblings }),
    });
    const { value } = admitted(c, result, deps.links);
    // The body is the documented CaseDetail, written as bytes (case-body-support.ts), which the typed JSON helper cannot express.
    return c.body(value, 200, { 'Content-Type': 'application/json' }) as never;
  });
}
