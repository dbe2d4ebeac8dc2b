/**
 * POST /admin/organizations/{organizationId}/deactivate: every key of the organisation
 * stops authenticating (ORGANIZATION_DEACTIVATED) and it takes no new users. Deactivating
 * an already deactivated organisation succeeds and records nothing.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, OrganizationParams } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const Deactivated = envelope(z.object({ organizationId: z.string(), status: z.literal('deactivated') })).openapi(
  'AdminOrganizationDeactivated',
);

const route = createRoute({
  operationId: 'adminDeactivateOrganization',
  method: 'post',
  path: '/admin/organizations/{organizationId}/deactivate',
  tags: ['Admin'],
  summary: 'Deactivate an organisation',
  security: ADMIN_SECURITY,
  request: { params: OrganizationParams },
  responses: {
    200: { description: 'Deactivated (or already was).', content: { 'application/json': { schema: Deactivated } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'ORGANIZATION_NOT_FOUND', 'VALIDATION_ERROR'),
  },
});

export function registerPostOrganizationDeactivate(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { organizationId } = c.req.valid('param');
    const result = await accounts.deactivateOrganization(organizationId, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: { organizationId, status: 'deactivated' as const } }, 200);
  });
}
