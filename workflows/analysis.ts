/**
 * The analysis workflows. A single-document run makes sure its source is readable
 * (fetching it from the court's site when the caller allowed that), analyses and stores;
 * a consolidated run analyses every document sharing a case number within a deadline.
 * Either way the run ends stored or failed with every credit given back: the failure path
 * runs even when the workflow is cancelled, and its activity retries until it succeeds.
 */
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import { PERMANENT_FAILURES, type AnalysisActivities } from './analysis-activity-types.ts';

export interface AnalyseCaseInput {
  readonly runId: string;
  /** Per-attempt limit of each activity; a worker that dies mid-attempt is noticed after it. */
  readonly activityTimeoutSeconds: number;
  /** The request that admitted the run, handed to each activity for its logs (absent from older histories). */
  readonly requestId?: string;
}

export interface ConsolidatedAnalysisInput {
  readonly runId: string;
  readonly activityTimeoutSeconds: number;
  /** The caller waits this long; past it the run fails and its reservation is released. */
  readonly deadlineSeconds: number;
  readonly requestId?: string;
}

export interface RunOutcome {
  readonly runId: string;
  readonly status: 'stored';
  /** What produced the analysis; absent when a failure found the run already stored. */
  readonly model?: string;
}

function work(timeoutSeconds: number) {
  return proxyActivities<AnalysisActivities>({
    startToCloseTimeout: timeoutSeconds * 1000,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 5,
      nonRetryableErrorTypes: [...PERMANENT_FAILURES],
    },
  });
}

/** Giving the credits back must not give up: retried without limit. */
function refund(timeoutSeconds: number) {
  return proxyActivities<AnalysisActivities>({
    startToCloseTimeout: timeoutSeconds * 1000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
}

function reasonOf(error: unknown): string {
  if (isCancellation(error)) return 'cancelled';
  const cause = error instanceof Error && 'cause' in error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message.slice(0, 500) : 'unknown failure';
}

/**
 * Fails the run (giving its credits back) and fails the workflow; but a run that stored
 * before the failure reached it (e.g. a deadline hit just after the store committed) keeps
 * its result and charge, and the workflow then reports it stored, as it is.
 */
async function failAndRethrow(runId: string, timeoutSeconds: number, error: unknown, requestId: string | undefined): Promise<RunOutcome> {
  const outcome = await CancellationScope.nonCancellable(() => refund(timeoutSeconds).failRun(runId, reasonOf(error), requestId));
  if (outcome?.ended === 'stored') return { runId, status: 'stored' };
  if (isCancellation(error)) throw error;
  throw ApplicationFailure.nonRetryable(
    `analysis run ${runId} failed; its credits were given back: ${reasonOf(error)}`,
    'AnalysisRunFailed',
  );
}

export async function analyseCase(input: AnalyseCaseInput): Promise<RunOutcome> {
  const activities = work(input.activityTimeoutSeconds);
  try {
    await activities.ensureSource(input.runId, input.requestId);
    const stored = await activities.analyseAndStore(input.runId, input.requestId);
    return { runId: input.runId, status: 'stored', model: stored.model };
  } catch (error) {
    return failAndRethrow(input.runId, input.activityTimeoutSeconds, error, input.requestId);
  }
}

export async function analyseConsolidated(input: ConsolidatedAnalysisInput): Promise<RunOutcome> {
  const activities = work(input.activityTimeoutSeconds);
  try {
    const stored = await CancellationScope.withTimeout(input.deadlineSeconds * 1000, () =>
      activities.analyseConsolidatedAndStore(input.runId, input.requestId),
    );
    return { runId: input.runId, status: 'stored', model: stored.model };
  } catch (error) {
    return failAndRethrow(input.runId, input.activityTimeoutSeconds, error, input.requestId);
  }
}
