/**
 * waitForAnalysis and waitForTimeline without IO: the reads are answers the test scripts
 * (the decisions under test are how long to wait and when to stop; sdk-readme.e2e.test.ts
 * waits on a real analysis and a real live fetch). Checked: the 202's Retry-After is waited
 * before the first read, each read's Retry-After (else pollInterval) before the next, the
 * overall timeout and the caller's signal end the wait, and failed work throws.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OperationBody, WithResponse } from '../../sdk/src/client.ts';
import { CourtRecordsConnectionError } from '../../sdk/src/errors.ts';
import type { Resources } from '../../sdk/src/resources.ts';
import type { RetryEnvironment } from '../../sdk/src/retry.ts';
import { AnalysisFailedError, createWaiters, TimelineFailedError, WaitTimeoutError } from '../../sdk/src/wait.ts';

type AnalysisRead = OperationBody<'getCaseAnalysis'>;
type TimelineRead = OperationBody<'getTimelineRequest'>;

function answered<T extends object>(body: T, headers: Record<string, string> = {}): WithResponse<T> {
  const info = {
    status: 200,
    headers: new Headers(headers),
    requestId: 'r',
    creditsCharged: 0,
    creditsRemaining: 0,
    replayed: false,
    idempotencyKey: undefined,
  };
  return Object.defineProperty(body, 'lastResponse', { value: info, enumerable: false }) as WithResponse<T>;
}

const CASE = { caseId: 'sc-inabs-5861', caseNumber: 'C.A. 1' };
const running = (runId: string): AnalysisRead => ({
  success: true,
  data: { ...CASE, hasAnalysis: false },
  meta: { creditsCharged: 0, latestRun: { runId, status: 'running', failure: null, failureCode: null } },
});
const stored = (runId: string): AnalysisRead =>
  ({
    success: true,
    data: { ...CASE, hasAnalysis: true, runId, model: 'm', analysedAt: '2026-11-29T10:00:00Z', documents: [CASE.caseId], analysis: {} },
    meta: { creditsCharged: 1, latestRun: { runId, status: 'stored', failure: null, failureCode: null } },
  }) as unknown as AnalysisRead;
const failed = (runId: string): AnalysisRead => ({
  success: true,
  data: { ...CASE, hasAnalysis: false },
  meta: { creditsCharged: 0, latestRun: { runId, status: 'failed', failure: 'did not finish', failureCode: 'ANALYSIS_TIMED_OUT' } },
});
const started = (runId: string) =>
  answered(
    {
      success: true as const,
      data: { ...CASE, runId, status: 'running' as const, hasAnalysis: false, alreadyExists: false as const, resultUrl: '/x' },
      meta: { creditsCharged: 100, remoteFetch: false, retryAfterSeconds: 30 },
    },
    { 'retry-after': '30' },
  );
const job = (status: 'running' | 'completed' | 'failed'): TimelineRead =>
  ({
    success: true,
    data: {
      requestId: 'tlr_1',
      status,
      caseId: 'hc-X',
      error: status === 'failed' ? { code: 'UPSTREAM_TIMEOUT', message: 'slow portal' } : null,
    },
    meta: { creditsCharged: 0 },
  }) as unknown as TimelineRead;

function world(reads: { analysis?: WithResponse<AnalysisRead>[]; timeline?: WithResponse<TimelineRead>[] }) {
  let clock = 0;
  const slept: number[] = [];
  const asked: string[] = [];
  const env: RetryEnvironment = {
    fetch: () => Promise.reject(new Error('no transport in this test')),
    sleep: async (ms, signal) => {
      slept.push(ms);
      clock += ms;
      if (signal?.aborted) return;
    },
    random: () => 0.5,
    now: () => clock,
    idempotencyKey: () => 'k',
  };
  const next = <T>(list: T[] | undefined, what: string): T => {
    asked.push(what);
    const read = list?.shift();
    if (read === undefined) throw new Error(`read ${what} more often than scripted`);
    return read;
  };
  const resources = {
    analysis: { get: async (caseId: string) => next(reads.analysis, caseId) },
    timeline: { get: async (requestId: string) => next(reads.timeline, requestId) },
  } as unknown as Resources;
  return { waiters: createWaiters(resources, env), slept, asked };
}

describe('waitForAnalysis', () => {
  it('waits the 202’s Retry-After, then pollInterval between reads, and resolves with the read that finds the run stored', async () => {
    const { waiters, slept, asked } = world({
      analysis: [answered(running('run-1')), answered(running('run-1')), answered(stored('run-1'))],
    });
    const read = await waiters.waitForAnalysis(started('run-1'), { pollInterval: 2_000 });
    assert.equal(read.data.hasAnalysis && read.data.runId, 'run-1');
    assert.deepEqual(slept, [30_000, 2_000, 2_000]);
    assert.deepEqual(asked, [CASE.caseId, CASE.caseId, CASE.caseId]);
  });

  it('honours a read’s own Retry-After over pollInterval', async () => {
    const { waiters, slept } = world({ analysis: [answered(running('run-1'), { 'retry-after': '7' }), answered(stored('run-1'))] });
    await waiters.waitForAnalysis(started('run-1'), { pollInterval: 1_000 });
    assert.deepEqual(slept, [30_000, 7_000]);
  });

  it('does not take an older stored analysis for the run it waits on', async () => {
    const older = answered({ ...stored('run-0'), meta: { creditsCharged: 1, latestRun: running('run-1').meta.latestRun } });
    const { waiters } = world({ analysis: [older, answered(stored('run-1'))] });
    const read = await waiters.waitForAnalysis(started('run-1'), { pollInterval: 1 });
    assert.equal(read.data.hasAnalysis && read.data.runId, 'run-1');
  });

  it('throws AnalysisFailedError with the run’s failure code', async () => {
    const { waiters } = world({ analysis: [answered(failed('run-1'))] });
    await assert.rejects(waiters.waitForAnalysis(started('run-1')), (error: unknown) => {
      assert.ok(error instanceof AnalysisFailedError);
      assert.equal(error.code, 'ANALYSIS_TIMED_OUT');
      return true;
    });
  });

  it('throws WaitTimeoutError when the next wait would pass the timeout, without reading again', async () => {
    const { waiters, asked } = world({ analysis: [answered(running('run-1'))] });
    await assert.rejects(waiters.waitForAnalysis(started('run-1'), { timeout: 33_000, pollInterval: 5_000 }), WaitTimeoutError);
    assert.equal(asked.length, 1);
  });

  it('stops at the caller’s abort', async () => {
    const { waiters, asked } = world({ analysis: [] });
    await assert.rejects(waiters.waitForAnalysis(started('run-1'), { signal: AbortSignal.abort() }), (error: unknown) => {
      assert.ok(error instanceof CourtRecordsConnectionError);
      assert.equal(error.reason, 'aborted');
      return true;
    });
    assert.deepEqual(asked, []);
  });
});

describe('waitForTimeline', () => {
  it('reads a running job as its Retry-After asks until it completes', async () => {
    const { waiters, slept } = world({
      timeline: [
        answered(job('running'), { 'retry-after': '5' }),
        answered(job('running'), { 'retry-after': '5' }),
        answered(job('completed')),
      ],
    });
    const done = await waiters.waitForTimeline('tlr_1', { pollInterval: 60_000 });
    assert.equal(done.data.status, 'completed');
    assert.deepEqual(slept, [5_000, 5_000]);
  });

  it('throws TimelineFailedError with the job’s error code', async () => {
    const { waiters } = world({ timeline: [answered(job('failed'))] });
    await assert.rejects(waiters.waitForTimeline('tlr_1'), (error: unknown) => {
      assert.ok(error instanceof TimelineFailedError);
      assert.equal(error.code, 'UPSTREAM_TIMEOUT');
      return true;
    });
  });
});
