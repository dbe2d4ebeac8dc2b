/**
 * The outbox and watchdog of live timeline fetches, as for analysis runs (see
 * run-dispatcher.ts): no admitted fetch may hold a caller's credits without a workflow
 * that will either complete it or give them back. An unstarted job (its process died
 * between admission and start) is started, or failed and released once it is
 * `startBoundMs` old; a started job the engine no longer knows as running is failed and
 * refunded once `orphanCheckMs` old, and any job older than `maxRunMs` (the workflow's own
 * execution timeout) is failed whatever the engine says.
 */
import { WorkflowEngineUnavailableError } from '../../ports/analysis-workflows.ts';
import type { Clock } from '../../ports/clock.ts';
import type { TimelineWorkflows } from '../../ports/timeline-workflows.ts';
import { ENGINE_DOWN_MESSAGE } from './timeline-requests.ts';
import type { TimelineJobs } from './timeline-jobs.ts';

export interface TimelineDispatcherDeps {
  readonly jobs: TimelineJobs;
  readonly workflows: TimelineWorkflows;
  readonly clock: Clock;
  readonly graceMs: number;
  readonly startBoundMs: number;
  readonly orphanCheckMs: number;
  readonly maxRunMs: number;
  /** A job the pass could not settle this time (it is tried again on the next). */
  readonly onJobError: (requestId: string, error: unknown) => void;
}

type Step = 'started' | 'failed' | 'waiting';

export class TimelineDispatcher {
  constructor(private readonly deps: TimelineDispatcherDeps) {}

  /** One pass over the outbox and the watchdog. */
  async dispatch(): Promise<{ started: number; failed: number }> {
    const now = this.deps.clock.now().getTime();
    let started = 0;
    let failed = 0;
    for (const job of await this.deps.jobs.unstarted(new Date(now - this.deps.graceMs))) {
      const step = await this.#guard(job.requestId, () => this.#unstarted(job, now - job.createdAt.getTime()));
      if (step === 'started') started += 1;
      if (step === 'failed') failed += 1;
    }
    for (const job of await this.deps.jobs.startedAndRunning(new Date(now - this.deps.orphanCheckMs))) {
      if ((await this.#guard(job.requestId, () => this.#watch(job.requestId, now - job.createdAt.getTime()))) === 'failed') failed += 1;
    }
    return { started, failed };
  }

  async #unstarted({ requestId, accountId }: { requestId: string; accountId: string }, age: number): Promise<Step> {
    if (age > this.deps.startBoundMs) return this.#fail(requestId);
    try {
      // The job does not keep the call that admitted it: a recovered start logs without one.
      await this.deps.workflows.startTimelineFetch(requestId, { accountId });
    } catch (error) {
      if (error instanceof WorkflowEngineUnavailableError) return 'waiting';
      throw error;
    }
    await this.deps.jobs.markStarted(requestId);
    return 'started';
  }

  async #watch(requestId: string, age: number): Promise<Step> {
    if (age > this.deps.maxRunMs) return this.#fail(requestId);
    let state;
    try {
      state = await this.deps.workflows.timelineState(requestId);
    } catch (error) {
      if (error instanceof WorkflowEngineUnavailableError) return 'waiting';
      throw error;
    }
    return state === 'running' ? 'waiting' : this.#fail(requestId);
  }

  async #fail(requestId: string): Promise<Step> {
    return (await this.deps.jobs.fail(requestId, 'UPSTREAM_UNAVAILABLE', ENGINE_DOWN_MESSAGE)) === 'failed' ? 'failed' : 'waiting';
  }

  async #guard(requestId: string, work: () => Promise<Step>): Promise<Step> {
    try {
      return await work();
    } catch (error) {
      this.deps.onJobError(requestId, error);
      return 'waiting';
    }
  }
}
