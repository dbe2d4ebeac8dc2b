/**
 * The live timeline fetch's activities as the workflow sees them: types and the failure
 * vocabulary only, so the workflow bundle never pulls in the database, storage or portal
 * adapters the real activities use. Activities return counts, never the timeline: party
 * and judge names stay in the database, and workflow histories stay small.
 */
import type { Refund, TimelineFailureCode } from '../src/domain/timeline-request/timeline-request.ts';

export interface FetchedTimeline {
  readonly hearings: number;
  readonly orders: number;
  /** Order documents stored for GET /cases/:id/pdf; null when an earlier attempt had already completed the job. */
  readonly documentsStored: number | null;
}

/*
 * Each activity's last argument is the id of the request that admitted the fetch (its
 * `callId`), for its log lines only; histories recorded before it was passed call without it.
 */
export interface TimelineActivities {
  /** The live fetch starts: its reservation is settled at the full price (idempotent). */
  startLiveFetch(requestId: string, callId?: string): Promise<{ charged: number }>;
  /** Fetches the case-status record from the court portal, stores the latest order document, completes the job. */
  fetchTimeline(requestId: string, callId?: string): Promise<FetchedTimeline>;
  /** Fails the job and gives its payment back: the charge reversed, or the reservation released if never charged. */
  failTimeline(requestId: string, code: TimelineFailureCode, message: string, callId?: string): Promise<{ refund: Refund | 'none' }>;
}

/** Activity error types, and the job failure each becomes once retries are spent. */
export const FAILURE_CODE_OF: Readonly<Record<string, TimelineFailureCode>> = {
  PortalTimeout: 'UPSTREAM_TIMEOUT',
  PortalUnavailable: 'UPSTREAM_UNAVAILABLE',
  PortalRecordNotFound: 'CASE_NOT_FOUND',
};

/** Error types an activity throws when retrying cannot help. */
export const PERMANENT_FAILURES = ['PortalRecordNotFound', 'JobNotRunning'] as const;

/** What a client reads in a failed job's error; the cause itself goes to the worker's log and the workflow history. */
export const FAILURE_MESSAGES: Readonly<Record<TimelineFailureCode, string>> = {
  UPSTREAM_TIMEOUT: 'The court portal did not answer in time, on every attempt.',
  UPSTREAM_UNAVAILABLE: 'The court portal was unavailable, on every attempt.',
  CASE_NOT_FOUND: 'The court portal holds no case-status record for this CNR.',
  INTERNAL_ERROR: 'The live fetch failed unexpectedly.',
};
