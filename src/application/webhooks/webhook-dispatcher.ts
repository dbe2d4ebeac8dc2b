/**
 * Starts the workflow of each delivery the webhook projector recorded. The workflow id is
 * the delivery id's, so a start repeated (two dispatchers, or a crash between the start
 * and its mark) is refused by the engine as a duplicate and the delivery runs once. An
 * engine that cannot be reached ends the pass: the rows wait for the next one.
 *
 * It is also the deliveries' watchdog. A delivery stays pending only while its workflow
 * runs; one quiet for `watchAfterMs` (no attempt, no check) is looked up in the engine. A
 * workflow the engine no longer knows (its history was lost: an in-memory or wiped dev
 * server) is started again under the same webhook-id, which receivers deduplicate on; one
 * that ended without settling the row (terminated or cancelled from outside) marks it
 * failed. Either way no delivery stays pending for ever.
 *
 * Starts are fair between accounts (domain/webhook/fair-delivery.ts): each pass takes the
 * accounts in turn, and an account never has more than its in-flight limit of workflows
 * running, the limit claimed in the database so it holds across instances. An account
 * aiming its deliveries at a receiver that never answers thus holds a few attempt slots at
 * most, and waits behind its own backlog, not anyone else's.
 */
import { WorkflowEngineUnavailableError } from '../../ports/analysis-workflows.ts';
import { planStarts } from '../../domain/webhook/fair-delivery.ts';
import type { Clock } from '../../ports/clock.ts';
import type { WebhookWorkflows } from '../../ports/webhooks.ts';
import type { WebhookDeliveries } from './webhook-deliveries.ts';

const BATCH = 100;

export const ENDED_UNSETTLED = 'its workflow ended without settling it (terminated or cancelled in the workflow engine)';

export interface WebhookDispatchPass {
  readonly started: number;
  /** Found unknown to the engine and put back in the outbox. */
  readonly restarted: number;
  /** Found ended without being settled. */
  readonly failed: number;
}

export class WebhookDispatcher {
  constructor(
    private readonly deps: {
      readonly deliveries: WebhookDeliveries;
      readonly workflows: WebhookWorkflows;
      readonly clock: Clock;
      /** How long a pending delivery may go unheard of before its workflow is looked up. */
      readonly watchAfterMs: number;
      /** Workflows one account may have running at once. */
      readonly perAccountInFlight: number;
      readonly onDeliveryError: (deliveryId: string, error: unknown) => void;
    },
  ) {}

  async dispatch(): Promise<WebhookDispatchPass> {
    const pass = { started: 0, restarted: 0, failed: 0 };
    try {
      await this.#start(pass);
      await this.#watch(pass);
    } catch (error) {
      if (!(error instanceof WorkflowEngineUnavailableError)) throw error;
    }
    return pass;
  }

  async #start(pass: { started: number }): Promise<void> {
    const { deliveries, perAccountInFlight } = this.deps;
    const waiting = await deliveries.unstarted(perAccountInFlight, BATCH);
    const inFlight = await deliveries.inFlight([...new Set(waiting.map((d) => d.accountId))]);
    for (const delivery of planStarts(waiting, inFlight, perAccountInFlight, BATCH)) {
      if (!(await deliveries.claimStart(delivery, perAccountInFlight))) continue;
      try {
        await this.deps.workflows.startDelivery(delivery.deliveryId, delivery.accountId);
      } catch (error) {
        await deliveries.restart(delivery.deliveryId);
        if (error instanceof WorkflowEngineUnavailableError) throw error;
        this.deps.onDeliveryError(delivery.deliveryId, error);
        continue;
      }
      pass.started += 1;
    }
  }

  async #watch(pass: { restarted: number; failed: number }): Promise<void> {
    const { deliveries, workflows } = this.deps;
    const quietSince = new Date(this.deps.clock.now().getTime() - this.deps.watchAfterMs);
    for (const { deliveryId } of await deliveries.startedAndQuiet(quietSince, BATCH)) {
      let state;
      try {
        state = await workflows.deliveryState(deliveryId);
      } catch (error) {
        if (error instanceof WorkflowEngineUnavailableError) throw error;
        this.deps.onDeliveryError(deliveryId, error);
        continue;
      }
      if (state === 'running') await deliveries.markWatched(deliveryId);
      else if (state === 'unknown') {
        await deliveries.restart(deliveryId);
        pass.restarted += 1;
      } else {
        await deliveries.fail(deliveryId, ENDED_UNSETTLED);
        pass.failed += 1;
      }
    }
  }
}
