/**
 * PUT /admin/users/{userId}/standing: sets a user's standing. Suspended and
 * billing-inactive users' keys are refused (ACCOUNT_SUSPENDED, BILLING_INACTIVE); setting
 * the standing a user already has records nothing.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, UserParams } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const STANDINGS = ['active', 'suspended', 'billing_inactive'] as const;

const Body = z
  .object({ standing: z.enum(STANDINGS).openapi({ example: 'suspended' }) })
  .strict()
  .openapi('AdminSetStanding');

const StandingSet = envelope(z.object({ userId: z.string(), standing: z.enum(STANDINGS) })).openapi('AdminStandingSet');

const route = createRoute({
  operationId: 'adminSetUserStanding',
  method: 'put',
  path: '/admin/users/{userId}/standing',
  tags: ['Admin'],
  summary: "Set a user's standing",
  security: ADMIN_SECURITY,
  request: { params: UserParams, body: { content: { 'application/json': { schema: Body } }, required: true } },
  responses: {
    200: { description: 'The standing now in force.', content: { 'application/json': { schema: StandingSet } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'USER_NOT_FOUND', ...BODY_ERRORS),
  },
});

export function registerPutUserStanding(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { userId } = c.req.valid('param');
    const { standing } = c.req.valid('json');
    const result = await accounts.setStanding(userId, standing, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: { userId, standing } }, 200);
  });
}
