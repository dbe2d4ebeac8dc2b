/**
 * The gate of every keyed route, in the spec's order: key present, shape, existence,
 * key/organisation/account standing, plan entitlement, then the IP allowlist, the
 * distinct-keys-per-address cap and the per-key rate limit. Every answer of a keyed route
 * carries the remaining allowance in RateLimit-* headers.
 *
 * Existence is where keys are guessed, so failed lookups (unknown key, bad checksum) are
 * counted per client address. Past its allowance an address gets 429 RATE_LIMITED, before
 * any lookup, for every key this instance has not seen exist; keys it has seen still pass
 * (answered from the cache, or looked up again after an invalidation). So one guessing
 * script behind an office's NAT does not lock its colleagues out of their keys (only a key
 * never used here before waits for the window to end), while a guess gains nothing: to get
 * through it would have to be a live key, 32 random base62 characters. Revoked, expired and
 * standing refusals are not counted: they come from real keys (a stale deploy, not a
 * guesser), and repeating one costs no lookup.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AllowlistCache } from '../../application/access/allowlist-cache.ts';
import type { AuthRefusal, KeyAuthenticator, Principal } from '../../application/access/key-authenticator.ts';
import type { FailedAttemptThrottle } from '../../application/access/failed-attempt-throttle.ts';
import type { AuditRecorder } from '../../application/audit/audit-recorder.ts';
import { routePath } from 'hono/route';
import type { KeyMode } from '../../domain/api-key/api-key.ts';
import type { AuditEntry } from '../../domain/audit/audit.ts';
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.ts';
import { ApiError } from '../api-error.ts';
import type { ErrorCode } from '../error-codes.ts';
import type { AppEnv } from '../env.ts';
import { tooManyFailedAttempts } from '../failed-attempts.ts';

export interface ApiKeyGateDeps {
  /** The keys this gate serves: live keys on the live app, test keys on test mode's (compose-test-mode.ts). */
  readonly mode: KeyMode;
  /** A key's mode by its prefix (the key codec's). */
  readonly keyMode: (key: string) => KeyMode | undefined;
  /** Runs once the key is admitted, before the route (test mode opens the account's test balance here). */
  readonly onAdmitted?: (principal: Principal) => Promise<void>;
  readonly authenticator: KeyAuthenticator;
  readonly allowlists: AllowlistCache;
  readonly limiter: RateLimiter;
  readonly distinctKeys: DistinctCounter;
  /** Failed key lookups per client address (FAILED_KEY_ATTEMPTS_PER_MINUTE). */
  readonly keyFailures: FailedAttemptThrottle;
  readonly clientAddress: (c: Context<AppEnv>) => string;
  readonly clock: Clock;
  /** A shared store that is down must not take the API down with it: limits fail open. */
  readonly onStoreFailure: (error: unknown) => void;
  /** Every request that got past key lookup is recorded, refused or not. */
  readonly audit: { readonly recorder: AuditRecorder; readonly basePath: string; readonly onFailure: (error: unknown) => void };
}

type GateRefusal = Exclude<AuthRefusal, 'LookupWithheld'>;

const REFUSALS: Record<Exclude<GateRefusal, 'PlanNotEntitled' | 'ApiAccessNotProvisioned'>, [ErrorCode, string?]> = {
  InvalidFormat: ['API_KEY_INVALID_FORMAT'],
  UnknownKey: ['API_KEY_INVALID'],
  StandingUnavailable: ['ACCOUNT_STANDING_UNAVAILABLE'],
  KeyRevoked: ['API_KEY_REVOKED', 'This API key is deactivated: it was revoked or rotated away by its owner.'],
  KeyExpired: ['API_KEY_EXPIRED'],
  OrganizationDeactivated: ['ORGANIZATION_DEACTIVATED'],
  AccountNotFound: ['ACCOUNT_NOT_FOUND'],
  AccountSuspended: ['ACCOUNT_SUSPENDED'],
  BillingInactive: ['BILLING_INACTIVE'],
  TrialAccount: ['API_NOT_AVAILABLE_ON_TRIAL'],
};

function refusalError(refusal: GateRefusal): ApiError {
  switch (refusal) {
    case 'PlanNotEntitled':
      return new ApiError('API_ENTERPRISE_ONLY', { extra: { callsToday: 0, maxAllowed: 0 } });
    case 'ApiAccessNotProvisioned':
      // The spec's entitlement refusal for an Enterprise account without API access: bare shape.
      return new ApiError('API_ENTERPRISE_ONLY', {
        shape: 'bare',
        message: 'API access is not provisioned for this account; contact support.',
        extra: { callsToday: 0, maxAllowed: -1 },
      });
    default: {
      const [code, message] = REFUSALS[refusal];
      return new ApiError(code, message ? { message } : {});
    }
  }
}

/** The key a request presents, in X-API-Key or as a bearer token. */
export function presentedKey(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('X-API-Key');
  if (header !== undefined) return header.trim();
  const authorization = c.req.header('Authorization');
  // One space, then the rest: the key is trimmed anyway, and `\s+(.+)` would trade spaces.
  const match = authorization ? /^Bearer\s(.+)$/i.exec(authorization) : null;
  return match?.[1]?.trim();
}

function rateLimitHeaders(decision: RateLimitDecision, now: Date): Record<string, string> {
  const reset = Math.max(1, Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000));
  return { 'RateLimit-Limit': String(decision.limit), 'RateLimit-Remaining': String(decision.remaining), 'RateLimit-Reset': String(reset) };
}

const DAY_SECONDS = 86_400;
/** Remembered (address, key) pairs per process; past it the oldest is forgotten. */
const KNOWN_MEMBERS_MAX = 100_000;

export function requireApiKey(deps: ApiKeyGateDeps): MiddlewareHandler<AppEnv> {
  async function guard<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      deps.onStoreFailure(error);
      return fallback;
    }
  }

  // Sets this process has seen a key join today. Membership only grows within a day (a key
  // is removed only when it was refused, and then never remembered), so a remembered key
  // needs no store round trip for the rest of the day. If the store loses its sets mid-day,
  // remembered keys are not counted again: the limit errs open, as in a store outage.
  let knownDay = '';
  const known = new Set<string>();

  async function checkKeysPerAddress(principal: Principal, address: string): Promise<void> {
    const day = deps.clock.now().toISOString().slice(0, 10);
    if (day !== knownDay) {
      known.clear();
      knownDay = day;
    }
    const set = `ip-keys:${address}:${day}`;
    const member = `${set}\u0000${principal.keyId}`;
    if (known.has(member)) return;
    const seen = await guard(() => deps.distinctKeys.add(set, principal.keyId, DAY_SECONDS + 3600), null);
    if (seen === null) return;
    if (!seen.isNew || seen.size <= principal.limits.distinctKeysPerIpPerDay) {
      // The oldest goes first, one at a time: clearing all would send every key back to the store at once.
      if (known.size >= KNOWN_MEMBERS_MAX) known.delete(known.values().next().value!);
      known.add(member);
      return;
    }
    await guard(() => deps.distinctKeys.remove(set, principal.keyId), undefined);
    const endOfDay = Date.parse(`${day}T00:00:00Z`) + DAY_SECONDS * 1000;
    const retryAfter = Math.ceil((endOfDay - deps.clock.now().getTime()) / 1000);
    throw new ApiError('TOO_MANY_KEYS_FROM_IP', { headers: { 'Retry-After': String(retryAfter) } });
  }

  function auditEntry(c: Context<AppEnv>, principal: Principal, address: string, status: number, started: number): AuditEntry {
    const pattern = routePath(c, -1);
    const detail = c.get('auditDetail');
    const callId = c.get('callId');
    return {
      occurredAt: deps.clock.now().toISOString(),
      requestId: c.get('requestId'),
      keyId: principal.keyId,
      userId: principal.userId,
      organizationId: principal.organizationId,
      endpoint: pattern.startsWith(deps.audit.basePath) ? pattern.slice(deps.audit.basePath.length) || '/' : pattern,
      method: c.req.method,
      status,
      responseMs: Math.round(performance.now() - started),
      creditsDeducted: c.get('creditsDeducted') ?? 0,
      clientAddress: address,
      userAgent: c.req.header('User-Agent') ?? '',
      ...(detail === undefined ? {} : { detail }),
      ...(callId === c.get('requestId') ? {} : { callId }),
    };
  }

  async function audit(c: Context<AppEnv>, principal: Principal, address: string, status: number, started: number): Promise<void> {
    if (c.get('audited')) return;
    // The answer is already decided; a trail write that fails is reported loudly, not turned into a 500.
    await deps.audit.recorder.record(auditEntry(c, principal, address, status, started)).catch(deps.audit.onFailure);
  }

  return async (c, next) => {
    const started = performance.now();
    const presented = presentedKey(c);
    if (!presented) throw new ApiError('API_KEY_MISSING');
    // The other mode's key never reaches this mode's stores: on the live app a test key means test mode is off.
    const mode = deps.keyMode(presented);
    if (mode !== undefined && mode !== deps.mode)
      throw new ApiError('API_KEY_INVALID', {
        message:
          mode === 'test'
            ? 'Test keys are not accepted here: test mode is off on this service.'
            : 'Live keys are not accepted in test mode.',
      });
    const address = deps.clientAddress(c);
    const blocked = deps.keyFailures.blocked(address);
    const outcome = await deps.authenticator.authenticate(presented, { knownKeysOnly: blocked !== undefined });
    if (!outcome.ok) {
      if (outcome.refusal === 'LookupWithheld') throw tooManyFailedAttempts(blocked!, 'API key');
      if (outcome.refusal === 'UnknownKey') await deps.keyFailures.recordFailure(address);
      throw refusalError(outcome.refusal);
    }
    const { principal } = outcome;
    c.set('auditEntry', (status) => auditEntry(c, principal, address, status, started));
    try {
      await admitted(c, next, principal, address);
    } catch (error) {
      await audit(c, principal, address, error instanceof ApiError ? error.status : 500, started);
      throw error;
    }
    await audit(c, principal, address, c.res.status, started);
  };

  async function admitted(c: Context<AppEnv>, next: () => Promise<void>, principal: Principal, address: string): Promise<void> {
    if (principal.organizationId !== null && (await deps.allowlists.check(principal.organizationId, address)) === 'refused') {
      throw new ApiError('IP_NOT_ALLOWED');
    }
    await checkKeysPerAddress(principal, address);
    const now = deps.clock.now();
    const limit = principal.limits.requestsPerMinute;
    const decision = await guard(() => deps.limiter.hit(`key:${principal.keyId}`, limit, 60_000), {
      allowed: true,
      limit,
      remaining: limit,
      resetAt: new Date(now.getTime() + 60_000),
    });
    const headers = rateLimitHeaders(decision, now);
    if (!decision.allowed) {
      throw new ApiError('RATE_LIMITED', {
        shape: 'rate-limit',
        message: `Rate limit exceeded: at most ${decision.limit} requests per minute for this key.`,
        headers: { ...headers, 'Retry-After': headers['RateLimit-Reset']! },
        extra: { retryAfter: Number(headers['RateLimit-Reset']), resetTime: decision.resetAt.toISOString() },
      });
    }
    c.set('principal', principal);
    await deps.onAdmitted?.(principal);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  }
}

/** The authenticated principal of a keyed route; its absence is a wiring bug. */
export function principalOf(c: Context<AppEnv>): Principal {
  const principal = c.get('principal');
  if (!principal) throw new Error('keyed route registered without the API-key middleware');
  return principal;
}
