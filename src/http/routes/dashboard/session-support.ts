/**
 * The dashboard pages' session: the same server-side sessions as /api/settings, in a cookie
 * of its own scoped to /dashboard (the settings cookie is scoped to /api/settings, so a
 * browser never sends it here). A page without a live session redirects to the login form;
 * a form post must carry the session's CSRF token in `_csrf` (a cross-site page can make the
 * browser send the cookie, but cannot read the token from our pages). What a session may do
 * is the permission table's answer, as for /api/settings: a page or form names its action,
 * and a suspended user's or deactivated organisation's session ends at its next request.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { UsageScope } from '../../../application/audit/usage-by-day.ts';
import {
  permits,
  type ActiveSession,
  type SessionRefusal,
  type SessionService,
  type SessionUser,
} from '../../../application/sessions/session-service.ts';
import type { PermissionAction } from '../../../domain/access/permissions.ts';
import type { AppEnv } from '../../env.ts';
import { sessionError } from '../../session-errors.ts';
import { requestIsHttps, sameToken } from '../settings/session-support.ts';

export const DASHBOARD_PATH = '/dashboard';
export const DASHBOARD_COOKIE = 'dashboard_session';
export const CSRF_FIELD = '_csrf';

export interface DashboardEnv {
  Variables: AppEnv['Variables'] & { session: ActiveSession; sessionToken: string };
}

function cookieOptions(c: Context, trustProxy: boolean) {
  const secure = requestIsHttps(c.req.url, c.req.header('X-Forwarded-Proto'), trustProxy);
  return { httpOnly: true, sameSite: 'Lax', path: DASHBOARD_PATH, secure } as const;
}

export function setDashboardCookie(c: Context, token: string, maxAgeSeconds: number, trustProxy: boolean): void {
  setCookie(c, DASHBOARD_COOKIE, token, { ...cookieOptions(c, trustProxy), maxAge: maxAgeSeconds });
}

export function clearDashboardCookie(c: Context, trustProxy: boolean): void {
  deleteCookie(c, DASHBOARD_COOKIE, cookieOptions(c, trustProxy));
}

/** Where the login form sends the user back: only a dashboard path, never another site. */
export function safeNext(next: string | undefined): string {
  return next !== undefined && /^\/dashboard(?:[/?]|$)/.test(next) && !next.includes('//') ? next : `${DASHBOARD_PATH}/keys`;
}

/**
 * Pages: a live session allowed `action`, or a redirect to the login form that comes back
 * here. A session ended by its standing clears its cookie and says why.
 */
export function requireSession(sessions: SessionService, action: PermissionAction, trustProxy: boolean): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const token = getCookie(c, DASHBOARD_COOKIE);
    const authorized = token === undefined ? undefined : await sessions.authorize(token, action);
    if (token === undefined || authorized === undefined || (!authorized.ok && authorized.refusal.tag === 'NoSession')) {
      const url = new URL(c.req.url);
      const back = c.req.method === 'GET' ? `${url.pathname}${url.search}` : `${DASHBOARD_PATH}/keys`;
      return c.redirect(`${DASHBOARD_PATH}/login?next=${encodeURIComponent(back)}`, 303);
    }
    if (!authorized.ok) {
      const { refusal } = authorized;
      // Suspension and deactivation have just ended the session; billing_inactive keeps it.
      if (refusal.tag === 'NotPermitted' && refusal.reason !== 'BillingInactive') clearDashboardCookie(c, trustProxy);
      return permissionRefused(c, refusal);
    }
    c.set('session', authorized.session);
    c.set('sessionToken', token);
    await next();
  };
}

/** A page or form that needs more than the section's right: asked of the session already resolved. */
export function requirePermission(action: PermissionAction): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const refusal = permits(c.get('session'), action);
    if (refusal) return permissionRefused(c, refusal);
    await next();
  };
}

function permissionRefused(c: Context, refusal: SessionRefusal): Response {
  return c.text(`Refused: ${sessionError(refusal).message}`, 403);
}

/** Form posts: the session's CSRF token in the `_csrf` field, compared in constant time. */
export async function formWithCsrf(c: Context<DashboardEnv>): Promise<Record<string, string> | undefined> {
  const form = await c.req.parseBody();
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(form)) if (typeof value === 'string') fields[name] = value;
  return sameToken(fields[CSRF_FIELD] ?? '', c.get('session').csrfToken) ? fields : undefined;
}

export function csrfRefused(c: Context<DashboardEnv>): Response {
  return c.text('Refused: the form did not carry this session’s CSRF token. Reload the page and try again.', 403);
}

/** What a dashboard user may see of the audit trail: their own calls, or their organisation's as its admin. */
export function auditScopeOf(user: SessionUser): UsageScope {
  return user.role === 'ORG_ADMIN' && user.organizationId !== null ? { organizationId: user.organizationId } : { userId: user.userId };
}
