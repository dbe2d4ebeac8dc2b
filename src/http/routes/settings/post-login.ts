/**
 * POST /api/settings/login: email and password for a dashboard session. The token goes
 * only into the HttpOnly cookie; the body carries the CSRF token the page must echo in
 * X-CSRF-Token. Unknown email and wrong password answer identically. Failures slow and then
 * lock further attempts per account and per address block; a suspended user or a
 * deactivated organisation is told so, but only once the password was right.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { SessionService } from '../../../application/sessions/session-service.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { loginError } from '../../session-errors.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { envelope } from '../../envelope.ts';
import { setSessionCookie } from './session-support.ts';

export interface LoginDeps {
  readonly sessions: SessionService;
  readonly clock: Clock;
  readonly trustProxy: boolean;
  /** The client's address: failed logins count against its block as well as the account. */
  readonly clientAddress: (c: Context<AppEnv>) => string;
}

const LoginBody = z
  .object({
    email: z.string().min(3).max(254).openapi({ example: 'advocate@example.in' }),
    password: z.string().min(1).max(1024).openapi({ example: 'correct horse battery staple' }),
  })
  .openapi('LoginRequest');

const LoginData = z
  .object({
    userId: z.string().openapi({ example: 'usr_5f0c2b8e-3d7a-4e21-b1f4-9c8d7e6a5b43' }),
    csrfToken: z.string().openapi({
      description: 'Send back in X-CSRF-Token on state-changing requests.',
      example: 'q3Vd0Jx7Yb2Lm9Kp4Tn8Rw1Zs6Hc5Fg0Ae3Ui7Oy2Xk',
    }),
    expiresAt: z.string().openapi({ description: 'ISO 8601 end of the session (12 hours).', example: '2025-01-15T22:30:00.000Z' }),
  })
  .openapi('LoginResult');

const route = createRoute({
  operationId: 'login',
  security: [],
  method: 'post',
  path: '/api/settings/login',
  tags: ['Dashboard'],
  summary: 'Log in to the dashboard',
  description: 'Sets the session cookie (HttpOnly, SameSite=Lax, Path=/api/settings, Secure over HTTPS).',
  request: { body: { content: { 'application/json': { schema: LoginBody } }, required: true } },
  responses: {
    200: {
      description: 'Logged in; the Set-Cookie header carries the session.',
      content: { 'application/json': { schema: envelope(LoginData) } },
    },
    ...errorResponses(
      ...BODY_ERRORS,
      'INVALID_CREDENTIALS',
      'LOGIN_THROTTLED',
      'LOGIN_LOCKED',
      'LOGIN_BUSY',
      'ACCOUNT_SUSPENDED',
      'ORGANIZATION_DEACTIVATED',
    ),
  },
});

export function registerLogin(app: App, deps: LoginDeps): void {
  app.openapi(route, async (c) => {
    const { email, password } = c.req.valid('json');
    const result = await deps.sessions.login(email, password, deps.clientAddress(c));
    if (!result.ok) throw loginError(result.error);
    const { token, userId, csrfToken, expiresAt } = result.value;
    const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - deps.clock.now().getTime()) / 1000));
    setSessionCookie(c, token, maxAge, deps.trustProxy);
    return c.json({ success: true as const, data: { userId, csrfToken, expiresAt: expiresAt.toISOString() } }, 200);
  });
}
