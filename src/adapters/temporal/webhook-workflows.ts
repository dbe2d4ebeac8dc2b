/**
 * WebhookWorkflows over a Temporal client: workflow id `webhook-<deliveryId>`, never
 * reusable while the engine remembers it, so a delivery is started at most once however
 * often the dispatcher tries; only one whose history the engine lost can start again.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { TASK_QUEUES, workflowIds } from '../../../workflows/task-queues.ts';
import type { DeliverWebhookInput, WebhookRetrySchedule } from '../../../workflows/webhook.ts';
import type { WorkflowState } from '../../ports/analysis-workflows.ts';
import type { DeliveryStartOutcome, WebhookWorkflows } from '../../ports/webhooks.ts';
import { engineCall, workflowState } from './engine-calls.ts';
import { accountSearchAttributes } from './search-attributes.ts';

export interface WebhookWorkflowOptions {
  readonly attemptTimeoutMs: number;
  readonly retry: WebhookRetrySchedule;
}

export class TemporalWebhookWorkflows implements WebhookWorkflows {
  readonly available = true;

  constructor(
    private readonly client: Client,
    private readonly options: WebhookWorkflowOptions,
  ) {}

  async startDelivery(deliveryId: string, accountId: string): Promise<DeliveryStartOutcome> {
    const input: DeliverWebhookInput = { deliveryId, attemptTimeoutMs: this.options.attemptTimeoutMs, retry: this.options.retry };
    try {
      await engineCall(this.client, () =>
        this.client.workflow.start('deliverWebhook', {
          taskQueue: TASK_QUEUES.webhooks,
          workflowId: workflowIds.webhook(deliveryId),
          args: [input],
          typedSearchAttributes: accountSearchAttributes(accountId),
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        }),
      );
      return 'started';
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already-started';
      throw error;
    }
  }

  deliveryState(deliveryId: string): Promise<WorkflowState> {
    return workflowState(this.client, workflowIds.webhook(deliveryId));
  }
}
