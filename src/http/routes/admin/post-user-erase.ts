/**
 * POST /admin/users/{userId}/erase: erases a user's personal data (the right to erasure of
 * India's DPDP Act 2023). Their API keys are revoked, their account row and sessions go,
 * and their data key is shredded, so their email, name and password hash can never be read
 * again from the event log. Ledger, usage and audit records keep their ids, amounts and
 * times. Erasing an erased user changes nothing and answers the same.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, UserParams } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const Erased = envelope(
  z.object({
    userId: z.string(),
    erasedAt: z.string().openapi({ example: '2026-11-29T04:00:00.000Z' }),
    keysRevoked: z.number().int().openapi({ description: 'API keys that were still live and are revoked now.' }),
    keyShredded: z.boolean().openapi({ description: 'false: the key was shredded by an earlier erasure, or never made.' }),
    plaintextEventsRedacted: z
      .number()
      .int()
      .openapi({ description: 'Events recorded before personal fields were sealed, whose personal fields were blanked in place.' }),
  }),
).openapi('AdminUserErased');

const route = createRoute({
  operationId: 'adminEraseUser',
  method: 'post',
  path: '/admin/users/{userId}/erase',
  tags: ['Admin'],
  summary: "Erase a user's personal data",
  security: ADMIN_SECURITY,
  request: { params: UserParams },
  responses: {
    200: { description: 'The user is erased.', content: { 'application/json': { schema: Erased } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'USER_NOT_FOUND'),
  },
});

export function registerPostUserErase(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { userId } = c.req.valid('param');
    const result = await accounts.eraseUser(userId, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
