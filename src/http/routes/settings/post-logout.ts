/**
 * POST /api/settings/logout: ends the session server-side (the token stops resolving at
 * once, wherever the cookie has been copied) and clears the cookie.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { SessionService } from '../../../application/sessions/session-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { SESSION_STANDING_ERRORS, WRITE_SECURITY } from './schemas.ts';
import { envelope } from '../../envelope.ts';
import { clearSessionCookie, type SessionGuards } from './session-support.ts';

export interface LogoutDeps {
  readonly sessions: SessionService;
  readonly guards: SessionGuards;
  readonly trustProxy: boolean;
}

const route = createRoute({
  operationId: 'logout',
  method: 'post',
  path: '/api/settings/logout',
  tags: ['Dashboard'],
  summary: 'Log out of the dashboard',
  security: WRITE_SECURITY,
  responses: {
    200: {
      description: 'Session ended and cookie cleared.',
      content: { 'application/json': { schema: envelope(z.object({ loggedOut: z.literal(true) })) } },
    },
    ...errorResponses('SESSION_REQUIRED', 'CSRF_TOKEN_INVALID', ...SESSION_STANDING_ERRORS),
  },
});

export function registerLogout(app: App, deps: LogoutDeps): void {
  app.openapi({ ...route, middleware: deps.guards.write('session.end') }, async (c) => {
    await deps.sessions.logout(c.get('sessionToken'));
    clearSessionCookie(c, deps.trustProxy);
    return c.json({ success: true as const, data: { loggedOut: true as const } }, 200);
  });
}
