/**
 * GET /api/settings/session: who is logged in, until when, and the session's CSRF token,
 * so a reloaded page can recover the token without logging in again.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { READ_SECURITY, SessionUserSchema, SESSION_STANDING_ERRORS } from './schemas.ts';
import { envelope } from '../../envelope.ts';
import type { SessionGuards } from './session-support.ts';

const SessionData = z
  .object({
    user: SessionUserSchema,
    csrfToken: z.string().openapi({ description: 'Send back in X-CSRF-Token on state-changing requests.' }),
    expiresAt: z.string().openapi({ description: 'ISO 8601 end of the session.', example: '2025-01-15T22:30:00.000Z' }),
  })
  .openapi('DashboardSession');

const route = createRoute({
  operationId: 'getSession',
  method: 'get',
  path: '/api/settings/session',
  tags: ['Dashboard'],
  summary: 'The logged-in dashboard user',
  security: READ_SECURITY,
  responses: {
    200: { description: 'The live session.', content: { 'application/json': { schema: envelope(SessionData) } } },
    ...errorResponses('SESSION_REQUIRED', ...SESSION_STANDING_ERRORS),
  },
});

export function registerGetSession(app: App, guards: SessionGuards): void {
  app.openapi({ ...route, middleware: guards.read('session.view') }, (c) => {
    const { user, csrfToken, expiresAt } = c.get('session');
    return c.json({ success: true as const, data: { user, csrfToken, expiresAt: expiresAt.toISOString() } }, 200);
  });
}
