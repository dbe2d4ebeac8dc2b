/**
 * AnalysisWorkflows over a Temporal client. Single runs use the run id as workflow id and
 * refuse any reuse; a consolidated run's id is `consolidated-<caseNumber>`, reusable once
 * the previous run closed (a forced re-run) but never while one is running.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { AnalyseCaseInput, ConsolidatedAnalysisInput } from '../../../workflows/analysis.ts';
import { TASK_QUEUES, workflowIds } from '../../../workflows/task-queues.ts';
import type { AnalysisWorkflows, ConsolidatedStart, RunEnded, StartOutcome } from '../../ports/analysis-workflows.ts';

function failureReason(error: unknown): string {
  if (error instanceof WorkflowFailedError) {
    const cause = error.cause;
    return cause?.message ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export class TemporalAnalysisWorkflows implements AnalysisWorkflows {
  readonly available = true;

  constructor(
    private readonly client: Client,
    private readonly options: { readonly activityTimeoutSeconds: number },
  ) {}

  async startAnalysis(runId: string): Promise<StartOutcome> {
    const input: AnalyseCaseInput = { runId, activityTimeoutSeconds: this.options.activityTimeoutSeconds };
    try {
      await this.client.workflow.start('analyseCase', {
        taskQueue: TASK_QUEUES.analysis,
        workflowId: workflowIds.analysis(runId),
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      });
      return 'started';
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already-started';
      throw error;
    }
  }

  async startConsolidated(runId: string, caseNumberNormalised: string, deadlineSeconds: number): Promise<ConsolidatedStart> {
    const workflowId = workflowIds.consolidated(caseNumberNormalised);
    const input: ConsolidatedAnalysisInput = { runId, activityTimeoutSeconds: this.options.activityTimeoutSeconds, deadlineSeconds };
    try {
      const handle = await this.client.workflow.start('analyseConsolidated', {
        taskQueue: TASK_QUEUES.analysis,
        workflowId,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      });
      return { started: true, result: () => this.#outcome(() => handle.result()) };
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const running = this.client.workflow.getHandle(workflowId);
      return { started: false, wait: () => this.#outcome(() => running.result()) };
    }
  }

  async #outcome(result: () => Promise<unknown>): Promise<RunEnded> {
    try {
      await result();
      return { status: 'stored' };
    } catch (error) {
      if (error instanceof WorkflowFailedError) return { status: 'failed', reason: failureReason(error) };
      throw error;
    }
  }
}
