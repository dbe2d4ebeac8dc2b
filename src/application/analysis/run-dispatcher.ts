/**
 * The outbox and watchdog of analysis runs: no admitted run may keep a caller's credits
 * without a workflow that will either store its result or give them back.
 *
 * Outbox. Admission commits the run and its charge first and starts the workflow after; a
 * start that fails is failed and refunded by the request itself, but a process that dies
 * in between leaves a run that is charged and has no workflow. The dispatcher finds such
 * runs (admitted more than `graceMs` ago, never seen to start) and starts them; a start
 * Temporal refuses as a duplicate means the first start did happen. A run that still has
 * not started `startBoundMs` after admission (the engine stayed down) is failed and
 * refunded. A consolidated run's caller waits synchronously; if its process died before
 * the start, nobody is waiting any more, so it is failed at once.
 *
 * Watchdog. A started run the engine no longer knows as running (its history was lost, or
 * it was terminated or timed out, none of which runs the refund path) is failed and
 * refunded once it is `orphanCheckMs` old. A run older than `maxRunMs`, the workflow's
 * own execution timeout, cannot finish any more and is failed whatever the engine says,
 * so an engine that stays unreachable cannot hold credits for longer than that. A
 * consolidated run whose caller's process died is failed past `consolidatedMaxMs`.
 * Failing is safe against a late result: a run that stored first keeps its result and
 * charge, and a result arriving after the refund is not kept.
 */
import { failureReason } from '../../domain/analysis-request/failure.ts';
import { WorkflowEngineUnavailableError, type AnalysisWorkflows } from '../../ports/analysis-workflows.ts';
import type { Clock } from '../../ports/clock.ts';
import type { AnalysisRuns, RunRow } from './analysis-runs.ts';

export interface RunDispatcherDeps {
  readonly runs: AnalysisRuns;
  readonly workflows: AnalysisWorkflows;
  readonly clock: Clock;
  readonly graceMs: number;
  readonly startBoundMs: number;
  readonly orphanCheckMs: number;
  readonly maxRunMs: number;
  readonly consolidatedMaxMs: number;
  /** A run the pass could not settle this time (it is tried again on the next). */
  readonly onRunError: (runId: string, error: unknown) => void;
}

export interface DispatchReport {
  readonly started: number;
  /** Failed and refunded by this pass. */
  readonly failed: number;
}

export class AnalysisRunDispatcher {
  constructor(private readonly deps: RunDispatcherDeps) {}

  /** One pass over the outbox and the watchdog. */
  async dispatch(): Promise<DispatchReport> {
    const now = this.deps.clock.now().getTime();
    let started = 0;
    let failed = 0;
    for (const run of await this.deps.runs.unstarted(new Date(now - this.deps.graceMs))) {
      const outcome = await this.#guard(run, () => this.#unstarted(run, now));
      if (outcome === 'started') started += 1;
      if (outcome === 'failed') failed += 1;
    }
    for (const run of await this.deps.runs.startedAndRunning(new Date(now - this.deps.orphanCheckMs))) {
      if ((await this.#guard(run, () => this.#watch(run, now))) === 'failed') failed += 1;
    }
    return { started, failed };
  }

  async #unstarted(run: RunRow, now: number): Promise<'started' | 'failed' | 'waiting'> {
    if (run.kind === 'consolidated')
      return this.#fail(run, failureReason('WORKFLOW_ENGINE_UNAVAILABLE', 'the service stopped before the consolidated run started'));
    if (now - run.admittedAt.getTime() > this.deps.startBoundMs) {
      return this.#fail(run, failureReason('WORKFLOW_ENGINE_UNAVAILABLE', 'the workflow engine could not start the run in time'));
    }
    try {
      // The run does not keep the request that admitted it: a recovered start logs without one.
      await this.deps.workflows.startAnalysis(run.runId, { accountId: run.accountId });
    } catch (error) {
      if (error instanceof WorkflowEngineUnavailableError) return 'waiting';
      throw error;
    }
    await this.deps.runs.markStarted(run.runId);
    return 'started';
  }

  async #watch(run: RunRow, now: number): Promise<'failed' | 'waiting'> {
    const age = now - run.admittedAt.getTime();
    if (run.kind === 'consolidated') {
      return age > this.deps.consolidatedMaxMs
        ? this.#fail(run, failureReason('ANALYSIS_TIMED_OUT', 'the consolidated run outlived its deadline'))
        : 'waiting';
    }
    if (age > this.deps.maxRunMs)
      return this.#fail(run, failureReason('ANALYSIS_TIMED_OUT', 'the run outlived its workflow’s execution timeout'));
    let state;
    try {
      state = await this.deps.workflows.analysisState(run.runId);
    } catch (error) {
      if (error instanceof WorkflowEngineUnavailableError) return 'waiting';
      throw error;
    }
    return state === 'running'
      ? 'waiting'
      : this.#fail(run, failureReason('ANALYSIS_FAILED', `its workflow is ${state === 'closed' ? 'closed' : 'gone'} without a result`));
  }

  async #fail(run: RunRow, reason: string): Promise<'failed' | 'waiting'> {
    return (await this.deps.runs.fail(run.runId, reason)) === 'failed' ? 'failed' : 'waiting';
  }

  async #guard(run: RunRow, work: () => Promise<'started' | 'failed' | 'waiting'>): Promise<'started' | 'failed' | 'waiting'> {
    try {
      return await work();
    } catch (error) {
      this.deps.onRunError(run.runId, error);
      return 'waiting';
    }
  }
}
