/**
 * Waiting on the API's 202-and-poll work. `waitForAnalysis(started)` and
 * `waitForTimeline(job)` read the work's state until it is done, waiting between reads as
 * long as the server's Retry-After asks (the 202's, then each read's) or `pollInterval` when
 * it asks nothing, within an overall `timeout` and the caller's `signal`. Failed work
 * throws (its charge was given back); work still running at the timeout throws
 * `WaitTimeoutError` and can be waited for again.
 *
 * Reading an analysis is free while none is stored and 1 credit when one is: the read that
 * finds it done is charged, and so is every poll while a forced re-run replaces a stored one.
 */
import type { OperationBody, RequestOptions, WithResponse } from './client.ts';
import { CourtRecordsConnectionError, retryAfterSeconds } from './errors.ts';
import type { Resources } from './resources.ts';
import type { RetryEnvironment } from './retry.ts';

export interface WaitOptions {
  /** Milliseconds to wait in all before WaitTimeoutError; default 10 minutes. */
  readonly timeout?: number;
  readonly signal?: AbortSignal;
  /** Milliseconds between reads when the server gives no Retry-After; default 5 s. */
  readonly pollInterval?: number;
}

export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

type AnalysisRead = WithResponse<OperationBody<'getCaseAnalysis'>>;
type LatestRun = NonNullable<OperationBody<'getCaseAnalysis'>['meta']['latestRun']>;
type TimelineRead = WithResponse<OperationBody<'getTimelineRequest'>>;

/** The run failed (its charge was given back); `code` says why, and a new request may be made. */
export class AnalysisFailedError extends Error {
  override readonly name = 'AnalysisFailedError';
  readonly code: LatestRun['failureCode'];

  constructor(readonly run: LatestRun) {
    super(`analysis ${run.runId} failed: ${run.failureCode ?? 'unknown'}: ${run.failure ?? ''}`);
    this.code = run.failureCode;
  }
}

/** The live fetch failed (its charge was given back); `job.error` says why. */
export class TimelineFailedError extends Error {
  override readonly name = 'TimelineFailedError';
  readonly code: string | undefined;

  constructor(readonly job: TimelineRead['data']) {
    super(`timeline ${job.requestId} failed: ${job.error?.code ?? 'unknown'}: ${job.error?.message ?? ''}`);
    this.code = job.error?.code;
  }
}

const DEFAULT_WAIT_MS = 10 * 60_000;
const DEFAULT_POLL_MS = 5_000;

/** Seconds a result asks the caller to wait: its Retry-After header, else its meta.retryAfterSeconds. */
function askedWaitMs(
  result: { readonly lastResponse: { readonly headers: Headers }; readonly meta?: object },
  now: number,
): number | undefined {
  const header = retryAfterSeconds(result.lastResponse.headers.get('retry-after'), now);
  const inBody = (result.meta as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  const seconds = header ?? (typeof inBody === 'number' ? inBody : undefined);
  return seconds === undefined ? undefined : seconds * 1000;
}

export function createWaiters(resources: Resources, env: RetryEnvironment) {
  /** Polls `read` until `settled` returns a value, sleeping `firstWaitMs` first and then what each read asks. */
  async function poll<R extends { readonly lastResponse: { readonly headers: Headers } }, V>(
    what: string,
    firstWaitMs: number,
    read: (call: RequestOptions) => Promise<R>,
    settled: (result: R) => V | undefined,
    options: WaitOptions,
  ): Promise<V> {
    const deadline = env.now() + (options.timeout ?? DEFAULT_WAIT_MS);
    const call: RequestOptions = options.signal === undefined ? {} : { signal: options.signal };
    let waitMs = firstWaitMs;
    for (;;) {
      if (waitMs > 0) {
        if (env.now() + waitMs > deadline) throw new WaitTimeoutError(`${what} was still running at the end of the wait`);
        await env.sleep(waitMs, options.signal);
        if (options.signal?.aborted)
          throw new CourtRecordsConnectionError(`waiting for ${what}: aborted by the caller`, undefined, {
            cause: options.signal.reason,
            reason: 'aborted',
          });
      }
      const result = await read(call);
      const value = settled(result);
      if (value !== undefined) return value;
      waitMs = askedWaitMs(result, env.now()) ?? options.pollInterval ?? DEFAULT_POLL_MS;
    }
  }

  return {
    /**
     * Waits for an analysis: pass what `client.analysis.create` resolved with (its run and
     * its Retry-After are used), or a case id to wait for your latest run on it. Resolves with
     * the stored analysis as `client.analysis.get` reads it; throws AnalysisFailedError.
     */
    waitForAnalysis: (started: string | WithResponse<OperationBody<'analyzeCase'>>, options: WaitOptions = {}): Promise<AnalysisRead> => {
      const caseId = typeof started === 'string' ? started : started.data.caseId;
      const runId = typeof started === 'string' ? undefined : started.data.runId;
      const running = typeof started !== 'string' && !started.data.alreadyExists;
      const firstWaitMs = running ? (askedWaitMs(started, env.now()) ?? 0) : 0;
      return poll(
        `the analysis of ${caseId}`,
        firstWaitMs,
        (call) => resources.analysis.get(caseId, call),
        (read) => {
          const run = read.meta.latestRun;
          const ours = runId === undefined || run?.runId === runId;
          if (read.data.hasAnalysis && (runId === undefined ? run?.status !== 'running' : read.data.runId === runId)) return read;
          if (ours && run?.status === 'failed') throw new AnalysisFailedError(run);
          if (ours && run?.status === 'stored' && !read.data.hasAnalysis)
            throw new Error(`analysis ${run.runId} was stored but is not readable (withdrawn since)`);
          if (runId === undefined && run === null) throw new Error(`no analysis of ${caseId} is stored or running for this account`);
          return undefined;
        },
        options,
      );
    },
    /**
     * Waits for a timeline job: pass what `client.timeline.request` resolved with, or its
     * requestId. Resolves with the completed job as `client.timeline.get` reads it (free);
     * throws TimelineFailedError.
     */
    waitForTimeline: (job: string | WithResponse<OperationBody<'requestTimeline'>>, options: WaitOptions = {}): Promise<TimelineRead> => {
      const requestId = typeof job === 'string' ? job : job.data.requestId;
      const firstWaitMs = typeof job !== 'string' && job.data.status === 'running' ? (askedWaitMs(job, env.now()) ?? 0) : 0;
      return poll(
        `timeline request ${requestId}`,
        firstWaitMs,
        (call) => resources.timeline.get(requestId, call),
        (read) => {
          if (read.data.status === 'failed') throw new TimelineFailedError(read.data);
          return read.data.status === 'completed' ? read : undefined;
        },
        options,
      );
    },
  };
}

export type Waiters = ReturnType<typeof createWaiters>;
