/**
 * Verifying the webhooks the API sends. They follow the Standard Webhooks scheme
 * (https://www.standardwebhooks.com): `webhook-signature` holds one or more
 * space-separated `v1,<base64 HMAC-SHA256>` over `${webhook-id}.${webhook-timestamp}.${body}`
 * keyed with the bytes of the endpoint's `whsec_<base64>` secret. Several signatures appear
 * while a rotated secret is still honoured; any one that matches is enough. A timestamp
 * outside the tolerance is refused, so a captured delivery cannot be replayed later.
 * Web Crypto only, so the same code runs in Node, Deno, Bun, workers and browsers.
 */

import type { components } from './generated/schema.ts';

type Schemas = components['schemas'];

/**
 * What a delivery carries, and GET /events lists: one schema for both (the OpenAPI document's
 * `webhooks` section). `id` (`evt_…`) is the same on every delivery of the event: deduplicate on it.
 */
export interface WebhookEvent<T extends string = string, D extends object = Record<string, unknown>> {
  readonly id: string;
  readonly object: 'event';
  readonly type: T;
  readonly createdAt: string;
  readonly timestamp: string;
  readonly apiVersion: string;
  /** Whether it happened in live or in test mode (a crk_test key's call): only endpoints of that mode hear it. */
  readonly mode: 'live' | 'test';
  readonly data: D;
}

/** An analysis run ended: read it with `client.analysis.get(data.caseId)` (single) or the consolidated call again. */
export type AnalysisStoredEvent = Schemas['AnalysisStoredEvent'];
/** The run failed and its charge was given back. */
export type AnalysisFailedEvent = Schemas['AnalysisFailedEvent'];
/** A timeline job ended: read it with `client.timeline.get(data.requestId)`. */
export type TimelineCompletedEvent = Schemas['TimelineCompletedEvent'];
/** The live fetch failed and its charge was given back; `errorCode` is the job's `error.code`. */
export type TimelineFailedEvent = Schemas['TimelineFailedEvent'];

/** The ids an analysis event names. */
export type AnalysisEventData = AnalysisStoredEvent['data'];
/** The ids a timeline event names. */
export type TimelineEventData = TimelineCompletedEvent['data'];

/** Every event the API sends, generated from the document: `switch (event.type)` narrows `data`. */
export type CourtRecordsWebhookEvent = Schemas['Event'];

export type WebhookEventType = CourtRecordsWebhookEvent['type'];

export type WebhookVerificationReason =
  'MISSING_HEADERS' | 'INVALID_SECRET' | 'INVALID_TIMESTAMP' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'NO_MATCHING_SIGNATURE' | 'INVALID_PAYLOAD';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Header lookup that accepts a Fetch `Headers`, or a plain object (Node's `req.headers`), in any letter case. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookInput {
  /** The raw request body, exactly as received: re-serialised JSON does not verify. */
  readonly payload: string | Uint8Array;
  readonly headers: WebhookHeaders;
  /** The endpoint's secret, `whsec_<base64>`. */
  readonly secret: string;
  /** How far `webhook-timestamp` may be from now, either way. */
  readonly toleranceSeconds?: number;
  /** The current time (for tests); defaults to the clock. */
  readonly now?: Date;
}

const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.[0];
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function bytesBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares in time that does not depend on where the strings first differ. */
function sameSignature(given: string, expected: string): boolean {
  let difference = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= (given.charCodeAt(i) || 0) ^ expected.charCodeAt(i);
  return difference === 0;
}

/** `v1,<base64>` for one attempt: what the API sends, exposed for tests that play the sender. */
export async function signWebhook(input: { id: string; timestamp: number; payload: string | Uint8Array; secret: string }): Promise<string> {
  const key = base64Bytes(input.secret.startsWith(SECRET_PREFIX) ? input.secret.slice(SECRET_PREFIX.length) : '');
  if (!key || key.length === 0) throw new WebhookVerificationError('INVALID_SECRET', 'the secret is not whsec_ followed by base64');
  const body = typeof input.payload === 'string' ? input.payload : new TextDecoder().decode(input.payload);
  const hmac = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(`${input.id}.${String(input.timestamp)}.${body}`));
  return `v1,${bytesBase64(new Uint8Array(mac))}`;
}

/**
 * Checks a delivery's signature and timestamp and returns its parsed, typed event; throws
 * `WebhookVerificationError` (with a `reason`) when it must not be trusted. Deduplicate on
 * `webhook-id`: a delivery retried after a lost answer carries the same id.
 */
export async function verifyWebhook<E extends WebhookEvent<string, object> = CourtRecordsWebhookEvent>(
  input: VerifyWebhookInput,
): Promise<E> {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('MISSING_HEADERS', 'webhook-id, webhook-timestamp and webhook-signature are required');
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('INVALID_TIMESTAMP', 'webhook-timestamp is not whole seconds');
  const sentAt = Number(timestamp);
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - sentAt) > (input.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('TIMESTAMP_OUT_OF_TOLERANCE', 'webhook-timestamp is too far from now (a replay, or a skewed clock)');
  }
  const expected = await signWebhook({ id, timestamp: sentAt, payload: input.payload, secret: input.secret });
  // Every candidate is compared (no early exit), so timing does not reveal which one matched.
  let matched = false;
  for (const candidate of signatures.split(' ')) {
    if (candidate.startsWith('v1,') && sameSignature(candidate, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('NO_MATCHING_SIGNATURE', 'no v1 signature matches this secret and body');
  const body = typeof input.payload === 'string' ? input.payload : new TextDecoder().decode(input.payload);
  try {
    return JSON.parse(body) as E;
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'the signed body is not JSON');
  }
}
