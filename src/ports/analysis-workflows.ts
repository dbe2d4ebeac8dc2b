/**
 * Starting and awaiting analysis workflows, as the HTTP layer and the outbox dispatcher
 * see it. Temporal stands behind it; the workflow id of a run is derived from the run, so
 * a second start of the same run is refused rather than run twice.
 */
export type StartOutcome = 'started' | 'already-started';

export type RunEnded = { readonly status: 'stored' } | { readonly status: 'failed'; readonly reason: string };

export type ConsolidatedStart =
  | { readonly started: true; readonly result: () => Promise<RunEnded> }
  /** Another consolidated run of the same case number is in progress; this one did not start. */
  | { readonly started: false; readonly wait: () => Promise<RunEnded> };

export interface AnalysisWorkflows {
  /** False when no workflow engine could be reached at start: requests are refused before anything is charged. */
  readonly available: boolean;
  startAnalysis(runId: string): Promise<StartOutcome>;
  /** Starts the consolidated run (the workflow enforces `deadlineSeconds`); await `result` for its end. */
  startConsolidated(runId: string, caseNumberNormalised: string, deadlineSeconds: number): Promise<ConsolidatedStart>;
}

/** Stands in when Temporal could not be opened at start (e.g. no CLI and no network for the dev server). */
export const unavailableAnalysisWorkflows: AnalysisWorkflows = {
  available: false,
  startAnalysis: () => Promise.reject(new Error('no workflow engine is available')),
  startConsolidated: () => Promise.reject(new Error('no workflow engine is available')),
};
