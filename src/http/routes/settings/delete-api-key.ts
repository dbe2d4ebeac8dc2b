/**
 * DELETE /api/settings/api-keys/:id: soft revoke. The key stops authenticating at once;
 * its record and call history stay for audit. Same ownership rule as rotation, and
 * revoking an already revoked key answers the same way.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import { actorFor } from '../../../application/sessions/session-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { KeyIdParams, WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import { envelope } from '../../envelope.ts';
import type { SessionGuards } from './session-support.ts';

export interface RevokeKeyDeps {
  readonly accounts: AccountsService;
  readonly guards: SessionGuards;
}

const RevokeData = z
  .object({ id: z.string().openapi({ example: 'key_0b9f6d2e-4c1a-4f7e-9a57-2a4d3c1e8b90' }), revoked: z.literal(true) })
  .openapi('RevokeApiKeyResult');

const route = createRoute({
  operationId: 'revokeApiKey',
  method: 'delete',
  path: '/api/settings/api-keys/{id}',
  tags: ['Dashboard'],
  summary: 'Revoke an API key',
  security: WRITE_SECURITY,
  request: { params: KeyIdParams },
  responses: {
    200: { description: 'Revoked.', content: { 'application/json': { schema: envelope(RevokeData) } } },
    ...errorResponses('VALIDATION_ERROR', 'SESSION_REQUIRED', ...SESSION_STANDING_ERRORS, 'CSRF_TOKEN_INVALID', 'API_KEY_NOT_FOUND'),
  },
});

export function registerRevokeApiKey(app: App, deps: RevokeKeyDeps): void {
  app.openapi({ ...route, middleware: deps.guards.write('keys.revoke') }, async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.accounts.revokeKey(id, actorFor(c.get('session').user), c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: { id, revoked: true as const } }, 200);
  });
}
