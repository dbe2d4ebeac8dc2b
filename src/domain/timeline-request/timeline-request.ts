/**
 * The timeline-request aggregate: one stream per POST /request-timeline job. A job without
 * refresh is answered from the record we hold and ends completed in the same decision, at
 * no charge. A live fetch (refresh true) is admitted running with its price reserved; the
 * reservation becomes a charge when the fetch starts (LiveFetchStarted), and the job ends
 * either completed with the fetched timeline or failed with its payment given back: the
 * charge reversed once the fetch had started, the reservation released if it never did.
 * A completed job is never failed afterwards and a failed one never completes, so no job
 * is both charged and without a timeline. Jobs can be read for JOB_RETENTION_DAYS.
 */
import type { CaseTimeline } from '../timeline/case-timeline.ts';
import { accept, assertNever, refuse, type Decision } from '../decider.ts';

/** A job is readable for this long after it was requested, then answers as if unknown. */
export const JOB_RETENTION_DAYS = 7;

export type TimelineJobStatus = 'running' | 'completed' | 'failed';

/** Why a live fetch failed, in the words of the spec's error table. */
export type TimelineFailureCode = 'UPSTREAM_TIMEOUT' | 'UPSTREAM_UNAVAILABLE' | 'CASE_NOT_FOUND' | 'INTERNAL_ERROR';

/** What became of a failed live fetch's payment. */
export type Refund = 'reversed' | 'released';

export interface TimelineSubject {
  /** The case the job is about: a held case's id, or `hc-<CNR>` for a CNR we do not hold. */
  readonly caseId: string;
  /** Null only for a held case with no registry record (a Supreme Court judgment, a tribunal record). */
  readonly cnr: string | null;
}

export type TimelineRequestEvent =
  | {
      type: 'TimelineRequested';
      data: {
        requestId: string;
        accountId: string;
        caseId: string;
        cnr: string | null;
        refresh: boolean;
        /** The live fetch's reservation; null without refresh. */
        reservationId: string | null;
        price: number;
        requestedAt: string;
        expiresAt: string;
      };
    }
  | { type: 'LiveFetchStarted'; data: { requestId: string; chargeId: string; amount: number; startedAt: string } }
  | {
      type: 'TimelineCompleted';
      data: { requestId: string; timeline: CaseTimeline | null; documentsStored: number; completedAt: string };
    }
  | {
      type: 'TimelineFailed';
      data: { requestId: string; code: TimelineFailureCode; message: string; refund: Refund; failedAt: string };
    };

export type TimelineRequestCommand =
  | {
      type: 'AnswerFromStore';
      requestId: string;
      accountId: string;
      subject: TimelineSubject;
      /** The stored record's timeline; null when the case has none. */
      timeline: CaseTimeline | null;
      now: string;
    }
  | {
      type: 'AdmitLiveFetch';
      requestId: string;
      accountId: string;
      subject: TimelineSubject & { readonly cnr: string };
      reservationId: string;
      price: number;
      now: string;
    }
  | { type: 'StartLiveFetch'; requestId: string; now: string }
  | { type: 'CompleteLiveFetch'; requestId: string; timeline: CaseTimeline; documentsStored: number; now: string }
  | { type: 'FailLiveFetch'; requestId: string; code: TimelineFailureCode; message: string; now: string };

/** A job answered from the store. */
interface StoredAnswer {
  readonly status: TimelineJobStatus;
  readonly refresh: false;
}

/** A live fetch and what it holds or was charged. */
interface LiveFetch {
  readonly status: TimelineJobStatus;
  readonly refresh: true;
  readonly reservationId: string;
  readonly price: number;
  readonly liveFetchStarted: boolean;
}

export type TimelineRequestState = { readonly status: 'none' } | StoredAnswer | LiveFetch;

export type TimelineRequestError =
  | { tag: 'AlreadyRequested'; requestId: string }
  | { tag: 'UnknownJob'; requestId: string }
  | { tag: 'NotALiveFetch'; requestId: string }
  | { tag: 'JobEnded'; requestId: string; status: TimelineJobStatus }
  | { tag: 'LiveFetchNotStarted'; requestId: string };

export const initialTimelineRequest: TimelineRequestState = { status: 'none' };

export function timelineRequestStreamId(requestId: string): string {
  return `timeline-request-${requestId}`;
}

/** When a job requested at `requestedAt` (ISO) stops being readable. */
export function jobExpiresAt(requestedAt: string): string {
  return new Date(Date.parse(requestedAt) + JOB_RETENTION_DAYS * 86_400_000).toISOString();
}

type Decided = Decision<TimelineRequestEvent, TimelineRequestError>;

function requested(
  command: Extract<TimelineRequestCommand, { type: 'AnswerFromStore' | 'AdmitLiveFetch' }>,
  live: { reservationId: string; price: number } | null,
): TimelineRequestEvent {
  return {
    type: 'TimelineRequested',
    data: {
      requestId: command.requestId,
      accountId: command.accountId,
      caseId: command.subject.caseId,
      cnr: command.subject.cnr,
      refresh: live !== null,
      reservationId: live?.reservationId ?? null,
      price: live?.price ?? 0,
      requestedAt: command.now,
      expiresAt: jobExpiresAt(command.now),
    },
  };
}

/** The live fetch a command acts on, still running; or why there is none. */
function runningLiveFetch(
  state: TimelineRequestState,
  requestId: string,
): { ok: true; job: LiveFetch } | { ok: false; error: TimelineRequestError } {
  if (state.status === 'none') return { ok: false, error: { tag: 'UnknownJob', requestId } };
  if (!state.refresh) return { ok: false, error: { tag: 'NotALiveFetch', requestId } };
  if (state.status !== 'running') return { ok: false, error: { tag: 'JobEnded', requestId, status: state.status } };
  return { ok: true, job: state };
}

export function decideTimelineRequest(command: TimelineRequestCommand, state: TimelineRequestState): Decided {
  switch (command.type) {
    case 'AnswerFromStore':
      if (state.status !== 'none') return refuse({ tag: 'AlreadyRequested', requestId: command.requestId });
      return accept(requested(command, null), {
        type: 'TimelineCompleted',
        data: { requestId: command.requestId, timeline: command.timeline, documentsStored: 0, completedAt: command.now },
      });
    case 'AdmitLiveFetch':
      if (state.status !== 'none') return refuse({ tag: 'AlreadyRequested', requestId: command.requestId });
      return accept(requested(command, { reservationId: command.reservationId, price: command.price }));
    case 'StartLiveFetch': {
      const found = runningLiveFetch(state, command.requestId);
      if (!found.ok) return refuse(found.error);
      // A retried start (after a crash) finds the fetch started: it is charged once.
      if (found.job.liveFetchStarted) return accept();
      return accept({
        type: 'LiveFetchStarted',
        data: { requestId: command.requestId, chargeId: found.job.reservationId, amount: found.job.price, startedAt: command.now },
      });
    }
    case 'CompleteLiveFetch': {
      if (state.status === 'completed') return accept();
      const found = runningLiveFetch(state, command.requestId);
      if (!found.ok) return refuse(found.error);
      if (!found.job.liveFetchStarted) return refuse({ tag: 'LiveFetchNotStarted', requestId: command.requestId });
      return accept({
        type: 'TimelineCompleted',
        data: {
          requestId: command.requestId,
          timeline: command.timeline,
          documentsStored: command.documentsStored,
          completedAt: command.now,
        },
      });
    }
    case 'FailLiveFetch': {
      if (state.status === 'failed') return accept();
      const found = runningLiveFetch(state, command.requestId);
      if (!found.ok) return refuse(found.error);
      return accept({
        type: 'TimelineFailed',
        data: {
          requestId: command.requestId,
          code: command.code,
          message: command.message,
          refund: found.job.liveFetchStarted ? 'reversed' : 'released',
          failedAt: command.now,
        },
      });
    }
    default:
      return assertNever(command);
  }
}

export function evolveTimelineRequest(state: TimelineRequestState, event: TimelineRequestEvent): TimelineRequestState {
  switch (event.type) {
    case 'TimelineRequested': {
      const { reservationId, price } = event.data;
      return reservationId === null
        ? { status: 'running', refresh: false }
        : { status: 'running', refresh: true, reservationId, price, liveFetchStarted: false };
    }
    case 'LiveFetchStarted':
      return state.status === 'none' || !state.refresh ? state : { ...state, liveFetchStarted: true };
    case 'TimelineCompleted':
      return state.status === 'none' ? state : { ...state, status: 'completed' };
    case 'TimelineFailed':
      return state.status === 'none' ? state : { ...state, status: 'failed' };
    default:
      return assertNever(event);
  }
}

export const TIMELINE_REQUEST_EVENT_TYPES: readonly TimelineRequestEvent['type'][] = [
  'TimelineRequested',
  'LiveFetchStarted',
  'TimelineCompleted',
  'TimelineFailed',
];
