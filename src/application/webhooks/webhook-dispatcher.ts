/**
 * Starts the workflow of each delivery the webhook projector recorded. The workflow id is
 * the delivery id's, so a start repeated (two dispatchers, or a crash between the start
 * and its mark) is refused by the engine as a duplicate and the delivery runs once. An
 * engine that cannot be reached ends the pass: the rows wait for the next one.
 */
import { WorkflowEngineUnavailableError } from '../../ports/analysis-workflows.ts';
import type { WebhookWorkflows } from '../../ports/webhooks.ts';
import type { WebhookDeliveries } from './webhook-deliveries.ts';

const BATCH = 100;

export class WebhookDispatcher {
  constructor(
    private readonly deps: {
      readonly deliveries: WebhookDeliveries;
      readonly workflows: WebhookWorkflows;
      readonly onDeliveryError: (deliveryId: string, error: unknown) => void;
    },
  ) {}

  /** One pass; how many workflows it started. */
  async dispatch(): Promise<number> {
    let started = 0;
    for (const delivery of await this.deps.deliveries.unstarted(BATCH)) {
      try {
        await this.deps.workflows.startDelivery(delivery.deliveryId, delivery.accountId);
      } catch (error) {
        if (error instanceof WorkflowEngineUnavailableError) return started;
        this.deps.onDeliveryError(delivery.deliveryId, error);
        continue;
      }
      await this.deps.deliveries.markStarted(delivery.deliveryId);
      started += 1;
    }
    return started;
  }
}
