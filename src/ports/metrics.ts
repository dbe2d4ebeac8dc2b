/**
 * What the service tells its operators in numbers: requests and latency per route pattern,
 * refusals per error code, credits charged and given back, how workflows ended, and how
 * far each projection trails the store. The application and HTTP layers record through
 * this port only; one adapter (prom-client) stands behind it, built once per process.
 * Labels are bounded vocabularies (route patterns, error codes, projector names): never an
 * account, a key, a screened name or an address.
 */
export type WorkflowKind = 'analysis' | 'consolidated' | 'timeline';
export type WorkflowOutcome = 'completed' | 'failed';

export interface HttpSample {
  readonly method: string;
  /** The matched route's pattern (`/cases/:id`), never the raw path. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
}

export interface ProjectorLag {
  readonly projector: string;
  /** Committed events (or case changes) the projector has not read yet. */
  readonly behind: number;
}

export interface Metrics {
  httpRequest(sample: HttpSample): void;
  refused(code: string): void;
  /** One committed charge of `credits`. */
  charged(credits: number): void;
  /** Credits a committed reversal gave back. */
  refunded(credits: number): void;
  workflowEnded(kind: WorkflowKind, outcome: WorkflowOutcome): void;
  /** Read at scrape time, so the figure is as fresh as the scrape. */
  observeProjectorLag(read: () => Promise<readonly ProjectorLag[]>): void;
  /** The exposition of everything recorded, for the scrape endpoint. */
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/** Records nothing: for code paths built without an operator watching (CLI tools, unit tests). */
export const noMetrics: Metrics = {
  httpRequest: () => undefined,
  refused: () => undefined,
  charged: () => undefined,
  refunded: () => undefined,
  workflowEnded: () => undefined,
  observeProjectorLag: () => undefined,
  scrape: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};
