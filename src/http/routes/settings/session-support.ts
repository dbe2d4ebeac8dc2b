/**
 * The dashboard session at the HTTP edge: the session cookie (HttpOnly, SameSite=Lax,
 * scoped to /api/settings, Secure over HTTPS) and the route middleware that turns it into
 * the logged-in user. State-changing routes also need X-CSRF-Token equal to the session's
 * token: a cross-site page can make the browser send the cookie, but cannot read the token.
 * Each route names its action: the session service answers from the permission table with the
 * standing read on this request, so a suspended user's session ends at its next request.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ActiveSession, SessionService } from '../../../application/sessions/session-service.ts';
import type { PermissionAction } from '../../../domain/access/permissions.ts';
import { ApiError } from '../../api-error.ts';
import { sessionError } from '../../session-errors.ts';
import type { AppEnv } from '../../env.ts';

export const SESSION_COOKIE = 'session';
export const SETTINGS_PATH = '/api/settings';
export const CSRF_HEADER = 'X-CSRF-Token';

/** What the guard hands to a route: the resolved session and the token that named it. */
export interface SessionEnv {
  Variables: AppEnv['Variables'] & { session: ActiveSession; sessionToken: string };
}

export interface SessionGuards {
  /** Read-only routes: a live session allowed `action`. */
  readonly read: (action: PermissionAction) => MiddlewareHandler<SessionEnv>;
  /** State-changing routes: a live session allowed `action`, and its CSRF token. */
  readonly write: (action: PermissionAction) => MiddlewareHandler<SessionEnv>;
}

/** HTTPS as the client saw it; X-Forwarded-Proto counts only behind a trusted proxy. */
export function requestIsHttps(url: string, forwardedProto: string | undefined, trustProxy: boolean): boolean {
  if (new URL(url).protocol === 'https:') return true;
  // A proxy chain appends; the first value is what the client used.
  const first = forwardedProto?.split(',')[0]?.trim().toLowerCase();
  return trustProxy && first === 'https';
}

/** Compares in time independent of where the strings first differ. */
export function sameToken(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let difference = 0;
  for (let i = 0; i < given.length; i += 1) difference |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}

function cookieOptions(c: Context, trustProxy: boolean) {
  const secure = requestIsHttps(c.req.url, c.req.header('X-Forwarded-Proto'), trustProxy);
  return { httpOnly: true, sameSite: 'Lax', path: SETTINGS_PATH, secure } as const;
}

export function setSessionCookie(c: Context, token: string, maxAgeSeconds: number, trustProxy: boolean): void {
  setCookie(c, SESSION_COOKIE, token, { ...cookieOptions(c, trustProxy), maxAge: maxAgeSeconds });
}

export function clearSessionCookie(c: Context, trustProxy: boolean): void {
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c, trustProxy));
}

export function sessionGuards(sessions: SessionService): SessionGuards {
  const guard =
    (checkCsrf: boolean) =>
    (action: PermissionAction): MiddlewareHandler<SessionEnv> =>
    async (c, next) => {
      const token = getCookie(c, SESSION_COOKIE);
      if (token === undefined) throw new ApiError('SESSION_REQUIRED');
      const authorized = await sessions.authorize(token, action);
      if (!authorized.ok) throw sessionError(authorized.refusal);
      const { session } = authorized;
      if (checkCsrf && !sameToken(c.req.header(CSRF_HEADER) ?? '', session.csrfToken)) throw new ApiError('CSRF_TOKEN_INVALID');
      c.set('session', session);
      c.set('sessionToken', token);
      await next();
    };
  return { read: guard(false), write: guard(true) };
}
