/**
 * Throughput on 1, 2 and 3 API instances on the same engines, through the TLS load balancer:
 * the cluster of the cluster tier (test/support/cluster.ts: shared PostgreSQL, Redis,
 * Meilisearch, an external Temporal server, S3 from moto, a worker apart) with HAProxy
 * pointed at the first 1, 2 or 3 instances in turn (a reload, same port). wrk drives charged
 * reads (GET /cases/:id, 1 credit) and keyword searches (POST /search/cases, 5 credits, no
 * Idempotency-Key) at 32 connections; the instance counts take turns within each run, so
 * each run's ratios compare like with like. Every process shares the machine's cores with
 * wrk, HAProxy and the engines: on 2 cores a second instance adds little CPU to spend.
 *
 *   TEST_DATABASE_URL=... TEST_REDIS_URL=... MEILI_URL=... MEILI_API_KEY=... \
 *     node --import tsx bench/cluster.bench.ts     # CLUSTER_BENCH_RUNS (3), CLUSTER_BENCH_SECONDS (5)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, API, clusterMissing, startCluster } from '../test/support/cluster.ts';
import { startLoadBalancer } from '../test/support/load-balancer.ts';
import { median, table } from './stats.ts';
import { medianWrk, wrk, type WrkResult } from './wrk.ts';

const CASE = 'sc-inabs-5861';
const INSTANCES = [1, 2, 3] as const;

export interface ClusterFigures {
  /** Per instance count: the median of the runs. */
  readonly reads: Record<number, WrkResult>;
  readonly searches: Record<number, WrkResult>;
  /** Per instance count: the median over runs of (rate at n) / (rate at 1) within one run. */
  readonly readRatios: Record<number, number>;
  readonly searchRatios: Record<number, number>;
  readonly runs: number;
  readonly seconds: number;
}

async function admin<T>(url: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${String(res.status)} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

export async function benchCluster(options: { runs?: number; seconds?: number } = {}): Promise<ClusterFigures> {
  if (clusterMissing) throw new Error(clusterMissing);
  const runs = options.runs ?? Number(process.env.CLUSTER_BENCH_RUNS ?? 3);
  const seconds = options.seconds ?? Number(process.env.CLUSTER_BENCH_SECONDS ?? 5);
  const cluster = await startCluster({ instances: 3 });
  const dir = mkdtempSync(join(tmpdir(), 'cluster-bench-'));
  try {
    const direct = cluster.instances[0]!.url;
    const user = await admin<{ userId: string }>(direct, '/admin/users', {
      email: 'bench@cluster.example',
      name: 'Cluster bench',
      tier: 'enterprise',
      limitOverrides: { requestsPerMinute: 100_000 },
    });
    const { fullKey } = await admin<{ fullKey: string }>(direct, `/admin/users/${user.userId}/keys`, { name: 'bench' });
    await admin(direct, `/admin/users/${user.userId}/credits`, { amount: 10_000_000, source: 'grant' });
    const search = join(dir, 'search.lua');
    writeFileSync(
      search,
      [
        'wrk.method = "POST"',
        `wrk.body = '${JSON.stringify({ query: 'appeal' })}'`,
        'wrk.headers["Content-Type"] = "application/json"',
        `wrk.headers["X-API-Key"] = "${fullKey}"`,
      ].join('\n'),
    );
    const backends = cluster.instances.map((i) => ({ host: '127.0.0.1', port: i.port }));
    const lb = await startLoadBalancer({ backends });
    try {
      await lb.waitUntilAllUp(30_000);
      const lists = <T>() => new Map<number, T[]>(INSTANCES.map((n) => [n, []]));
      const reads = lists<WrkResult>();
      const searches = lists<WrkResult>();
      const readRatios = lists<number>();
      const searchRatios = lists<number>();
      // A warm-up on every instance: caches filled, code compiled.
      await wrk(`${lb.url}${API}/cases/${CASE}`, { headers: { 'X-API-Key': fullKey }, durationSeconds: 2 });
      for (let run = 0; run < runs; run += 1) {
        const perRun: Record<number, { read: number; search: number }> = {};
        for (const n of INSTANCES) {
          await lb.setBackends(backends.slice(0, n));
          await lb.waitUntilAllUp(30_000);
          const read = await wrk(`${lb.url}${API}/cases/${CASE}`, { headers: { 'X-API-Key': fullKey }, durationSeconds: seconds });
          const found = await wrk(`${lb.url}${API}/search/cases`, { script: search, durationSeconds: seconds });
          reads.get(n)!.push(read);
          searches.get(n)!.push(found);
          perRun[n] = { read: read.perSecond, search: found.perSecond };
        }
        for (const n of INSTANCES) {
          readRatios.get(n)!.push(perRun[n]!.read / perRun[1]!.read);
          searchRatios.get(n)!.push(perRun[n]!.search / perRun[1]!.search);
        }
      }
      const byCount = <T>(f: (n: number) => T) => Object.fromEntries(INSTANCES.map((n) => [n, f(n)])) as Record<number, T>;
      return {
        reads: byCount((n) => medianWrk(reads.get(n)!)),
        searches: byCount((n) => medianWrk(searches.get(n)!)),
        readRatios: byCount((n) => median(readRatios.get(n)!)),
        searchRatios: byCount((n) => median(searchRatios.get(n)!)),
        runs,
        seconds,
      };
    } finally {
      await lb.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await cluster.stop();
  }
}

export function printCluster(f: ClusterFigures): string {
  const rows: (string | number)[][] = [
    ['route (32 connections, through HAProxy TLS)', 'instances', 'req/s', 'p50 ms', 'p99 ms', 'failures', 'vs 1'],
  ];
  for (const [name, figures, ratios] of [
    [`GET /cases/:id (${CASE}, 1 credit)`, f.reads, f.readRatios],
    ['POST /search/cases (5 credits)', f.searches, f.searchRatios],
  ] as const)
    for (const n of INSTANCES) {
      const w = figures[n]!;
      rows.push([name, String(n), w.perSecond, w.p50Ms, w.p99Ms, w.failures, ratios[n]!]);
    }
  return table(rows);
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const figures = await benchCluster();
  console.log(
    `Cluster: 1, 2 and 3 API instances on the same engines (medians of ${String(figures.runs)} runs of ${String(figures.seconds)} s)`,
  );
  console.log(printCluster(figures));
}
