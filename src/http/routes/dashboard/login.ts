/**
 * GET and POST /dashboard/login, POST /dashboard/logout. There is no session before login,
 * so the login form is protected from cross-site posts (which could log a victim into an
 * attacker's account) by a double-submitted token: the form's hidden field must equal a
 * SameSite=Strict cookie set with the form. A wrong email and a wrong password answer alike;
 * failures slow and then lock further attempts, as on POST /api/settings/login.
 */
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { SessionService } from '../../../application/sessions/session-service.ts';
import { randomToken } from '../../../application/sessions/tokens.ts';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Clock } from '../../../ports/clock.ts';
import type { AppEnv } from '../../env.ts';
import { loginError } from '../../session-errors.ts';
import { sameToken } from '../settings/session-support.ts';
import { csrfInput, shell, type Html } from './layout-support.ts';
import {
  clearDashboardCookie,
  CSRF_FIELD,
  csrfRefused,
  DASHBOARD_PATH,
  formWithCsrf,
  requireSession,
  safeNext,
  setDashboardCookie,
  type DashboardEnv,
} from './session-support.ts';

const LOGIN_PATH = `${DASHBOARD_PATH}/login`;
const LOGIN_COOKIE = 'dashboard_login';

export interface LoginPageDeps {
  readonly sessions: SessionService;
  readonly clock: Clock;
  readonly trustProxy: boolean;
  /** The client's address, for counting failed logins. */
  readonly clientAddress: (c: Context<AppEnv>) => string;
}

function loginPage(token: string, next: string, error: string | undefined): Html {
  return shell(
    'Log in',
    html`<main class="login">
      <section>
        <h1>Court Records dashboard</h1>
        ${error === undefined ? '' : html`<p class="error" role="alert">${error}</p>`}
        <form method="post" action="${LOGIN_PATH}">
          ${csrfInput(token)}<input type="hidden" name="next" value="${next}" /> <label for="email">Email</label
          ><input id="email" type="email" name="email" autocomplete="username" required /> <label for="password">Password</label
          ><input id="password" type="password" name="password" autocomplete="current-password" required />
          <p><button type="submit">Log in</button></p>
        </form>
        <p class="muted">Accounts are opened by an operator; ask yours for a login.</p>
      </section>
    </main>`,
  );
}

/** The login form and its post: no session yet, so the app-wide context (the client address comes from it). */
export function registerLoginPages(app: Hono<AppEnv>, deps: LoginPageDeps): void {
  const form = (c: Context<AppEnv>, next: string, error?: string, status: ContentfulStatusCode = 200) => {
    const token = randomToken();
    setCookie(c, LOGIN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: LOGIN_PATH, maxAge: 3600 });
    return c.html(loginPage(token, next, error), status);
  };

  app.get('/login', (c) => form(c, safeNext(c.req.query('next'))));

  app.post('/login', async (c) => {
    const body = await c.req.parseBody();
    const field = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    const next = safeNext(field('next'));
    const expected = getCookie(c, LOGIN_COOKIE);
    if (expected === undefined || !sameToken(field(CSRF_FIELD), expected)) {
      return form(c, next, 'The login form expired or was not sent from this site; please log in again.', 403);
    }
    const result = await deps.sessions.login(field('email'), field('password'), deps.clientAddress(c));
    if (!result.ok) {
      const refused = loginError(result.error);
      for (const [name, value] of Object.entries(refused.options.headers ?? {})) c.header(name, value);
      return form(c, next, refused.message, refused.status);
    }
    const { token, expiresAt } = result.value;
    const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - deps.clock.now().getTime()) / 1000));
    setDashboardCookie(c, token, maxAge, deps.trustProxy);
    return c.redirect(next, 303);
  });
}

export function registerLogoutPage(app: Hono<DashboardEnv>, deps: LoginPageDeps): void {
  app.post('/logout', requireSession(deps.sessions, 'session.end', deps.trustProxy), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    await deps.sessions.logout(c.get('sessionToken'));
    clearDashboardCookie(c, deps.trustProxy);
    return c.redirect(LOGIN_PATH, 303);
  });
}
