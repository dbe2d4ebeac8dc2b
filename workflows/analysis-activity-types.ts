/**
 * The analysis activities as the workflows see them: types only, so the workflow bundle
 * never pulls in the database, storage or model adapters the real activities use.
 */
export type SourceKind = 'text' | 'document' | 'remote';

export interface AnalysisActivities {
  /** Makes sure the run has something to read: the case text, a stored document, or a fetched one (charged +20). */
  ensureSource(runId: string): Promise<{ source: SourceKind }>;
  /** Runs the analyser on one case and stores the result (idempotent: a stored run is left alone). */
  analyseAndStore(runId: string): Promise<{ model: string }>;
  /** Analyses every document sharing the run's case number, consolidates and stores. */
  analyseConsolidatedAndStore(runId: string): Promise<{ model: string; documents: number }>;
  /** Ends the run without a result and gives back everything it was charged or held. */
  failRun(runId: string, reason: string): Promise<void>;
}

/** Error types an activity throws when retrying cannot help. */
export const PERMANENT_FAILURES = [
  'NoReadableSource',
  'RemoteFetchRefused',
  'RemoteFetchPermanent',
  'RunNotRunning',
  'LlmRejectedError',
  'RangeError',
] as const;
