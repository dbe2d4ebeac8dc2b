/**
 * The litigation check routes, registered together: POST /party/screen and POST
 * /party/screen/batch, over the one application use case and its dependencies.
 */
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerPostPartyScreen } from './post-party-screen.ts';
import { registerPostPartyScreenBatch } from './post-party-screen-batch.ts';
import type { PartyRouteDeps } from './party-route-support.ts';

export type { PartyRouteDeps } from './party-route-support.ts';

export function registerPartyRoutes(
  api: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: PartyRouteDeps,
): void {
  registerPostPartyScreen(api, auth, idempotency, deps);
  registerPostPartyScreenBatch(api, auth, idempotency, deps);
}
