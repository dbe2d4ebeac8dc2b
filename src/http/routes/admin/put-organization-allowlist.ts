/**
 * PUT /admin/organizations/{organizationId}/allowlist: replaces the IP allowlist (an
 * empty list turns it off). `strict` omitted keeps the organisation's current setting, so
 * changing the ranges never silently changes how a lookup failure is treated.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, Allowlist, OrganizationParams } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const Body = z
  .object({
    allowlist: Allowlist,
    strict: z.boolean().optional().openapi({ description: 'Fail closed when the allowlist cannot be checked; omitted: unchanged.' }),
  })
  .strict()
  .openapi('AdminSetAllowlist');

const AllowlistSet = envelope(z.object({ organizationId: z.string(), allowlist: z.array(z.string()), strict: z.boolean() })).openapi(
  'AdminAllowlistSet',
);

const route = createRoute({
  operationId: 'adminSetOrganizationAllowlist',
  method: 'put',
  path: '/admin/organizations/{organizationId}/allowlist',
  tags: ['Admin'],
  summary: "Replace an organisation's IP allowlist",
  security: ADMIN_SECURITY,
  request: { params: OrganizationParams, body: { content: { 'application/json': { schema: Body } }, required: true } },
  responses: {
    200: { description: 'The allowlist now in force.', content: { 'application/json': { schema: AllowlistSet } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'ORGANIZATION_NOT_FOUND', 'ORGANIZATION_DEACTIVATED', ...BODY_ERRORS),
  },
});

export function registerPutOrganizationAllowlist(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { organizationId } = c.req.valid('param');
    const { allowlist, ...body } = c.req.valid('json');
    const strict = body.strict ?? (await accounts.strictAllowlist(organizationId));
    const result = await accounts.setAllowlist(organizationId, allowlist, strict, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: { organizationId, allowlist, strict } }, 200);
  });
}
