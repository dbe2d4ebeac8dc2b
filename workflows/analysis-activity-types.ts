/**
 * The analysis activities as the workflows see them: types only, so the workflow bundle
 * never pulls in the database, storage or model adapters the real activities use.
 */
export type SourceKind = 'text' | 'document' | 'remote';

/*
 * Each activity's last argument is the id of the request that admitted the run, for its
 * log lines only; histories recorded before it was passed call without it.
 */

export interface AnalysisActivities {
  /** Makes sure the run has something to read: the case text, a stored document, or a fetched one (the +20 is kept only then). */
  ensureSource(runId: string, requestId?: string): Promise<{ source: SourceKind }>;
  /** Runs the analyser on one case and stores the result (idempotent: a stored run is left alone). */
  analyseAndStore(runId: string, requestId?: string): Promise<{ model: string }>;
  /** Analyses every document sharing the run's case number, consolidates and stores. */
  analyseConsolidatedAndStore(runId: string, requestId?: string): Promise<{ model: string; documents: number }>;
  /**
   * Ends the run without a result and gives back everything it was charged or held; a run
   * that stored first keeps its result and its charge. Says how the run ended (histories
   * recorded before it said anything hold no answer).
   */
  failRun(runId: string, reason: string, requestId?: string): Promise<{ ended: 'failed' | 'stored' } | undefined>;
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
