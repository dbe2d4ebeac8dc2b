/**
 * Bearer check for the operator admin API. Both the presented and the configured token are
 * hashed with SHA-256 and the digests compared byte by byte without an early exit, so the
 * time taken reveals neither the token's length nor how much of a guess was right.
 * Web Crypto only, so the check runs unchanged under Node and Deno.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../api-error.ts';
import type { AppEnv } from '../../env.ts';

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

export function requireAdminToken(token: string): MiddlewareHandler<AppEnv> {
  const expected = digest(token);
  return async (c, next) => {
    const presented = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    // Hash even when nothing was presented, so a missing header costs the same as a wrong one.
    const matches = sameBytes(await digest(presented ?? ''), await expected);
    if (presented === undefined || !matches) {
      throw new ApiError('ADMIN_UNAUTHORIZED', { headers: { 'WWW-Authenticate': 'Bearer realm="admin"' } });
    }
    await next();
  };
}
