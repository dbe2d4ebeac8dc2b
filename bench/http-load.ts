/**
 * A small closed-loop HTTP load generator: N concurrent clients, each sending its next
 * request when the previous answered, for a fixed duration. Reports throughput and
 * latency percentiles. Loopback only.
 */
import { median } from './stats.ts';
export interface LoadResult {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export interface LoadOptions {
  readonly concurrency: number;
  readonly durationMs: number;
  readonly expectStatus: number;
  /** POST this body (the i-th request's) instead of GET. */
  readonly body?: (i: number) => string;
  /** Per-request headers over the common ones, e.g. a key per account. */
  readonly headersFor?: (i: number) => Record<string, string>;
}

export async function load(url: string, headers: Record<string, string>, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.durationMs;
  const started = performance.now();
  let sent = 0;
  const client = async () => {
    while (performance.now() < deadline) {
      const i = sent++;
      const t0 = performance.now();
      const res = await fetch(url, {
        headers: { ...headers, ...options.headersFor?.(i), ...(options.body ? { 'Content-Type': 'application/json' } : {}) },
        ...(options.body ? { method: 'POST', body: options.body(i) } : {}),
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== options.expectStatus) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failures,
  };
}

/** Several runs of one load as one result: the median of each rate and latency, the sums of counts. */
export function medianLoad(runs: readonly LoadResult[]): LoadResult {
  return {
    requests: runs.reduce((s, r) => s + r.requests, 0),
    perSecond: median(runs.map((r) => r.perSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    failures: runs.reduce((s, r) => s + r.failures, 0),
  };
}
