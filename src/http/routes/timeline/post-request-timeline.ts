/**
 * POST /request-timeline: a case's hearings and orders timeline, as a job. Without
 * refresh the job is answered at once from the eCourts record we hold (202, completed,
 * free). With refresh true it is a live fetch from the court portal: 202 with the job
 * running, 50 credits reserved at admission and charged when the fetch starts, given back
 * if it fails; collect it with GET /request-timeline/:requestId. Checks run in this
 * order: the Free tier (before any idempotency record), the body, the case, whether it can
 * be fetched live at all and whether live fetches are configured, then the daily cap and
 * the balance inside the admitting transaction. Every refusal leaves nothing charged.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { entitlement } from '../../../application/admission/decision.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { CaseReference } from '../../../application/timeline/timeline-requests.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { normaliseCnr } from '../../../domain/timeline/cnr.ts';
import { recordCharge, refusalError, type RefusalLinks } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { IdempotencyKeyHeader, KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { jobAnswer, type TimelineRouteDeps } from './timeline-route-support.ts';
import { TimelineJobSchema } from './timeline-schemas.ts';

/** When a live fetch is worth collecting: the portal usually answers within seconds. */
const LIVE_RETRY_AFTER_SECONDS = 5;

const Body = z
  .object({
    caseId: z.string().trim().min(1).max(300).optional().openapi({
      description: 'A case id (e.g. hc-GAHC010225502018) or a case number in any printed form (e.g. AB/3142/2018). Give this or cnr.',
      example: 'hc-GAHC010225502018',
    }),
    cnr: z
      .string()
      // The grouped form is 18 characters; room for spaces around it, no more.
      .max(30)
      .refine(
        (v) => normaliseCnr(v) !== null,
        'not a CNR: 4 letters and 12 digits, compact or grouped (GAHC010225502018, GAHC01-022550-2018)',
      )
      .optional()
      .openapi({
        description:
          'The eCourts CNR, compact or grouped. Give this or caseId. A CNR we do not hold can still be fetched live (refresh true).',
        example: 'GAHC010225502018',
      }),
    refresh: z
      .boolean()
      .optional()
      .openapi({
        description: `Default false: answer from the record we hold, free. True: fetch the record live from the court portal; ${describePrice('requestTimeline')} Not on the Free tier.`,
      }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.caseId === undefined) === (body.cnr === undefined))
      ctx.addIssue({ code: 'custom', message: 'give exactly one of caseId or cnr' });
  })
  .openapi('TimelineRequest', {
    examples: [{ caseId: 'hc-GAHC010225502018' }, { cnr: 'GAHC01-022550-2018', refresh: true }, { caseId: 'AB/3142/2018', refresh: false }],
  });

const Accepted = z
  .object({
    success: z.literal(true),
    data: TimelineJobSchema,
    meta: z.object({
      creditsCharged: z.number().int().openapi({
        description:
          'What the call costs: 0 from the store; for a live fetch, held at admission, charged when the fetch starts and given back if it fails (data.charge says where it stands).',
      }),
      retryAfterSeconds: z.number().int().optional().openapi({ description: 'For a running job: when to read it.' }),
    }),
  })
  .openapi('TimelineRequestAccepted');

/** The spec's Free-tier refusal of refresh true, before any idempotency record, work or charge. */
const liveFetchGate =
  (links: RefusalLinks): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const denied = entitlement(principalOf(c).tier, 'liveFetch');
    if (denied) {
      const body: unknown = await c.req.json().catch(() => undefined);
      if (typeof body === 'object' && body !== null && (body as { refresh?: unknown }).refresh === true) throw refusalError(denied, links);
    }
    await next();
  };

const route = (auth: MiddlewareHandler<AppEnv>, gate: MiddlewareHandler<AppEnv>, idempotency: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'requestTimeline',
    method: 'post',
    path: '/request-timeline',
    tags: ['Timeline'],
    summary: 'Request a case’s hearings and orders timeline',
    description: `Price: free from the stored record; ${describePrice('requestTimeline')} Both answer 202 with a job: completed at once from the store, or running for a live fetch (read it with GET /request-timeline/{requestId}). A live fetch stores the latest order document the portal serves, readable with GET /cases/{id}/pdf. Free tier: refresh true is 403 LIVE_FETCH_NOT_ALLOWED; the daily live-fetch cap is 429 LIVE_FETCH_LIMIT_REACHED with Retry-After until 00:00 UTC. Supreme Court judgments and tribunal records have no registry timeline and cannot be fetched live.`,
    security: keyedSecurity,
    // Entitlement before idempotency: a refused tier must not leave a record behind.
    middleware: [auth, gate, idempotency] as const,
    request: {
      body: { required: true, content: { 'application/json': { schema: Body } } },
      headers: z.object({ 'idempotency-key': IdempotencyKeyHeader }),
    },
    responses: {
      202: {
        description: 'The job: completed (from the store) or running (a live fetch).',
        headers: {
          'Retry-After': { schema: { type: 'string' }, description: 'For a running job: seconds until it is worth reading.' },
          Location: { schema: { type: 'string' }, description: 'The job’s status URL.' },
        },
        content: { 'application/json': { schema: Accepted } },
      },
      ...errorResponses(
        ...KEYED_ERRORS,
        ...BODY_ERRORS,
        'LIVE_FETCH_NOT_ALLOWED',
        'CASE_NOT_FOUND',
        'CASE_RESTRICTED',
        'LIVE_FETCH_LIMIT_REACHED',
        'INSUFFICIENT_API_CREDITS',
        'UPSTREAM_UNAVAILABLE',
        'IDEMPOTENCY_KEY_INVALID',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_IN_PROGRESS',
        'WORKFLOW_ENGINE_UNAVAILABLE',
      ),
    },
  });

export function registerPostRequestTimeline(
  app: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: TimelineRouteDeps,
): void {
  app.openapi(route(auth, liveFetchGate(deps), idempotency), async (c) => {
    const principal = principalOf(c);
    const account = billingAccountOf(principal);
    const body = c.req.valid('json');
    const reference: CaseReference = body.cnr === undefined ? { caseId: body.caseId ?? '' } : { cnr: normaliseCnr(body.cnr) ?? body.cnr };
    const result = await deps.requests.request({
      reference,
      refresh: body.refresh ?? false,
      accountId: account,
      dailyCap: principal.limits.liveFetchesPerDay,
      callId: c.get('callId'),
    });
    if (result.outcome === 'refused') throw refusalError(result.refusal, deps);
    const job = result.outcome === 'answered' ? result.job : await deps.requests.job(result.requestId, account);
    if (!job) throw new Error('an admitted timeline job could not be read back');
    const data = await jobAnswer(job, deps);
    c.header('Location', data.statusUrl);
    if (result.outcome === 'answered') {
      recordCharge(c, 0);
      return c.json({ success: true as const, data, meta: { creditsCharged: 0 } }, 202);
    }
    // As for analysis admissions: the audit row carries the price; a failed fetch's reversal is in the ledger.
    recordCharge(c, result.held, result.balance);
    c.header('Retry-After', String(LIVE_RETRY_AFTER_SECONDS));
    return c.json(
      { success: true as const, data, meta: { creditsCharged: result.held, retryAfterSeconds: LIVE_RETRY_AFTER_SECONDS } },
      202,
    );
  });
}
