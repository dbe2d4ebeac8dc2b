/**
 * Settings derived from the configuration that the API process and a worker apart must
 * read alike: one function each, so the two cannot drift (a worker that sent webhooks under
 * other rules, or held live fetches for another time, would break what the API promised).
 */
import type { Config } from '../config.ts';
import { isLoopbackHost, type AddressPolicy } from '../domain/network/address-class.ts';
import type { FairDeliveryLimits } from '../domain/webhook/fair-delivery.ts';
import type { WorkflowWatchdogBounds } from '../wiring.ts';

export function watchdogBounds(config: Config): WorkflowWatchdogBounds {
  return { startBoundMs: config.WORKFLOW_START_BOUND_SECONDS * 1000, maxRunMs: config.WORKFLOW_RUN_MAX_SECONDS * 1000 };
}

/**
 * The development setting for outbound requests (http endpoints, loopback receivers). A
 * developer's receiver on this machine is http on loopback; a deployment (DATABASE_URL set)
 * or a service reachable from other machines (HOST not loopback) refuses both unless told,
 * and loadConfig refuses being told so off loopback.
 */
export function insecureUrlsAllowed(config: Config): boolean {
  return config.WEBHOOK_ALLOW_INSECURE_URLS ?? (config.DATABASE_URL === undefined && isLoopbackHost(config.HOST));
}

/** Where outbound requests (webhook deliveries, remote document fetches) may connect. */
export function outboundAddresses(config: Config): AddressPolicy {
  return insecureUrlsAllowed(config) ? 'public-or-loopback' : 'public';
}

/** How webhook attempts are sent, wherever they run. */
export function webhookSending(config: Config) {
  return {
    allowInsecureUrls: insecureUrlsAllowed(config),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
    disabling: { afterFailures: config.WEBHOOK_DISABLE_AFTER_FAILURES, afterMs: config.WEBHOOK_DISABLE_AFTER_MS },
    maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
    userAgent: `court-records-webhooks/${config.APP_VERSION}`,
  };
}

/** The fairness bounds between accounts' deliveries (domain/webhook/fair-delivery.ts). */
export function webhookFairness(config: Config): FairDeliveryLimits {
  return { perAccountInFlight: config.WEBHOOK_ACCOUNT_IN_FLIGHT, pendingCap: config.WEBHOOK_ACCOUNT_PENDING_CAP };
}
