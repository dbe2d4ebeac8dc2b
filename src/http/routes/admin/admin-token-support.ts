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

export function requireAdminToken(token: string, attempts: AdminTokenAttempts): MiddlewareHandler<AppEnv> {
  const expected = digest(token);
  const matches = async (presented: string) => sameBytes(await digest(presented), await expected);
  return async (c, next) => {
    const presented = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    if (!(await checkAdminToken(attempts, c, presented, matches))) {
      throw new ApiError('ADMIN_UNAUTHORIZED', { headers: { 'WWW-Authenticate': 'Bearer realm="admin"' } });
    }
    await next();
  };
}
