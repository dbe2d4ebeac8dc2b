/**
 * POST /admin/keys/{keyId}/revoke: revokes any key at once (a leaked key, a departed
 * employee's), live or test. Revoking a revoked key changes nothing and answers the same.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const KeyParams = z.object({
  keyId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'keyId', in: 'path' }, example: 'key_9a1e4c2b-7d3f-4e8a-b5c6-0f1e2d3c4b5a' }),
});

const Revoked = envelope(z.object({ keyId: z.string(), status: z.literal('revoked') })).openapi('AdminKeyRevoked');

const route = createRoute({
  operationId: 'adminRevokeKey',
  method: 'post',
  path: '/admin/keys/{keyId}/revoke',
  tags: ['Admin'],
  summary: 'Revoke an API key',
  security: ADMIN_SECURITY,
  request: { params: KeyParams },
  responses: {
    200: { description: 'Revoked: the key is refused from now on.', content: { 'application/json': { schema: Revoked } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'API_KEY_NOT_FOUND'),
  },
});

export function registerPostKeyRevoke(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { keyId } = c.req.valid('param');
    const result = await accounts.revokeKey(keyId, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: { keyId, status: 'revoked' as const } }, 200);
  });
}
