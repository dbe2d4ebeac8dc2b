/**
 * Calls to the Temporal frontend with a deadline, so an engine that is down answers within
 * `ENGINE_CALL_DEADLINE_MS` instead of letting gRPC retry for as long as it likes (a health
 * check on a stopped dev server otherwise waits about 20 s). Errors the application acts on
 * pass through; anything else means the call did not do what it was asked, and becomes
 * `WorkflowEngineUnavailableError`, on which the application refuses or refunds.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { WorkflowEngineUnavailableError, type WorkflowState } from '../../ports/analysis-workflows.ts';

export const ENGINE_CALL_DEADLINE_MS = 5_000;

export async function engineCall<T>(client: Client, call: () => Promise<T>, deadlineMs = ENGINE_CALL_DEADLINE_MS): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + deadlineMs, call);
  } catch (error) {
    if (
      error instanceof WorkflowExecutionAlreadyStartedError ||
      error instanceof WorkflowNotFoundError ||
      error instanceof WorkflowFailedError
    )
      throw error;
    throw new WorkflowEngineUnavailableError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** What the engine knows of workflow `workflowId`. */
export async function workflowState(client: Client, workflowId: string): Promise<WorkflowState> {
  try {
    const described = await engineCall(client, () => client.workflow.getHandle(workflowId).describe());
    return described.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'unknown';
    throw error;
  }
}
