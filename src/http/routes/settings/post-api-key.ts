/**
 * POST /api/settings/api-keys: creates a key for the logged-in user. The plaintext is in
 * this response only. Free tier needs a verified email; each tier caps live keys (the
 * service serialises creations per user, so parallel requests cannot overshoot the cap).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import { actorFor } from '../../../application/sessions/session-service.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { IssuedKeySchema, KeyModeSchema, WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import { envelope } from '../../envelope.ts';
import type { SessionGuards } from './session-support.ts';

export interface CreateKeyDeps {
  readonly accounts: AccountsService;
  readonly guards: SessionGuards;
}

const CreateKeyBody = z
  .object({
    name: z.string().trim().min(1).max(120).openapi({ description: 'Label for the key.', example: 'Research notebook' }),
    mode: KeyModeSchema.optional(),
  })
  .openapi('CreateApiKeyRequest');

const route = createRoute({
  operationId: 'createApiKey',
  method: 'post',
  path: '/api/settings/api-keys',
  tags: ['Dashboard'],
  summary: 'Create an API key',
  security: WRITE_SECURITY,
  request: { body: { content: { 'application/json': { schema: CreateKeyBody } }, required: true } },
  responses: {
    201: { description: 'Created; fullKey is shown this once.', content: { 'application/json': { schema: envelope(IssuedKeySchema) } } },
    ...errorResponses(
      ...BODY_ERRORS,
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'CSRF_TOKEN_INVALID',
      'EMAIL_NOT_VERIFIED',
      'API_KEY_LIMIT_REACHED',
    ),
  },
});

export function registerCreateApiKey(app: App, deps: CreateKeyDeps): void {
  app.openapi({ ...route, middleware: deps.guards.write('keys.create') }, async (c) => {
    const { name, mode } = c.req.valid('json');
    const { user } = c.get('session');
    const result = await deps.accounts.createKey(user.userId, name, actorFor(user), c.get('requestId'), mode);
    if (!result.ok) throw accountError(result.error);
    const { id, fullKey, displayKey } = result.value;
    return c.json({ success: true as const, data: { id, name: result.value.name, fullKey, displayKey, mode: result.value.mode } }, 201);
  });
}
