/**
 * Starting and looking up the workflow of a live timeline fetch, as the application sees
 * it. Temporal stands behind it; the workflow id is derived from the job
 * (`timeline-<requestId>`), so a second start of the same job is refused, never run twice.
 * An engine that cannot be reached answers with `WorkflowEngineUnavailableError` in time.
 */
import { WorkflowEngineUnavailableError, type WorkflowCaller, type WorkflowState } from './analysis-workflows.ts';

export type TimelineStartOutcome = 'started' | 'already-started';

export interface TimelineWorkflows {
  /** False when no workflow engine could be reached at start: live fetches are refused before anything is charged. */
  readonly available: boolean;
  startTimelineFetch(requestId: string, caller: WorkflowCaller): Promise<TimelineStartOutcome>;
  /** The engine's view of a live fetch's workflow. */
  timelineState(requestId: string): Promise<WorkflowState>;
}

const unavailable = () => Promise.reject(new WorkflowEngineUnavailableError('no workflow engine is available'));

/** Stands in when Temporal could not be opened at start. */
export const unavailableTimelineWorkflows: TimelineWorkflows = {
  available: false,
  startTimelineFetch: unavailable,
  timelineState: unavailable,
};
