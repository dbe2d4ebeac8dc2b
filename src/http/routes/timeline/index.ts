/**
 * The timeline request routes, registered together: POST /request-timeline (a job
 * answered from the store, or a live fetch from the court portal) and GET
 * /request-timeline/:requestId (the job's status and its timeline).
 */
import type { MiddlewareHandler } from 'hono';
import type { TimelineRequests } from '../../../application/timeline/timeline-requests.ts';
import type { DocumentStorage } from '../../../ports/document-storage.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerGetRequestTimeline } from './get-request-timeline.ts';
import { registerPostRequestTimeline } from './post-request-timeline.ts';

export interface TimelineRouteDeps {
  readonly requests: TimelineRequests;
  /** Where fetched order documents are stored, to say whether GET /cases/:id/pdf has one. */
  readonly documents: DocumentStorage;
  /** Carried in every 402 body. */
  readonly topUpUrl: string;
  /** Carried in the Free tier's LIVE_FETCH_NOT_ALLOWED body. */
  readonly upgradeUrl: string;
  /** The API root path, for the status links in answers. */
  readonly basePath: string;
}

export function registerTimelineRoutes(
  api: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: TimelineRouteDeps,
): void {
  registerPostRequestTimeline(api, auth, idempotency, deps);
  registerGetRequestTimeline(api, auth, deps);
}
