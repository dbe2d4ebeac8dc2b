/**
 * Inline projection of the `webhooks-<accountId>` streams into webhook_endpoints, in the
 * appending transaction: the settings routes and the webhook projector read endpoints as
 * the stream says they are. A removed endpoint's row goes (its deliveries stay, for the
 * account's history, and are cancelled if still pending).
 */
import type { Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { assertNever } from '../../domain/decider.ts';
import type { WebhookEndpointsEvent } from '../../domain/webhook/webhook-endpoints.ts';
import type { InlineProjection, RecordedEvent } from '../../ports/event-store.ts';

export const WEBHOOK_ENDPOINT_EVENT_TYPES: readonly WebhookEndpointsEvent['type'][] = [
  'WebhookEndpointRegistered',
  'WebhookSecretRotated',
  'WebhookEndpointRemoved',
];

async function apply(trx: Trx, event: WebhookEndpointsEvent): Promise<void> {
  switch (event.type) {
    case 'WebhookEndpointRegistered': {
      const d = event.data;
      await trx
        .insertInto('webhookEndpoints')
        .values({
          endpointId: d.endpointId,
          accountId: d.accountId,
          url: d.url,
          eventTypes: jsonb(d.eventTypes),
          mode: d.mode ?? 'live',
          sealedSecret: d.secret.sealed,
          secretHint: d.secret.hint,
          createdAt: new Date(d.registeredAt),
        })
        .execute();
      return;
    }
    case 'WebhookSecretRotated': {
      const d = event.data;
      await trx
        .updateTable('webhookEndpoints')
        .set((eb) => ({
          previousSealedSecret: eb.ref('sealedSecret'),
          previousValidUntil: new Date(d.previousValidUntil),
          sealedSecret: d.secret.sealed,
          secretHint: d.secret.hint,
        }))
        .where('endpointId', '=', d.endpointId)
        .execute();
      return;
    }
    case 'WebhookEndpointRemoved':
      await trx.deleteFrom('webhookEndpoints').where('endpointId', '=', event.data.endpointId).execute();
      await trx
        .updateTable('webhookDeliveries')
        .set({ status: 'cancelled', finishedAt: new Date(event.data.removedAt) })
        .where('endpointId', '=', event.data.endpointId)
        .where('status', '=', 'pending')
        .execute();
      return;
    default:
      assertNever(event);
  }
}

export const webhookEndpointsReadModel: InlineProjection<Trx> = {
  name: 'webhook-endpoints',
  handles: WEBHOOK_ENDPOINT_EVENT_TYPES,
  async apply(trx: Trx, events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) await apply(trx, { type: event.type, data: event.data } as WebhookEndpointsEvent);
  },
};
