/**
 * The webhook delivery's activities, built by a factory over the application's
 * deliveries (which hold the sender and the secrets). An attempt that is not a 2xx
 * throws a retryable failure so Temporal's retry policy spaces the next one; a refused
 * address throws a non-retryable one. Logs carry the delivery id and outcome only.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WebhookDeliveries } from '../../src/application/webhooks/webhook-deliveries.ts';
import { WEBHOOK_FAILURES, type WebhookActivities } from '../webhook-activity-types.ts';

export function createWebhookActivities(deps: { readonly deliveries: WebhookDeliveries }): WebhookActivities {
  return {
    async attemptWebhookDelivery(deliveryId) {
      const outcome = await deps.deliveries.attempt(deliveryId);
      const log = Context.current().log;
      switch (outcome.kind) {
        case 'delivered':
          log.info('webhook delivered', { deliveryId, status: outcome.status });
          return 'delivered';
        case 'settled':
          return 'settled';
        case 'retry':
          log.info('webhook attempt failed', { deliveryId, reason: outcome.reason });
          throw ApplicationFailure.retryable(outcome.reason, WEBHOOK_FAILURES.rejected);
        case 'refused':
          log.warn('webhook address refused', { deliveryId });
          throw ApplicationFailure.nonRetryable(outcome.reason, WEBHOOK_FAILURES.refused);
      }
    },
    async failWebhookDelivery(deliveryId) {
      await deps.deliveries.fail(deliveryId);
    },
  };
}
