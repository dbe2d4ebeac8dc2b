/**
 * Inline projection of organisation, user and API-key events into their read-model tables,
 * in the appending transaction: a revoked key is revoked in the lookup table at the same
 * commit as its event. An erased user's row, dashboard sessions, and their own account's
 * webhook endpoints and deliveries (URLs, secrets, receivers' error texts) go at the commit
 * of the erasure: nothing of the person stays to look up.
 */
import type { InlineProjection, RecordedEvent } from '../../ports/event-store.ts';
import type { Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import type { ApiKeyEvent } from '../../domain/api-key/api-key.ts';
import { assertNever } from '../../domain/decider.ts';
import type { OrganizationEvent } from '../../domain/organization/organization.ts';
import type { UserEvent } from '../../domain/user/user.ts';

type AccountEvent = OrganizationEvent | UserEvent | ApiKeyEvent;

export const ACCOUNT_EVENT_TYPES: readonly AccountEvent['type'][] = [
  'OrganizationCreated',
  'OrganizationDeactivated',
  'OrganizationAllowlistSet',
  'UserRegistered',
  'UserStandingChanged',
  'UserErased',
  'ApiKeyCreated',
  'ApiKeyRotated',
  'ApiKeyRevoked',
];

async function apply(trx: Trx, event: AccountEvent, at: Date): Promise<void> {
  switch (event.type) {
    case 'OrganizationCreated':
      await trx
        .insertInto('organizations')
        .values({ ...event.data, allowlist: jsonb(event.data.allowlist), status: 'active', updatedAt: at })
        .execute();
      return;
    case 'OrganizationDeactivated':
      await trx
        .updateTable('organizations')
        .set({ status: 'deactivated', updatedAt: at })
        .where('organizationId', '=', event.data.organizationId)
        .execute();
      return;
    case 'OrganizationAllowlistSet':
      await trx
        .updateTable('organizations')
        .set({ allowlist: jsonb(event.data.allowlist), strictAllowlist: event.data.strictAllowlist, updatedAt: at })
        .where('organizationId', '=', event.data.organizationId)
        .execute();
      return;
    case 'UserRegistered':
      await trx
        .insertInto('users')
        .values({ ...event.data, limitOverrides: jsonb(event.data.limitOverrides), standing: 'active', updatedAt: at })
        .execute();
      return;
    case 'UserStandingChanged':
      await trx
        .updateTable('users')
        .set({ standing: event.data.standing, updatedAt: at })
        .where('userId', '=', event.data.userId)
        .execute();
      return;
    case 'UserErased':
      await trx.deleteFrom('dashboardSessions').where('userId', '=', event.data.userId).execute();
      await trx.deleteFrom('webhookEndpoints').where('accountId', '=', event.data.userId).execute();
      await trx.deleteFrom('webhookDeliveries').where('accountId', '=', event.data.userId).execute();
      await trx.deleteFrom('users').where('userId', '=', event.data.userId).execute();
      return;
    case 'ApiKeyCreated':
      await trx
        .insertInto('apiKeys')
        .values({
          keyId: event.data.keyId,
          keyHash: event.data.keyHash,
          userId: event.data.userId,
          organizationId: event.data.organizationId,
          name: event.data.name,
          displayKey: event.data.displayKey,
          status: 'active',
          graceEndsAt: null,
          rotatedFrom: event.data.rotatedFrom,
          replacedBy: null,
          createdAt: new Date(event.data.createdAt),
          revokedAt: null,
        })
        .execute();
      return;
    case 'ApiKeyRotated':
      await trx
        .updateTable('apiKeys')
        .set({ status: 'rotated', graceEndsAt: new Date(event.data.graceEndsAt), replacedBy: event.data.replacedBy })
        .where('keyId', '=', event.data.keyId)
        .execute();
      return;
    case 'ApiKeyRevoked':
      await trx
        .updateTable('apiKeys')
        .set({ status: 'revoked', revokedAt: new Date(event.data.revokedAt) })
        .where('keyId', '=', event.data.keyId)
        .execute();
      return;
    default:
      assertNever(event);
  }
}

export const accountsReadModel: InlineProjection<Trx> = {
  name: 'accounts-read-model',
  handles: ACCOUNT_EVENT_TYPES,
  apply: async (trx, events: readonly RecordedEvent[]) => {
    for (const event of events) await apply(trx, { type: event.type, data: event.data } as AccountEvent, event.recordedAt);
  },
};
