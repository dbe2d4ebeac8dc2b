/**
 * GET /me: the identity behind the key. Unmetered, but it passes the whole gate (standing,
 * entitlement, allowlist) and consumes a rate-limit slot like any keyed call.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { TIER_NAMES, TIERS } from '../../../domain/access/tiers.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from './keyed-route-support.ts';

const MeSchema = z
  .object({
    userId: z.string().openapi({ example: 'usr_6f1c2a9e-2d4b-4d1e-9a51-0b7f0e9c1a22' }),
    email: z.string().openapi({ example: 'research@lawfirm.example' }),
    name: z.string(),
    role: z.enum(['MEMBER', 'ORG_ADMIN']),
    organizationId: z.string().optional().openapi({ description: 'Absent (not null) when the account has no organisation.' }),
    tier: z.enum(TIERS),
    tierName: z.string().openapi({ example: 'Enterprise' }),
    keyId: z.string().openapi({ description: 'The key that made this call.' }),
  })
  .openapi('Me');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getMe',
    method: 'get',
    path: '/me',
    tags: ['Account'],
    summary: 'Identity behind the API key',
    description: 'Price: 0 credits. Consumes a rate-limit slot. Call it first to learn the identifiers /audit needs.',
    security: keyedSecurity,
    middleware: [auth] as const,
    responses: {
      200: {
        description: 'The identity behind the key.',
        content: { 'application/json': { schema: z.object({ success: z.literal(true), data: MeSchema }) } },
      },
      ...errorResponses(...KEYED_ERRORS),
    },
  });

export function registerGetMe(app: App, auth: MiddlewareHandler<AppEnv>): void {
  app.openapi(route(auth), (c) => {
    const p = principalOf(c);
    return c.json(
      {
        success: true as const,
        data: {
          userId: p.userId,
          email: p.email,
          name: p.name,
          role: p.role,
          ...(p.organizationId === null ? {} : { organizationId: p.organizationId }),
          tier: p.tier,
          tierName: TIER_NAMES[p.tier],
          keyId: p.keyId,
        },
      },
      200,
    );
  });
}
