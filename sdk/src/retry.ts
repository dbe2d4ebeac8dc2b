/**
 * The fetch every SDK call goes through. A POST gets an Idempotency-Key before its first
 * attempt (unless the caller set one), and every retry sends the same key, so a retried
 * charged call is answered from the server's record of the first and charged once. Retried:
 * network failures and per-attempt timeouts, 408, 500, 502, 503, 504, 409
 * IDEMPOTENCY_IN_PROGRESS (the first attempt is still running), and 429 when the server
 * says when to come back. A Retry-After is honoured exactly; when it asks for longer than
 * `maxDelayMs`, the answer is returned to the caller instead of waiting (a daily cap).
 *
 * Redirects are followed here, not by fetch: a hop to another origin drops X-API-Key,
 * Authorization and Cookie, so a redirect can never hand the key to a host the caller did
 * not name (fetch itself keeps custom headers across origins).
 */
import { CourtRecordsConnectionError, retryAfterSeconds } from './errors.ts';

export interface RetryPolicy {
  /** Attempts after the first. */
  readonly maxRetries: number;
  /** First backoff step; doubles per attempt, with jitter. */
  readonly baseDelayMs: number;
  /** The longest single wait, Retry-After included. */
  readonly maxDelayMs: number;
  /** Per attempt; a timed-out attempt is retried like a dropped connection. */
  readonly timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, timeoutMs: 60_000 };

/** What the retry loop needs from the world, injectable so tests control time and randomness. */
export interface RetryEnvironment {
  readonly fetch: (request: Request) => Promise<Response>;
  /** Waits `ms`; a fired `signal` ends the wait early (the caller then sees the abort). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
  readonly idempotencyKey: () => string;
}

export const defaultRetryEnvironment: RetryEnvironment = {
  fetch: (request) => globalThis.fetch(request),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
  random: Math.random,
  now: Date.now,
  idempotencyKey: () => `sdk-${crypto.randomUUID()}`,
};

/** One call's departures from the policy (the per-call options). */
export type AttemptOverrides = Partial<Pick<RetryPolicy, 'maxRetries' | 'timeoutMs'>>;

const RETRIED_STATUSES = new Set([408, 500, 502, 503, 504]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Headers that identify the caller: never sent to an origin other than the one the caller named. */
const CREDENTIAL_HEADERS = ['x-api-key', 'authorization', 'cookie'];

/** How long to wait before retrying this answer, or undefined when it is final. */
async function retryDelayFor(response: Response, backoffMs: number, now: number): Promise<number | undefined> {
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'), now);
  if (response.status === 429) return retryAfter === undefined ? undefined : retryAfter * 1000;
  if (response.status === 409) {
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { code?: unknown } | undefined;
    return body?.code === 'IDEMPOTENCY_IN_PROGRESS' ? (retryAfter === undefined ? backoffMs : retryAfter * 1000) : undefined;
  }
  if (!RETRIED_STATUSES.has(response.status)) return undefined;
  return retryAfter === undefined ? backoffMs : retryAfter * 1000;
}

export function resilientFetch(
  policy: RetryPolicy,
  env: RetryEnvironment,
): (request: Request, overrides?: AttemptOverrides) => Promise<Response> {
  return async (input, overrides = {}) => {
    const request =
      input.method === 'POST' && !input.headers.has('idempotency-key') ? withHeader(input, 'Idempotency-Key', env.idempotencyKey()) : input;
    const maxRetries = overrides.maxRetries ?? policy.maxRetries;
    const timeoutMs = overrides.timeoutMs ?? policy.timeoutMs;
    const idempotencyKey = request.headers.get('idempotency-key') ?? undefined;
    for (let attempt = 0; ; attempt++) {
      const backoffMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + env.random() / 2);
      const last = attempt >= maxRetries;
      const signal = attemptSignal(request.signal, timeoutMs);
      let response: Response;
      try {
        response = await followRedirects(new Request(request.clone(), { signal }), env.fetch);
      } catch (cause) {
        // The caller's own abort is final; a dropped connection or a timed-out attempt is not.
        if (request.signal.aborted) throw cause;
        if (cause instanceof CourtRecordsConnectionError && cause.reason === 'redirect') throw cause;
        if (last) {
          const reason = signal.aborted ? 'timeout' : 'network';
          const what = reason === 'timeout' ? `timed out after ${timeoutMs} ms` : 'failed';
          throw new CourtRecordsConnectionError(`${request.method} ${request.url} ${what} (${attempt + 1} attempts)`, undefined, {
            cause,
            reason,
            idempotencyKey,
          });
        }
        await env.sleep(backoffMs, request.signal);
        continue;
      }
      if (response.ok || last) return response;
      const delay = await retryDelayFor(response, backoffMs, env.now());
      if (delay === undefined || delay > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await env.sleep(delay, request.signal);
      // An abort during the wait is the caller's: not one more attempt.
      request.signal.throwIfAborted();
    }
  };
}

/**
 * Sends with `redirect: 'manual'` and follows up to five hops itself: 307 and 308 resend the
 * method and body, the others turn into a GET; a hop to another origin drops the credentials.
 */
export async function followRedirects(first: Request, send: (request: Request) => Promise<Response>): Promise<Response> {
  const origin = new URL(first.url).origin;
  const body = first.body === null ? undefined : await first.clone().arrayBuffer();
  let request = first;
  for (let hop = 0; ; hop++) {
    const response = await send(new Request(request, { redirect: 'manual' }));
    // A browser hides the target of a manual redirect: refuse rather than follow blind.
    if (response.type === 'opaqueredirect')
      throw new CourtRecordsConnectionError(`${request.url} redirected where this runtime cannot see`, undefined, { reason: 'redirect' });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS)
      throw new CourtRecordsConnectionError(`more than ${MAX_REDIRECTS} redirects from ${first.url}`, response.status, {
        reason: 'redirect',
      });
    const target = new URL(location, request.url);
    const headers = new Headers(request.headers);
    if (target.origin !== origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    const keepsMethod = response.status === 307 || response.status === 308 || request.method === 'GET' || request.method === 'HEAD';
    if (!keepsMethod) headers.delete('content-type');
    request = new Request(target, {
      method: keepsMethod ? request.method : 'GET',
      headers,
      signal: request.signal,
      ...(keepsMethod && body !== undefined ? { body } : {}),
    });
  }
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request, { headers });
}

function attemptSignal(caller: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([caller, AbortSignal.timeout(timeoutMs)]);
}
