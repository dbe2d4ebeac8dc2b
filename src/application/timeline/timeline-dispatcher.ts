/**
 * The outbox of live timeline fetches. Admission commits the job and its reservation
 * first and starts the workflow after; a process that dies in between leaves a job that
 * holds credits but has no workflow. The dispatcher finds such jobs (admitted more than
 * `graceMs` ago and never seen to start) and starts them. A start Temporal refuses as a
 * duplicate means the first start did happen, so the job is marked started either way.
 */
import type { Clock } from '../../ports/clock.ts';
import type { TimelineWorkflows } from '../../ports/timeline-workflows.ts';
import type { TimelineJobs } from './timeline-jobs.ts';

export class TimelineDispatcher {
  constructor(
    private readonly deps: {
      readonly jobs: TimelineJobs;
      readonly workflows: TimelineWorkflows;
      readonly clock: Clock;
      readonly graceMs: number;
    },
  ) {}

  /** One pass; returns how many workflows it started. */
  async dispatch(): Promise<{ started: number }> {
    const { jobs, workflows, clock, graceMs } = this.deps;
    const due = await jobs.unstarted(new Date(clock.now().getTime() - graceMs));
    for (const requestId of due) {
      await workflows.startTimelineFetch(requestId);
      await jobs.markStarted(requestId);
    }
    return { started: due.length };
  }
}
