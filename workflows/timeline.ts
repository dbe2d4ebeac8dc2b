/**
 * The live timeline fetch (POST /request-timeline with refresh true), workflow id
 * `timeline-<requestId>`. The fetch starts (its reservation becomes the charge), then one
 * activity reads the case-status record from the court portal, stores the latest order
 * document and completes the job; a portal that times out or fails is retried by the
 * activity retry policy, a CNR the portal does not know is not. However it fails, the job
 * ends failed with its payment given back: the failure path runs even when the workflow
 * is cancelled, and its activity retries until it succeeds. Only the request id and
 * counts pass through the workflow; the timeline stays in the database.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { TimelineFailureCode } from '../src/domain/timeline-request/timeline-request.ts';
import {
  FAILURE_CODE_OF,
  FAILURE_MESSAGES,
  PERMANENT_FAILURES,
  type FetchedTimeline,
  type TimelineActivities,
} from './timeline-activity-types.ts';

export interface FetchTimelineInput {
  readonly requestId: string;
  /** The request that admitted the fetch, handed to each activity for its logs (absent from older histories). */
  readonly callId?: string;
  /** Per-attempt limit of each activity (the portal calls of one attempt fit in it). */
  readonly activityTimeoutSeconds: number;
  /** Attempts of each activity before the fetch fails. */
  readonly maximumAttempts: number;
}

export interface TimelineOutcome extends FetchedTimeline {
  readonly requestId: string;
  readonly status: 'completed';
}

function work(input: FetchTimelineInput) {
  return proxyActivities<TimelineActivities>({
    startToCloseTimeout: input.activityTimeoutSeconds * 1000,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: input.maximumAttempts,
      nonRetryableErrorTypes: [...PERMANENT_FAILURES],
    },
  });
}

/** Giving the credits back must not give up: retried without limit. */
function refund(input: FetchTimelineInput) {
  return proxyActivities<TimelineActivities>({
    startToCloseTimeout: input.activityTimeoutSeconds * 1000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
}

/** The job failure a thrown error stands for, with the text the client reads. */
function failureOf(error: unknown): { code: TimelineFailureCode; message: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof TimeoutFailure) return { code: 'UPSTREAM_TIMEOUT', message: FAILURE_MESSAGES.UPSTREAM_TIMEOUT };
  const code = (cause instanceof ApplicationFailure && cause.type ? FAILURE_CODE_OF[cause.type] : undefined) ?? 'INTERNAL_ERROR';
  return { code, message: isCancellation(error) ? 'The live fetch was cancelled.' : FAILURE_MESSAGES[code] };
}

export async function fetchCaseTimeline(input: FetchTimelineInput): Promise<TimelineOutcome> {
  const activities = work(input);
  try {
    await activities.startLiveFetch(input.requestId, input.callId);
    const fetched = await activities.fetchTimeline(input.requestId, input.callId);
    return { requestId: input.requestId, status: 'completed', ...fetched };
  } catch (error) {
    const failure = failureOf(error);
    await CancellationScope.nonCancellable(() => refund(input).failTimeline(input.requestId, failure.code, failure.message, input.callId));
    if (isCancellation(error)) throw error;
    throw ApplicationFailure.nonRetryable(
      `live timeline fetch ${input.requestId} failed (${failure.code}); its payment was given back`,
      'TimelineFetchFailed',
    );
  }
}
