/**
 * Schemas the settings routes share: the success envelope, the logged-in user, a freshly
 * issued key (the only place a plaintext key appears) and the OpenAPI security
 * requirements of the session cookie and the CSRF header.
 */
import { z } from '@hono/zod-openapi';
import { TIERS } from '../../../domain/access/tiers.ts';
import { KEY_MODES } from '../../../domain/api-key/api-key.ts';
import type { ErrorCode } from '../../error-codes.ts';

export const SESSION_SECURITY = 'dashboardSession';
export const CSRF_SECURITY = 'csrfToken';

/** Security requirement of read routes, and of state-changing routes. */
export const READ_SECURITY = [{ [SESSION_SECURITY]: [] }];
export const WRITE_SECURITY = [{ [SESSION_SECURITY]: [], [CSRF_SECURITY]: [] }];

/** Every session route may find the standing changed since login: a suspended or deactivated one also ends the session. */
export const SESSION_STANDING_ERRORS = [
  'ACCOUNT_SUSPENDED',
  'ORGANIZATION_DEACTIVATED',
  'BILLING_INACTIVE',
] as const satisfies readonly ErrorCode[];

export const KeyIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: 'id', in: 'path' },
      description: 'Id of the key record.',
      example: 'key_0b9f6d2e-4c1a-4f7e-9a57-2a4d3c1e8b90',
    }),
});

export const SessionUserSchema = z
  .object({
    userId: z.string().openapi({ example: 'usr_5f0c2b8e-3d7a-4e21-b1f4-9c8d7e6a5b43' }),
    email: z.string().openapi({ example: 'advocate@example.in' }),
    role: z.enum(['MEMBER', 'ORG_ADMIN']).openapi({ description: 'ORG_ADMIN may rotate and revoke every key of the organisation.' }),
    organizationId: z.string().nullable().openapi({ example: 'org_7a1e4c9d-2b6f-4d83-a0e5-1f2c3b4d5e6f' }),
    tier: z.enum(TIERS),
  })
  .openapi('SettingsUser');

export const KeyModeSchema = z.enum(KEY_MODES).openapi({
  description: 'live (default): spends credits on the live corpus. test: crk_test prefix, test mode, never charged.',
  example: 'live',
});

export const IssuedKeySchema = z
  .object({
    id: z.string().openapi({ example: 'key_0b9f6d2e-4c1a-4f7e-9a57-2a4d3c1e8b90' }),
    name: z.string().openapi({ example: 'Research notebook' }),
    fullKey: z
      .string()
      .openapi({ description: 'Plaintext key, shown this once only.', example: 'crk_live-Zx3k9Qm2Lp7Vt4Nw8Rb1Yc6Hd5Fg0Js2-a9K3' }),
    displayKey: z.string().openapi({ description: 'Prefix, ellipsis, last 4 characters.', example: 'crk_live...a9K3' }),
    mode: KeyModeSchema,
  })
  .openapi('IssuedApiKey');
