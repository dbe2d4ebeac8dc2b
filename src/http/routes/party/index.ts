/**
 * The litigation check routes, registered together: POST /party/screen and POST
 * /party/screen/batch, over the one application use case and its dependencies.
 */
import type { MiddlewareHandler } from 'hono';
import type { LitigationChecks } from '../../../application/screening/litigation-checks.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerPostPartyScreen } from './post-party-screen.ts';
import { registerPostPartyScreenBatch } from './post-party-screen-batch.ts';

export interface PartyRouteDeps {
  readonly checks: LitigationChecks;
  readonly clock: Clock;
  /** Carried in every 402 body. */
  readonly topUpUrl: string;
  /** Carried in the Free tier's API_TIER_NOT_ALLOWED body. */
  readonly upgradeUrl: string;
}

export function registerPartyRoutes(
  api: App,
  auth: MiddlewareHandler<AppEnv>,
  idempotency: MiddlewareHandler<AppEnv>,
  deps: PartyRouteDeps,
): void {
  registerPostPartyScreen(api, auth, idempotency, deps);
  registerPostPartyScreenBatch(api, auth, idempotency, deps);
}
