/**
 * Starting, awaiting and looking up analysis workflows, as the application sees it.
 * Temporal stands behind it; the workflow id of a run is derived from the run, so a second
 * start of the same run is refused rather than run twice. An engine that cannot be reached
 * answers with `WorkflowEngineUnavailableError` within a bounded time, never a hang: the
 * caller then refuses or refunds instead of taking credits for work nobody will do.
 */
export type StartOutcome = 'started' | 'already-started';

export type RunEnded = { readonly status: 'stored' } | { readonly status: 'failed'; readonly reason: string };

export type ConsolidatedStart =
  | { readonly started: true; readonly result: () => Promise<RunEnded> }
  /** Another consolidated run of the same case number is in progress; this one did not start. */
  | { readonly started: false; readonly wait: () => Promise<RunEnded> };

/**
 * What the engine knows of a workflow: still running, closed (completed, failed, cancelled,
 * terminated or timed out), or unknown to it (its history is gone, or it never started).
 */
export type WorkflowState = 'running' | 'closed' | 'unknown';

/** Whom started work is for: listed under the account in the engine, and logged with the request that asked. */
export interface WorkflowCaller {
  readonly accountId: string;
  /** The server's id of the request that admitted the work; unknown to a start the outbox recovers after a crash. */
  readonly requestId?: string;
}

/** The engine could not be reached, or did not answer in time. */
export class WorkflowEngineUnavailableError extends Error {
  override readonly name = 'WorkflowEngineUnavailableError';
}

export interface AnalysisWorkflows {
  /** False when no workflow engine could be reached at start: requests are refused before anything is charged. */
  readonly available: boolean;
  startAnalysis(runId: string, caller: WorkflowCaller): Promise<StartOutcome>;
  /** Starts the consolidated run (the workflow enforces `deadlineSeconds`); await `result` for its end. */
  startConsolidated(
    runId: string,
    caseNumberNormalised: string,
    deadlineSeconds: number,
    caller: WorkflowCaller,
  ): Promise<ConsolidatedStart>;
  /** The engine's view of a single run's workflow. */
  analysisState(runId: string): Promise<WorkflowState>;
}

const unavailable = () => Promise.reject(new WorkflowEngineUnavailableError('no workflow engine is available'));

/** Stands in when Temporal could not be opened at start (e.g. no CLI and no network for the dev server). */
export const unavailableAnalysisWorkflows: AnalysisWorkflows = {
  available: false,
  startAnalysis: unavailable,
  startConsolidated: unavailable,
  analysisState: unavailable,
};
