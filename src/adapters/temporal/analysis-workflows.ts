/**
 * AnalysisWorkflows over a Temporal client. Single runs use the run id as workflow id and
 * refuse any reuse; a consolidated run's id is `consolidated-<caseNumber>`, reusable once
 * the previous run closed (a forced re-run) but never while one is running. Every call to
 * the engine is bounded (engine-calls.ts); awaiting a consolidated result is bounded by
 * the caller's deadline instead, since the workflow itself may rightly run that long.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { AnalyseCaseInput, ConsolidatedAnalysisInput } from '../../../workflows/analysis.ts';
import { LIVE_WORKFLOWS, workflowIds, type WorkflowPlacement } from '../../../workflows/task-queues.ts';
import type {
  AnalysisWorkflows,
  ConsolidatedStart,
  RunEnded,
  StartOutcome,
  WorkflowCaller,
  WorkflowState,
} from '../../ports/analysis-workflows.ts';
import { accountSearchAttributes } from './search-attributes.ts';
import { engineCall, workflowState } from './engine-calls.ts';

/** The default of WORKFLOW_RUN_MAX_SECONDS. */
export const DEFAULT_EXECUTION_TIMEOUT_SECONDS = 1800;

/** How long past its own deadline a consolidated result is awaited before the engine is taken for gone. */
const RESULT_GRACE_MS = 30_000;

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
    private readonly options: {
      readonly activityTimeoutSeconds: number;
      /** The workflow's execution timeout; the application's watchdog refunds a run that outlives it. */
      readonly executionTimeoutSeconds?: number;
      /** Live (default) or test mode's queue and ids. */
      readonly placement?: WorkflowPlacement;
    },
  ) {}

  get #placement(): WorkflowPlacement {
    return this.options.placement ?? LIVE_WORKFLOWS;
  }

  async startAnalysis(runId: string, caller: WorkflowCaller): Promise<StartOutcome> {
    const input: AnalyseCaseInput = { runId, activityTimeoutSeconds: this.options.activityTimeoutSeconds, requestId: caller.requestId };
    try {
      await engineCall(this.client, () =>
        this.client.workflow.start('analyseCase', {
          taskQueue: this.#placement.queues.analysis,
          workflowId: this.#placement.idPrefix + workflowIds.analysis(runId),
          args: [input],
          typedSearchAttributes: accountSearchAttributes(caller.accountId),
          workflowExecutionTimeout: (this.options.executionTimeoutSeconds ?? DEFAULT_EXECUTION_TIMEOUT_SECONDS) * 1000,
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

  async startConsolidated(
    runId: string,
    caseNumberNormalised: string,
    deadlineSeconds: number,
    caller: WorkflowCaller,
  ): Promise<ConsolidatedStart> {
    const workflowId = this.#placement.idPrefix + workflowIds.consolidated(caseNumberNormalised);
    const input: ConsolidatedAnalysisInput = {
      runId,
      activityTimeoutSeconds: this.options.activityTimeoutSeconds,
      deadlineSeconds,
      requestId: caller.requestId,
    };
    const patience = deadlineSeconds * 1000 + RESULT_GRACE_MS;
    try {
      const handle = await engineCall(this.client, () =>
        this.client.workflow.start('analyseConsolidated', {
          taskQueue: this.#placement.queues.analysis,
          workflowId,
          args: [input],
          typedSearchAttributes: accountSearchAttributes(caller.accountId),
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        }),
      );
      return { started: true, result: () => this.#outcome(() => handle.result(), patience) };
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const running = this.client.workflow.getHandle(workflowId);
      return { started: false, wait: () => this.#outcome(() => running.result(), patience) };
    }
  }

  analysisState(runId: string): Promise<WorkflowState> {
    return workflowState(this.client, this.#placement.idPrefix + workflowIds.analysis(runId));
  }

  async #outcome(result: () => Promise<unknown>, patienceMs: number): Promise<RunEnded> {
    try {
      await engineCall(this.client, result, patienceMs);
      return { status: 'stored' };
    } catch (error) {
      if (error instanceof WorkflowFailedError) return { status: 'failed', reason: failureReason(error) };
      throw error;
    }
  }
}
