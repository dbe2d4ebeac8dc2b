/**
 * POST /api/settings/api-keys/:id/rotate: issues a replacement (same organisation, name
 * suffixed ' (rotated)', plaintext shown once) and puts the old key in its 24-hour grace
 * window. The owner may rotate; so may an ORG_ADMIN of the key's organisation. Anyone else
 * gets 404, so a foreign key is not revealed to exist.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import { actorFor } from '../../../application/sessions/session-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { IssuedKeySchema, KeyIdParams, WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import { envelope } from '../../envelope.ts';
import type { SessionGuards } from './session-support.ts';

export interface RotateKeyDeps {
  readonly accounts: AccountsService;
  readonly guards: SessionGuards;
}

const RotateData = z
  .object({
    message: z.string().openapi({ example: 'API key rotated. The previous key keeps working until rotatedFrom.expiresAt.' }),
    apiKey: IssuedKeySchema,
    rotatedFrom: z.object({
      id: z.string().openapi({ description: 'Id of the old key.' }),
      expiresAt: z
        .string()
        .openapi({ description: "ISO 8601 end of the old key's 24 hour grace window.", example: '2025-01-16T10:30:00.000Z' }),
    }),
  })
  .openapi('RotateApiKeyResult');

const route = createRoute({
  operationId: 'rotateApiKey',
  method: 'post',
  path: '/api/settings/api-keys/{id}/rotate',
  tags: ['Dashboard'],
  summary: 'Rotate an API key',
  security: WRITE_SECURITY,
  request: { params: KeyIdParams },
  responses: {
    200: { description: 'Rotated; apiKey.fullKey is shown this once.', content: { 'application/json': { schema: envelope(RotateData) } } },
    ...errorResponses(
      'VALIDATION_ERROR',
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'CSRF_TOKEN_INVALID',
      'API_KEY_NOT_FOUND',
      'API_KEY_NOT_ACTIVE',
    ),
  },
});

export function registerRotateApiKey(app: App, deps: RotateKeyDeps): void {
  app.openapi({ ...route, middleware: deps.guards.write('keys.rotate') }, async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.accounts.rotateKey(id, actorFor(c.get('session').user), c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    const { apiKey, rotatedFrom } = result.value;
    const message = 'API key rotated. The previous key keeps working until rotatedFrom.expiresAt.';
    const data = {
      message,
      apiKey: { id: apiKey.id, name: apiKey.name, fullKey: apiKey.fullKey, displayKey: apiKey.displayKey, mode: apiKey.mode },
      rotatedFrom: { id: rotatedFrom.id, expiresAt: rotatedFrom.expiresAt },
    };
    return c.json({ success: true as const, data }, 200);
  });
}
