/**
 * GET /request-timeline/:requestId: a timeline job's status, its timeline once completed
 * and its error once failed (with the charge given back). Free. A job is visible to the
 * billing account that requested it for seven days; an unknown id, an expired job and
 * another account's job all answer 404 JOB_NOT_FOUND alike, so ids reveal nothing.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { recordCharge } from '../../admission.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { jobAnswer, type TimelineRouteDeps } from './timeline-route-support.ts';
import { TimelineJobSchema } from './timeline-schemas.ts';

/** While a live fetch runs: when to look again. */
const RUNNING_RETRY_AFTER_SECONDS = 2;

const RequestIdParam = z.object({
  requestId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'requestId', in: 'path' }, example: 'tlr_1f0c6a52-5a0e-4c34-9a57-3f3b1c2d9e10' }),
});

const Response = z
  .object({ success: z.literal(true), data: TimelineJobSchema, meta: z.object({ creditsCharged: z.literal(0) }) })
  .openapi('TimelineJobRead');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getTimelineRequest',
    method: 'get',
    path: '/request-timeline/{requestId}',
    tags: ['Timeline'],
    summary: 'A timeline request’s status and result',
    description:
      'Free. running, then completed with the timeline or failed with an error (a failed live fetch’s charge is given back). A job expires 7 days after it was requested; unknown, expired and other accounts’ jobs are 404 JOB_NOT_FOUND.',
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { params: RequestIdParam },
    responses: {
      200: {
        description: 'The job.',
        headers: { 'Retry-After': { schema: { type: 'string' }, description: 'While running: seconds until it is worth reading again.' } },
        content: { 'application/json': { schema: Response } },
      },
      ...errorResponses(...KEYED_ERRORS, 'VALIDATION_ERROR', 'JOB_NOT_FOUND', 'UPSTREAM_UNAVAILABLE'),
    },
  });

export function registerGetRequestTimeline(app: App, auth: MiddlewareHandler<AppEnv>, deps: TimelineRouteDeps): void {
  app.openapi(route(auth), async (c) => {
    const job = await deps.requests.job(c.req.valid('param').requestId, billingAccountOf(principalOf(c)));
    if (!job) throw new ApiError('JOB_NOT_FOUND');
    if (job.status === 'running') c.header('Retry-After', String(RUNNING_RETRY_AFTER_SECONDS));
    recordCharge(c, 0);
    return c.json({ success: true as const, data: await jobAnswer(job, deps), meta: { creditsCharged: 0 as const } }, 200);
  });
}
