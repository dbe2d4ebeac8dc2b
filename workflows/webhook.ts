/**
 * One webhook delivery, workflow id `webhook-<deliveryId>`. The attempt activity is
 * retried by Temporal's retry policy with exponential backoff (its schedule is the
 * input's, from config: short in tests); once the attempts are spent, or the address is
 * refused, the delivery is marked failed, and that activity retries until it succeeds.
 */
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import { WEBHOOK_FAILURES, type WebhookActivities } from './webhook-activity-types.ts';

export interface WebhookRetrySchedule {
  readonly initialIntervalMs: number;
  readonly backoffCoefficient: number;
  readonly maximumIntervalMs: number;
  readonly maximumAttempts: number;
}

export interface DeliverWebhookInput {
  readonly deliveryId: string;
  /** Per-attempt limit; the sender's own timeout is shorter, so an attempt ends with an answer or an error. */
  readonly attemptTimeoutMs: number;
  readonly retry: WebhookRetrySchedule;
}

export async function deliverWebhook(input: DeliverWebhookInput): Promise<'delivered' | 'settled' | 'failed'> {
  const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.attemptTimeoutMs,
    retry: {
      initialInterval: input.retry.initialIntervalMs,
      backoffCoefficient: input.retry.backoffCoefficient,
      maximumInterval: input.retry.maximumIntervalMs,
      maximumAttempts: input.retry.maximumAttempts,
      nonRetryableErrorTypes: [WEBHOOK_FAILURES.refused],
    },
  });
  const { failWebhookDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.attemptTimeoutMs,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  try {
    return await attemptWebhookDelivery(input.deliveryId);
  } catch {
    await CancellationScope.nonCancellable(() => failWebhookDelivery(input.deliveryId));
    return 'failed';
  }
}
