/**
 * The timeline request routes, registered together: POST /request-timeline (a job
 * answered from the store, or a live fetch from the court portal) and GET
 * /request-timeline/:requestId (the job's status and its timeline).
 */
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerGetRequestTimeline } from './get-request-timeline.ts';
import { registerPostRequestTimeline } from './post-request-timeline.ts';
import type { TimelineRouteDeps } from './timeline-route-support.ts';

export type { TimelineRouteDeps } from './timeline-route-support.ts';

export function registerTimelineRoutes(
  api: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: TimelineRouteDeps,
): void {
  registerPostRequestTimeline(api, auth, idempotency, deps);
  registerGetRequestTimeline(api, auth, deps);
}
