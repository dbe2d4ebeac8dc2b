/**
 * TimelineWorkflows over a Temporal client. A live fetch's workflow id is
 * `timeline-<requestId>`, never reusable: a second start of the same job, even after the
 * first closed, is refused, so a job can be fetched (and charged) at most once. Every call
 * to the engine is bounded (engine-calls.ts).
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { LIVE_WORKFLOWS, workflowIds, type WorkflowPlacement } from '../../../workflows/task-queues.ts';
import type { FetchTimelineInput } from '../../../workflows/timeline.ts';
import type { WorkflowCaller, WorkflowState } from '../../ports/analysis-workflows.ts';
import type { TimelineStartOutcome, TimelineWorkflows } from '../../ports/timeline-workflows.ts';
import { DEFAULT_EXECUTION_TIMEOUT_SECONDS } from './analysis-workflows.ts';
import { engineCall, workflowState } from './engine-calls.ts';
import { accountSearchAttributes } from './search-attributes.ts';

export interface TimelineWorkflowOptions {
  /** Per-attempt limit of each activity; it must cover every portal call of one attempt. */
  readonly activityTimeoutSeconds: number;
  /** Attempts of each activity (timeouts and portal failures are retried) before the fetch fails. */
  readonly maximumAttempts: number;
  /** The workflow's execution timeout; the application's watchdog refunds a fetch that outlives it. */
  readonly executionTimeoutSeconds?: number;
  /** Live (default) or test mode's queue and ids. */
  readonly placement?: WorkflowPlacement;
}

export class TemporalTimelineWorkflows implements TimelineWorkflows {
  readonly available = true;

  constructor(
    private readonly client: Client,
    private readonly options: TimelineWorkflowOptions,
  ) {}

  async startTimelineFetch(requestId: string, caller: WorkflowCaller): Promise<TimelineStartOutcome> {
    const input: FetchTimelineInput = {
      requestId,
      callId: caller.requestId,
      activityTimeoutSeconds: this.options.activityTimeoutSeconds,
      maximumAttempts: this.options.maximumAttempts,
    };
    try {
      await engineCall(this.client, () =>
        this.client.workflow.start('fetchCaseTimeline', {
          taskQueue: (this.options.placement ?? LIVE_WORKFLOWS).queues.timeline,
          workflowId: this.#workflowId(requestId),
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

  timelineState(requestId: string): Promise<WorkflowState> {
    return workflowState(this.client, this.#workflowId(requestId));
  }

  #workflowId(requestId: string): string {
    return (this.options.placement ?? LIVE_WORKFLOWS).idPrefix + workflowIds.timeline(requestId);
  }
}
