/**
 * Idempotency-Key on the credit-charging POST routes, per the spec's seven rules. The
 * header's format is checked before the body is read (`checkIdempotencyKeyFormat`, placed
 * ahead of the body middleware); after authentication, `idempotent` replays a stored
 * success verbatim (Idempotency-Replayed: true, handler not run, nothing charged), refuses
 * a reused key or one in flight with 409, and never stores an error, nor an answer marked
 * Cache-Control: no-store (an error in the body under 200, or a degraded search page that
 * was not charged): a retry with the same key runs again.
 *
 * While the handler runs, the call's lease is renewed; a retry after its instance died
 * takes the call over once the lease lapses and runs under the dead call's id (`callId`),
 * so the charges and holds the dead call made are found, not made twice. A stored reply and
 * the call's audit row commit together.
 */
import type { MiddlewareHandler } from 'hono';
import type { AuditRecorder } from '../../application/audit/audit-recorder.ts';
import type { IdempotencyService } from '../../application/idempotency/idempotency-service.ts';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../domain/idempotency/idempotency.ts';
import { ApiError } from '../api-error.ts';
import type { AppEnv } from '../env.ts';
import { principalOf } from './require-api-key.ts';

const HEADER = 'Idempotency-Key';
/** Response headers that belong to the stored response (the request id is per call). */
const REPLAYED_HEADERS = ['content-type', 'location'];

export const checkIdempotencyKeyFormat: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header(HEADER);
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) throw new ApiError('IDEMPOTENCY_KEY_INVALID');
  await next();
};

/** Same method, path and JSON meaning (key order and whitespace aside) give the same print. */
export async function requestFingerprint(method: string, path: string, bodyText: string): Promise<string> {
  let body = bodyText;
  try {
    body = bodyText.trim() === '' ? '' : canonicalJson(JSON.parse(bodyText));
  } catch {
    // Unparseable bodies never get this far (MALFORMED_JSON); hash the text as it came.
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${method} ${path}\n${body}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Renews the lease every `everyMs` until stopped or until the record is no longer ours. A
 * failed renewal (the database briefly gone) is retried at the next tick; should the lease
 * lapse meanwhile, a retry may take the call over, which re-keys nothing: effects are keyed
 * by the call id.
 */
function keepLease(renew: () => Promise<boolean>, everyMs: number): () => void {
  let held = true;
  const timer = setInterval(() => {
    if (!held) return;
    renew().then(
      (still) => (held = still),
      () => undefined,
    );
  }, everyMs);
  return () => {
    held = false;
    clearInterval(timer);
  };
}

export function idempotent(service: IdempotencyService, audit: AuditRecorder): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header(HEADER);
    if (key === undefined) {
      await next();
      return;
    }
    const { keyId } = principalOf(c);
    const requestId = c.get('requestId');
    const print = await requestFingerprint(c.req.method, c.req.path, await c.req.text());
    const outcome = await service.begin(keyId, key, print, requestId);
    if ('tag' in outcome) {
      if (outcome.tag === 'InProgress') throw new ApiError('IDEMPOTENCY_IN_PROGRESS');
      if (outcome.tag === 'KeyReused') throw new ApiError('IDEMPOTENCY_KEY_REUSED');
      throw new Error(`unexpected idempotency refusal at start: ${outcome.tag}`);
    }
    if (outcome.kind === 'replay') {
      const { status, headers, body } = outcome.response;
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
      c.header('Idempotency-Replayed', 'true');
      return c.body(body, status as 200);
    }
    c.set('callId', outcome.callId);
    const release = keepLease(() => service.renew(keyId, key, requestId), service.renewEveryMs);
    try {
      await next();
    } catch (error) {
      release();
      await service.abandon(keyId, key, requestId);
      throw error;
    }
    release();
    if (c.res.status >= 400 || /\bno-store\b/i.test(c.res.headers.get('cache-control') ?? '')) {
      await service.abandon(keyId, key, requestId);
      return;
    }
    const headers = Object.fromEntries(
      REPLAYED_HEADERS.flatMap((name) => {
        const value = c.res.headers.get(name);
        return value === null ? [] : [[name, value]];
      }),
    );
    const body = await c.res.clone().text();
    // The audit row commits with the stored reply: should this instance die before the row's
    // own batch, a retry answered from the record would leave the call's charge unaudited.
    const entry = c.get('auditEntry')?.(c.res.status);
    const stored = await service.complete(
      keyId,
      key,
      requestId,
      { status: c.res.status, headers, body },
      entry && ((trx) => audit.recordIn(trx, entry)),
    );
    if (stored && entry) c.set('audited', true);
  };
}
