/**
 * An account's webhook endpoints, one stream per account (`webhooks-<accountId>`): the
 * bound on endpoints per account is then a rule of one aggregate, and two registrations
 * racing for the last slot conflict on the stream version instead of both getting it.
 * Secrets arrive sealed (the application encrypts them); the domain only keeps what it
 * is given. A rotation keeps the previous secret signing beside the new one for a grace
 * window (the read model holds both), so a receiver can switch without losing deliveries.
 */
import type { KeyMode } from '../api-key/api-key.ts';
import { accept, assertNever, refuse, type Decision } from '../decider.ts';
import { addressAdmitted, classifyAddress } from '../network/address-class.ts';

export const WEBHOOK_EVENT_TYPES = ['analysis.stored', 'analysis.failed', 'timeline.completed', 'timeline.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
export const MAX_URL_LENGTH = 2048;
export const SECRET_ROTATION_GRACE_SECONDS = 24 * 60 * 60;

export const webhookStreamId = (accountId: string): string => `webhooks-${accountId}`;

export type UrlRefusal = 'malformed' | 'scheme' | 'credentials' | 'non-public-address' | 'too-long';

/**
 * Whether a URL may be registered. https to a public address only, unless `allowInsecure`
 * (the development setting, on only while the service listens on loopback) also admits http
 * and loopback: never private, link-local or other non-public ranges. A host name is
 * checked again, by every address it resolves to, at each delivery's connect.
 */
export function checkEndpointUrl(text: string, allowInsecure: boolean): { ok: true; url: string } | { ok: false; reason: UrlRefusal } {
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: 'too-long' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { ok: false, reason: 'scheme' };
  if (url.username || url.password) return { ok: false, reason: 'credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const named = classifyAddress(host) === 'invalid';
  const localName = host === 'localhost' || host.endsWith('.localhost');
  const refused = named ? localName && !allowInsecure : !addressAdmitted(host, allowInsecure ? 'public-or-loopback' : 'public');
  if (refused) return { ok: false, reason: 'non-public-address' };
  url.hash = '';
  return { ok: true, url: url.toString() };
}

export interface SealedSecret {
  /** The secret encrypted at rest; only the delivery activity opens it. */
  readonly sealed: string;
  /** `whsec_` and its last 4 characters, for lists. */
  readonly hint: string;
}

export type WebhookEndpointsEvent =
  | {
      type: 'WebhookEndpointRegistered';
      data: {
        accountId: string;
        endpointId: string;
        url: string;
        eventTypes: WebhookEventType[];
        /** Which mode's events it hears; absent on endpoints registered before test mode had webhooks (live). */
        mode?: KeyMode;
        secret: SealedSecret;
        registeredAt: string;
      };
    }
  | {
      type: 'WebhookSecretRotated';
      data: { accountId: string; endpointId: string; secret: SealedSecret; previousValidUntil: string; rotatedAt: string };
    }
  | { type: 'WebhookEndpointRemoved'; data: { accountId: string; endpointId: string; removedAt: string } };

export type WebhookEndpointsCommand =
  | {
      type: 'RegisterEndpoint';
      accountId: string;
      endpointId: string;
      url: string;
      eventTypes: readonly WebhookEventType[];
      mode: KeyMode;
      secret: SealedSecret;
      allowInsecureUrls: boolean;
      at: string;
    }
  | { type: 'RotateSecret'; accountId: string; endpointId: string; secret: SealedSecret; at: string }
  | { type: 'RemoveEndpoint'; accountId: string; endpointId: string; at: string };

export type WebhookEndpointsError =
  | { tag: 'EndpointLimit'; max: number }
  | { tag: 'EndpointExists' }
  | { tag: 'EndpointNotFound' }
  | { tag: 'InvalidUrl'; reason: UrlRefusal }
  | { tag: 'NoEventTypes' };

/** What the rules need: which endpoints the account has (their details live in the read model). */
export interface WebhookEndpointsState {
  readonly endpoints: ReadonlySet<string>;
}

export const initialWebhookEndpoints: WebhookEndpointsState = { endpoints: new Set() };

export function decideWebhookEndpoints(
  command: WebhookEndpointsCommand,
  state: WebhookEndpointsState,
): Decision<WebhookEndpointsEvent, WebhookEndpointsError> {
  switch (command.type) {
    case 'RegisterEndpoint': {
      if (state.endpoints.has(command.endpointId)) return refuse({ tag: 'EndpointExists' });
      if (state.endpoints.size >= MAX_ENDPOINTS_PER_ACCOUNT) return refuse({ tag: 'EndpointLimit', max: MAX_ENDPOINTS_PER_ACCOUNT });
      const checked = checkEndpointUrl(command.url, command.allowInsecureUrls);
      if (!checked.ok) return refuse({ tag: 'InvalidUrl', reason: checked.reason });
      const eventTypes = WEBHOOK_EVENT_TYPES.filter((t) => command.eventTypes.includes(t));
      if (eventTypes.length === 0) return refuse({ tag: 'NoEventTypes' });
      return accept({
        type: 'WebhookEndpointRegistered',
        data: {
          accountId: command.accountId,
          endpointId: command.endpointId,
          url: checked.url,
          eventTypes,
          mode: command.mode,
          secret: command.secret,
          registeredAt: command.at,
        },
      });
    }
    case 'RotateSecret':
      if (!state.endpoints.has(command.endpointId)) return refuse({ tag: 'EndpointNotFound' });
      return accept({
        type: 'WebhookSecretRotated',
        data: {
          accountId: command.accountId,
          endpointId: command.endpointId,
          secret: command.secret,
          previousValidUntil: new Date(Date.parse(command.at) + SECRET_ROTATION_GRACE_SECONDS * 1000).toISOString(),
          rotatedAt: command.at,
        },
      });
    case 'RemoveEndpoint':
      if (!state.endpoints.has(command.endpointId)) return refuse({ tag: 'EndpointNotFound' });
      return accept({
        type: 'WebhookEndpointRemoved',
        data: { accountId: command.accountId, endpointId: command.endpointId, removedAt: command.at },
      });
    default:
      return assertNever(command);
  }
}

export function evolveWebhookEndpoints(state: WebhookEndpointsState, event: WebhookEndpointsEvent): WebhookEndpointsState {
  switch (event.type) {
    case 'WebhookEndpointRegistered':
      return { endpoints: new Set(state.endpoints).add(event.data.endpointId) };
    case 'WebhookSecretRotated':
      return state;
    case 'WebhookEndpointRemoved': {
      const endpoints = new Set(state.endpoints);
      endpoints.delete(event.data.endpointId);
      return { endpoints };
    }
    default:
      return assertNever(event);
  }
}

/**
 * An event: a fact the account may subscribe to, as GET /events lists it and as a webhook
 * delivery's body carries it (one schema for both). Ids to fetch the result with, never
 * names or addresses.
 */
export interface WebhookPayload {
  /** `evt_…`: the same on every delivery of the fact and in GET /events, so receivers deduplicate on it. */
  readonly id: string;
  readonly object: 'event';
  readonly type: WebhookEventType;
  readonly createdAt: string;
  /** Same as createdAt: the name deliveries carried it under before events existed. */
  readonly timestamp: string;
  /** The shape `data` was written in (EVENT_API_VERSION when it was recorded). */
  readonly apiVersion: string;
  /** Whether the fact happened in live or in test mode. */
  readonly mode: KeyMode;
  readonly data: Readonly<Record<string, string | number | null>>;
}

/** The version of the event shapes the service writes now; an event keeps the one it was recorded with. */
export const EVENT_API_VERSION = '2026-11-29';

/**
 * The data of a test event ("send test event"): the shape of the type's real events, with ids
 * that name nothing, so a receiver can be exercised without a real fact.
 */
export function sampleEventData(type: WebhookEventType): WebhookPayload['data'] {
  switch (type) {
    case 'analysis.stored':
    case 'analysis.failed':
      return { runId: 'run_test', kind: 'single', caseId: 'SC-TEST-0001' };
    case 'timeline.completed':
      return { requestId: 'req_test', caseId: 'SC-TEST-0001' };
    case 'timeline.failed':
      return { requestId: 'req_test', caseId: 'SC-TEST-0001', errorCode: 'UPSTREAM_UNAVAILABLE' };
    default:
      return assertNever(type);
  }
}
