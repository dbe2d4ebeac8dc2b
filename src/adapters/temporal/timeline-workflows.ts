/**
 * TimelineWorkflows over a Temporal client. A live fetch's workflow id is
 * `timeline-<requestId>`, never reusable: a second start of the same job, even after the
 * first closed, is refused, so a job can be fetched (and charged) at most once.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { TASK_QUEUES, workflowIds } from '../../../workflows/task-queues.ts';
import type { FetchTimelineInput } from '../../../workflows/timeline.ts';
import type { TimelineStartOutcome, TimelineWorkflows } from '../../ports/timeline-workflows.ts';

export interface TimelineWorkflowOptions {
  /** Per-attempt limit of each activity; it must cover every portal call of one attempt. */
  readonly activityTimeoutSeconds: number;
  /** Attempts of each activity (timeouts and portal failures are retried) before the fetch fails. */
  readonly maximumAttempts: number;
}

export class TemporalTimelineWorkflows implements TimelineWorkflows {
  readonly available = true;

  constructor(
    private readonly client: Client,
    private readonly options: TimelineWorkflowOptions,
  ) {}

  async startTimelineFetch(requestId: string): Promise<TimelineStartOutcome> {
    const input: FetchTimelineInput = { requestId, ...this.options };
    try {
      await this.client.workflow.start('fetchCaseTimeline', {
        taskQueue: TASK_QUEUES.timeline,
        workflowId: workflowIds.timeline(requestId),
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
}
