/**
 * Settings derived from the configuration that the API process and a worker apart must
 * read alike: one function each, so the two cannot drift (a worker that sent webhooks under
 * other rules, or held live fetches for another time, would break what the API promised).
 */
import type { Config } from '../config.ts';
import type { WorkflowWatchdogBounds } from '../wiring.ts';

export function watchdogBounds(config: Config): WorkflowWatchdogBounds {
  return { startBoundMs: config.WORKFLOW_START_BOUND_SECONDS * 1000, maxRunMs: config.WORKFLOW_RUN_MAX_SECONDS * 1000 };
}

/** How webhook attempts are sent, wherever they run. */
export function webhookSending(config: Config) {
  return {
    // A developer's receiver on this machine is http on loopback; a deployment (DATABASE_URL set) refuses both unless told.
    allowInsecureUrls: config.WEBHOOK_ALLOW_INSECURE_URLS ?? config.DATABASE_URL === undefined,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
    userAgent: `court-records-webhooks/${config.APP_VERSION}`,
  };
}
