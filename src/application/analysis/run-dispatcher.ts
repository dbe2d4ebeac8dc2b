/**
 * The outbox of analysis runs. Admission commits the run and its charge first and starts
 * the workflow after; a process that dies in between leaves a run that is charged but has
 * no workflow. The dispatcher finds such runs (admitted more than `graceMs` ago and never
 * seen to start) and starts them. A start Temporal refuses as a duplicate means the first
 * start did happen, so the run is marked started either way. A consolidated run's caller
 * waits synchronously; if its process died before the start, nobody is waiting any more,
 * so the run is failed and its reservation released instead.
 */
import type { AnalysisWorkflows } from '../../ports/analysis-workflows.ts';
import type { Clock } from '../../ports/clock.ts';
import type { AnalysisRuns } from './analysis-runs.ts';

export class AnalysisRunDispatcher {
  constructor(
    private readonly deps: {
      readonly runs: AnalysisRuns;
      readonly workflows: AnalysisWorkflows;
      readonly clock: Clock;
      readonly graceMs: number;
    },
  ) {}

  /** One pass; returns how many runs it started or failed. */
  async dispatch(): Promise<{ started: number; failed: number }> {
    const { runs, workflows, clock, graceMs } = this.deps;
    const due = await runs.unstarted(new Date(clock.now().getTime() - graceMs));
    let started = 0;
    let failed = 0;
    for (const run of due) {
      if (run.kind === 'consolidated') {
        await runs.fail(run.runId, 'the service stopped before the consolidated run started');
        failed += 1;
        continue;
      }
      await workflows.startAnalysis(run.runId);
      await runs.markStarted(run.runId);
      started += 1;
    }
    return { started, failed };
  }
}
