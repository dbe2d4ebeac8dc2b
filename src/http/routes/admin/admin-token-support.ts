/**
 * Bearer check for the operator admin API. Both the presented and the configured token are
 * hashed with SHA-256 and the digests compared byte by byte without an early exit, so the
 * time taken reveals neither the token's length nor how much of a guess was right.
 * Web Crypto only, so the check runs unchanged under Node and Deno.
 *
 * Wrong tokens are counted per client address (FAILED_ADMIN_TOKEN_ATTEMPTS_PER_MINUTE); an
 * address past its allowance is refused with 429 RATE_LIMITED before any check, whatever it
 * presents. The right token is refused too: otherwise guessing would go on at full speed
 * until it hit, and ADMIN_TOKEN is chosen by an operator, so it may be far from random.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { FailedAttemptThrottle } from '../../../application/access/failed-attempt-throttle.ts';
import { ApiError } from '../../api-error.ts';
import type { AppEnv } from '../../env.ts';
import { tooManyFailedAttempts } from '../../failed-attempts.ts';

const encoder = new TextEncoder();

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i += 1) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Where wrong admin tokens are counted; one throttle serves every route that takes the token. */
export interface AdminTokenAttempts {
  readonly failures: FailedAttemptThrottle;
  readonly clientAddress: (c: Context<AppEnv>) => string;
}

/**
 * One admin-token check under the per-address throttle: throws 429 for a blocked address,
 * else answers whether `presented` is the token, counting a wrong one. Nothing presented is
 * refused but not counted: a bare probe of /admin guessed nothing.
 */
export async function checkAdminToken(
  attempts: AdminTokenAttempts,
  c: Context<AppEnv>,
  presented: string | undefined,
  matches: (token: string) => Promise<boolean>,
): Promise<boolean> {
  const address = attempts.clientAddress(c);
  const blocked = attempts.failures.blocked(address);
  if (blocked) throw tooManyFailedAttempts(blocked, 'admin token');
  // Checked even when nothing was presented, so a missing token costs the same time as a wrong one.
  const right = await matches(presented ?? '');
  if (presented === undefined) return false;
  if (!right) await attempts.failures.recordFailure(address);
  return right;
}

function tokenMatcher(token: string): (presented: string) => Promise<boolean> {
  const expected = digest(token);
  return async (presented) => sameBytes(await digest(presented), await expected);
}

const bearerOf = (c: Context<AppEnv>): string | undefined => BEARER.exec(c.req.header('authorization') ?? '')?.[1];

const adminUnauthorized = () => new ApiError('ADMIN_UNAUTHORIZED', { headers: { 'WWW-Authenticate': 'Bearer realm="admin"' } });

export function requireAdminToken(token: string, attempts: AdminTokenAttempts): MiddlewareHandler<AppEnv> {
  const matches = tokenMatcher(token);
  return async (c, next) => {
    if (!(await checkAdminToken(attempts, c, bearerOf(c), matches))) throw adminUnauthorized();
    await next();
  };
}

/** Whether a request to a public route comes from the operator; see `operatorCheck`. */
export type OperatorCheck = (c: Context<AppEnv>) => Promise<boolean>;

/**
 * For public routes that show an operator more than anyone else (the deep health check,
 * the root OpenAPI document): whether the caller presents ADMIN_TOKEN as a bearer token.
 * No bearer, no token configured, or an API key sent as a bearer (clients send theirs that
 * way on every call) is simply not the operator. Any other bearer is checked under the same
 * per-address throttle as /admin, and a wrong one refused with 401 as there: otherwise the
 * route would answer token guesses unthrottled.
 */
export function operatorCheck(token: string | undefined, attempts: AdminTokenAttempts, isApiKey: (text: string) => boolean): OperatorCheck {
  if (token === undefined) return async () => false;
  const matches = tokenMatcher(token);
  return async (c) => {
    const presented = bearerOf(c);
    if (presented === undefined || isApiKey(presented)) return false;
    if (!(await checkAdminToken(attempts, c, presented, matches))) throw adminUnauthorized();
    return true;
  };
}
