/**
 * Starting the workflow of a live timeline fetch, as the application and the outbox
 * dispatcher see it. Temporal stands behind it; the workflow id is derived from the job
 * (`timeline-<requestId>`), so a second start of the same job is refused, never run twice.
 */
export type TimelineStartOutcome = 'started' | 'already-started';

export interface TimelineWorkflows {
  /** False when no workflow engine could be reached at start: live fetches are refused before anything is charged. */
  readonly available: boolean;
  startTimelineFetch(requestId: string): Promise<TimelineStartOutcome>;
}

/** Stands in when Temporal could not be opened at start. */
export const unavailableTimelineWorkflows: TimelineWorkflows = {
  available: false,
  startTimelineFetch: () => Promise.reject(new Error('no workflow engine is available')),
};
