/**
 * The fetch every SDK call goes through. A POST gets an Idempotency-Key before its first
 * attempt (unless the caller set one), and every retry sends the same key, so a retried
 * charged call is answered from the server's record of the first and charged once. Retried:
 * network failures and per-attempt timeouts, 408, 500, 502, 503, 504, 409
 * IDEMPOTENCY_IN_PROGRESS (the first attempt is still running), and 429 when the server
 * says when to come back. A Retry-After is honoured exactly; when it asks for longer than
 * `maxDelayMs`, the answer is returned to the caller instead of waiting (a daily cap).
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
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
  readonly idempotencyKey: () => string;
}

export const defaultRetryEnvironment: RetryEnvironment = {
  fetch: (request) => globalThis.fetch(request),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
  now: Date.now,
  idempotencyKey: () => `sdk-${crypto.randomUUID()}`,
};

const RETRIED_STATUSES = new Set([408, 500, 502, 503, 504]);

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

export function resilientFetch(policy: RetryPolicy, env: RetryEnvironment): (request: Request) => Promise<Response> {
  return async (input) => {
    const request =
      input.method === 'POST' && !input.headers.has('idempotency-key') ? withHeader(input, 'Idempotency-Key', env.idempotencyKey()) : input;
    for (let attempt = 0; ; attempt++) {
      const backoffMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + env.random() / 2);
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await env.fetch(new Request(request.clone(), { signal: attemptSignal(request.signal, policy.timeoutMs) }));
      } catch (cause) {
        // The caller's own abort is final; a dropped connection or a timed-out attempt is not.
        if (request.signal.aborted) throw cause;
        if (last)
          throw new CourtRecordsConnectionError(`${request.method} ${request.url} failed after ${attempt + 1} attempts`, undefined, {
            cause,
          });
        await env.sleep(backoffMs);
        continue;
      }
      if (response.ok || last) return response;
      const delay = await retryDelayFor(response, backoffMs, env.now());
      if (delay === undefined || delay > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await env.sleep(delay);
    }
  };
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request, { headers });
}

function attemptSignal(caller: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([caller, AbortSignal.timeout(timeoutMs)]);
}
