/**
 * POST /admin/users: registers a user on a tier, optionally in an organisation (which must
 * exist and be active). Operator-created users are email-verified and provisioned for API
 * access unless the body says otherwise; with no password they cannot sign in to the
 * dashboard until one is set.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import { TIERS } from '../../../domain/access/tiers.ts';
import type { App } from '../../app-types.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { accountError } from '../../account-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, LimitOverridesSchema } from './schemas.ts';
import { envelope } from '../../envelope.ts';

const Body = z
  .object({
    email: z.string().min(3).max(254).openapi({ example: 'priya@acme-legal.example' }),
    name: z.string().min(1).max(200).openapi({ example: 'Priya Raman' }),
    tier: z.enum(TIERS).openapi({ example: 'enterprise' }),
    organizationId: z.string().min(1).max(200).optional().openapi({ description: 'An active organisation; omitted: no organisation.' }),
    role: z.enum(['MEMBER', 'ORG_ADMIN']).default('MEMBER').openapi({ description: 'ORG_ADMIN needs organizationId.' }),
    trial: z.boolean().default(false).openapi({ description: 'Trial accounts have no API access.' }),
    emailVerified: z.boolean().default(true).openapi({ description: 'false: a Free user cannot create keys until verified.' }),
    apiAccess: z.boolean().default(true).openapi({ description: 'false: an Enterprise account whose API access is not provisioned.' }),
    password: z.string().min(8).max(200).optional().openapi({ description: 'Dashboard password; stored only as a hash.' }),
    limitOverrides: LimitOverridesSchema.optional().openapi({
      description: 'Custom limits of a commercial account; each replaces its tier default (null: unlimited where allowed).',
    }),
  })
  .strict()
  .openapi('AdminCreateUser');

const Created = envelope(
  z.object({
    userId: z.string().openapi({ example: 'usr_5d0c3f0a-6f7e-4a3b-8e0d-2b8f6e1c4a9d' }),
    organizationId: z.string().optional().openapi({ description: 'Present when the user joined an organisation.' }),
  }),
).openapi('AdminUserCreated');

const route = createRoute({
  operationId: 'adminCreateUser',
  method: 'post',
  path: '/admin/users',
  tags: ['Admin'],
  summary: 'Create a user',
  security: ADMIN_SECURITY,
  request: { body: { content: { 'application/json': { schema: Body } }, required: true } },
  responses: {
    201: { description: 'Created.', content: { 'application/json': { schema: Created } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'ORGANIZATION_NOT_FOUND', 'ORGANIZATION_DEACTIVATED', 'EMAIL_TAKEN', ...BODY_ERRORS),
  },
});

export function registerPostUser(app: App, accounts: AccountsService): void {
  app.openapi(route, async (c) => {
    const { organizationId, password, limitOverrides, ...body } = c.req.valid('json');
    const user = { ...body, organizationId: organizationId ?? null, password: password ?? null, limitOverrides: limitOverrides ?? {} };
    const result = await accounts.registerUser(user, { kind: 'operator' }, c.get('requestId'));
    if (!result.ok) throw accountError(result.error);
    return c.json({ success: true as const, data: { userId: result.value.userId, ...(organizationId ? { organizationId } : {}) } }, 201);
  });
}
