/**
 * POST /admin/organizations: creates an active organisation, optionally with an IP
 * allowlist (empty: off) and strict mode (fail closed when the allowlist cannot be read).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, Allowlist } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const Body = z
  .object({
    name: z.string().min(1).max(200).openapi({ example: 'Acme Legal LLP' }),
    allowlist: Allowlist.default([]),
    strictAllowlist: z.boolean().default(false).openapi({ description: 'Refuse requests when the allowlist cannot be checked.' }),
  })
  .strict()
  .openapi('AdminCreateOrganization');

const Created = envelope(z.object({ organizationId: z.string().openapi({ example: 'org_0f6b7c1e-2a52-4c1e-9f54-0d1d1a7c9b3e' }) })).openapi(
  'AdminOrganizationCreated',
);

const route = createRoute({
  operationId: 'adminCreateOrganization',
  method: 'post',
  path: '/admin/organizations',
  tags: ['Admin'],
  summary: 'Create an organisation',
  security: ADMIN_SECURITY,
  request: { body: { content: { 'application/json': { schema: Body } }, required: true } },
  responses: {
    201: { description: 'Created.', content: { 'application/json': { schema: Created } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, ...BODY_ERRORS),
  },
});

export function registerPostOrganization(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const result = await accounts.createOrganization(body, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: result.value }, 201);
  });
}
