/**
 * The gate and the hot path: requests per second of GET /health (no key) and keyed GET /me
 * (unmetered) on the real service, a child process over PostgreSQL, against a bare Hono
 * app on @hono/node-server answering a tiny JSON, all driven by wrk (-t1 -c32) in the same
 * run, interleaved, medians of RUNS runs. Targets: /health at least 0.5 of bare, /me at
 * least 0.5 of /health.
 *
 *   TEST_DATABASE_URL=postgres://... node --import tsx bench/hot-path.bench.ts
 *
 * HOT_PATH_RUNS (default 5) and HOT_PATH_SECONDS (default 5) set the runs and their length;
 * HOT_PATH_REDIS_URL runs the service's rate limits in Redis; HOT_PATH_CPU_PROF=dir writes a
 * CPU profile of the service to dir.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { freshDatabase, fundedKey, serveChild } from './serve-child.ts';
import { table } from './stats.ts';
import { medianWrk, wrk, type WrkResult } from './wrk.ts';

export interface HotPathFigures {
  readonly runs: number;
  readonly seconds: number;
  readonly bare: WrkResult;
  readonly health: WrkResult;
  readonly me: WrkResult;
}

/** The bare app in this process: it idles while the service is loaded, and the service idles while it is. */
export async function serveBare(): Promise<{ url: string; close: () => void }> {
  const app = new Hono();
  app.get('/health', (c) => c.json({ status: 'ok' }));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/health`, close: () => server.close() };
}

export async function benchHotPath(
  adminUrl: string,
  options: { runs?: number; seconds?: number; redisUrl?: string; cpuProfileDir?: string } = {},
): Promise<HotPathFigures> {
  const runs = options.runs ?? 5;
  const seconds = options.seconds ?? 5;
  const database = await freshDatabase(adminUrl, 'bench_hot_path');
  const bare = await serveBare();
  try {
    const { key } = await fundedKey(database.db, { email: 'hot-path@lawfirm.example', credits: 1_000 });
    const service = await serveChild({
      databaseUrl: database.url,
      ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
      ...(options.cpuProfileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] } : {}),
    });
    try {
      await service.settled();
      const keyed = { headers: { 'X-API-Key': key } };
      const health = `${service.root}/health`;
      const me = `${service.root}/me`;
      // Warm-up: JIT, connection pools, the key cache.
      await wrk(bare.url, { durationSeconds: 2 });
      await wrk(health, { durationSeconds: 2 });
      await wrk(me, { ...keyed, durationSeconds: 2 });
      const results = { bare: [] as WrkResult[], health: [] as WrkResult[], me: [] as WrkResult[] };
      for (let i = 0; i < runs; i += 1) {
        results.bare.push(await wrk(bare.url, { durationSeconds: seconds }));
        results.health.push(await wrk(health, { durationSeconds: seconds }));
        results.me.push(await wrk(me, { ...keyed, durationSeconds: seconds }));
      }
      return { runs, seconds, bare: medianWrk(results.bare), health: medianWrk(results.health), me: medianWrk(results.me) };
    } finally {
      await service.stop();
    }
  } finally {
    bare.close();
    await database.drop();
  }
}

export function printHotPath(f: HotPathFigures): void {
  console.log(`\nThe gate and the hot path (wrk -t1 -c32, ${String(f.seconds)} s runs; medians of ${String(f.runs)}, interleaved)`);
  const row = (label: string, r: WrkResult) => [label, r.perSecond, r.p50Ms, r.p99Ms, r.failures];
  console.log(
    table([
      ['server', 'req/s', 'p50 ms', 'p99 ms', 'failures'],
      row('bare Hono, @hono/node-server', f.bare),
      row('service GET /health', f.health),
      row('service GET /me (X-API-Key)', f.me),
    ]),
  );
  console.log(
    table([
      ['ratio', 'req/s', 'target'],
      ['/health : bare', f.health.perSecond / f.bare.perSecond, '>= 0.50'],
      ['/me : /health', f.me.perSecond / f.health.perSecond, '>= 0.50'],
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL (or BENCH_DATABASE_URL): the service runs over PostgreSQL');
  const env = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const runs = env('HOT_PATH_RUNS');
  const seconds = env('HOT_PATH_SECONDS');
  printHotPath(
    await benchHotPath(adminUrl, {
      ...(runs ? { runs } : {}),
      ...(seconds ? { seconds } : {}),
      ...(process.env.HOT_PATH_REDIS_URL ? { redisUrl: process.env.HOT_PATH_REDIS_URL } : {}),
      ...(process.env.HOT_PATH_CPU_PROF ? { cpuProfileDir: process.env.HOT_PATH_CPU_PROF } : {}),
    }),
  );
}
