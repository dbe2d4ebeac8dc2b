/**
 * GET /api/settings/api-keys: the keys the user may see (their own; an ORG_ADMIN sees the
 * organisation's). Status is derived at read time: a rotated key is in grace until its
 * window ends, expired after. Never the plaintext or the hash.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import { actorFor } from '../../../application/sessions/session-service.ts';
import { keyStanding } from '../../../domain/api-key/api-key.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KeyModeSchema, READ_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import { envelope } from '../../envelope.ts';
import type { SessionGuards } from './session-support.ts';

export interface ListKeysDeps {
  readonly accounts: AccountsService;
  readonly guards: SessionGuards;
  readonly clock: Clock;
}

const KeySummary = z
  .object({
    id: z.string().openapi({ example: 'key_0b9f6d2e-4c1a-4f7e-9a57-2a4d3c1e8b90' }),
    name: z.string().openapi({ example: 'Research notebook' }),
    displayKey: z.string().openapi({ example: 'crk_live...a9K3' }),
    mode: KeyModeSchema,
    status: z
      .enum(['active', 'grace', 'expired', 'revoked'])
      .openapi({ description: 'grace: rotated, still authenticates until expiresAt.' }),
    userId: z.string().openapi({ description: 'Owner of the key.' }),
    createdAt: z.string().openapi({ example: '2025-01-15T10:30:00.000Z' }),
    expiresAt: z.string().nullable().openapi({ description: 'End of the grace window of a rotated key; null otherwise.' }),
  })
  .openapi('ApiKeySummary');

const route = createRoute({
  operationId: 'listApiKeys',
  method: 'get',
  path: '/api/settings/api-keys',
  tags: ['Dashboard'],
  summary: 'List the API keys you may see',
  security: READ_SECURITY,
  responses: {
    200: { description: 'Newest first.', content: { 'application/json': { schema: envelope(z.array(KeySummary)) } } },
    ...errorResponses('SESSION_REQUIRED', ...SESSION_STANDING_ERRORS),
  },
});

const iso = (value: Date | string) => new Date(value).toISOString();

export function registerListApiKeys(app: App, deps: ListKeysDeps): void {
  app.openapi({ ...route, middleware: deps.guards.read('keys.list') }, async (c) => {
    const rows = await deps.accounts.listKeys(actorFor(c.get('session').user));
    const now = deps.clock.now().toISOString();
    const data = rows.map((row) => {
      const graceEndsAt = row.graceEndsAt === null ? null : iso(row.graceEndsAt);
      return {
        id: row.keyId,
        name: row.name,
        displayKey: row.displayKey,
        mode: row.mode,
        status: keyStanding(row.status as 'active' | 'rotated' | 'revoked', graceEndsAt, now),
        userId: row.userId,
        createdAt: iso(row.createdAt),
        expiresAt: row.status === 'rotated' ? graceEndsAt : null,
      };
    });
    return c.json({ success: true as const, data }, 200);
  });
}
