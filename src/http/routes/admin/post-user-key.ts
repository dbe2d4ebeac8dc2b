/**
 * POST /admin/users/{userId}/keys: issues an API key for a user, within the key cap of
 * their tier (and, on Free, only with a verified email). The plaintext is in this
 * response only; it is stored as a keyed hash.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, UserParams } from './schemas.ts';
import { KeyModeSchema } from '../settings/schemas.ts';
import { envelope } from '../../envelope.ts';

const DEFAULT_KEY_NAME = 'Default';

const Body = z
  .object({
    name: z
      .string()
      .min(1)
      .max(120)
      .optional()
      .openapi({ description: `Label; omitted: ${DEFAULT_KEY_NAME}.`, example: 'Research pipeline' }),
    mode: KeyModeSchema.optional(),
  })
  .strict()
  .openapi('AdminCreateKey');

const Issued = envelope(
  z.object({
    id: z.string().openapi({ example: 'key_9a1e4c2b-7d3f-4e8a-b5c6-0f1e2d3c4b5a' }),
    name: z.string(),
    fullKey: z.string().openapi({ description: 'Shown once.', example: 'crk_live-4fJ9x0QmZr2LbN7yT1cWv8KdHs3GaPe6-Xq2B' }),
    displayKey: z.string().openapi({ example: 'crk_live...Xq2B' }),
    mode: KeyModeSchema,
  }),
).openapi('AdminKeyIssued');

const route = createRoute({
  operationId: 'adminCreateUserKey',
  method: 'post',
  path: '/admin/users/{userId}/keys',
  tags: ['Admin'],
  summary: 'Issue an API key for a user',
  security: ADMIN_SECURITY,
  request: { params: UserParams, body: { content: { 'application/json': { schema: Body } }, required: false } },
  responses: {
    201: { description: 'Issued.', content: { 'application/json': { schema: Issued } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'USER_NOT_FOUND', 'EMAIL_NOT_VERIFIED', 'API_KEY_LIMIT_REACHED', ...BODY_ERRORS),
  },
});

export function registerPostUserKey(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { userId } = c.req.valid('param');
    const { name, mode } = c.req.valid('json');
    const result = await accounts.createKey(userId, name ?? DEFAULT_KEY_NAME, { kind: 'operator' }, c.get('requestId'), mode);
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: result.value }, 201);
  });
}
