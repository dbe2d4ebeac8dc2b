/**
 * A small closed-loop HTTP load generator: N concurrent clients, each sending its next
 * request when the previous answered, for a fixed duration. Reports throughput and
 * latency percentiles. Loopback only.
 */
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

export async function load(
  url: string,
  headers: Record<string, string>,
  options: { concurrency: number; durationMs: number; expectStatus: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + options.durationMs;
  const started = performance.now();
  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
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
