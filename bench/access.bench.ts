/**
 * Access-gate figures:
 * 1. authenticated GET /me against unauthenticated GET /health on the running service
 *    (a child process on 2 cores, PGlite), throughput and p99, medians of 3 runs, as ratios;
 * 2. revocation propagation between two instances with separate caches sharing one
 *    PostgreSQL (when a URL is given): time from the revoking commit to the other
 *    instance's first 401, median of 10;
 * 3. rate-limit misclassification against a sliding-window oracle, on a simulated clock
 *    (the in-process limiter; Redis's limiter keeps windows on Redis's own clock, which a
 *    simulated clock cannot drive, and runs the same fixed-window rule).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { MemoryRateLimiter } from '../src/adapters/memory/rate-limiter.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/open.ts';
import type { Clock } from '../src/ports/clock.ts';
import type { RateLimiter } from '../src/ports/rate-limiter.ts';
import { buildTestApp } from '../test/support/app.ts';
import { load, type LoadResult } from './http-load.ts';
import { median } from './stats.ts';

const operator = { kind: 'operator' } as const;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 120; i += 1) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`service at ${url} did not come up`);
}

async function adminCall(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/admin${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: Record<string, unknown> };
  if (!res.ok || !json.data) throw new Error(`admin ${path} failed: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

export interface GateFigures {
  readonly health: LoadResult;
  readonly me: LoadResult;
}

export async function benchGateThroughput(): Promise<GateFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-gate-'));
  const port = 3000 + Math.floor(Math.random() * 1000) + 20000;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      AUTO_INGEST: 'false',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN,
      DATABASE_URL: '',
      REDIS_URL: '',
    },
    stdio: 'ignore',
  });
  try {
    const root = `http://127.0.0.1:${port}`;
    const api = `${root}/api/v1/prod`;
    await waitFor(`${api}/health`);
    const user = await adminCall(root, '/users', {
      email: 'bench@lawfirm.example',
      name: 'Bench',
      tier: 'enterprise',
      limitOverrides: { requestsPerMinute: 10_000_000 },
    });
    const key = await adminCall(root, `/users/${String(user.userId)}/keys`, { name: 'bench' });
    const headers = { 'X-API-Key': String(key.fullKey) };
    const options = { concurrency: 32, durationMs: 4000 };
    await load(`${api}/me`, headers, { ...options, durationMs: 1000, expectStatus: 200 });
    const healthRuns: LoadResult[] = [];
    const meRuns: LoadResult[] = [];
    for (let i = 0; i < 3; i += 1) {
      healthRuns.push(await load(`${api}/health`, {}, { ...options, expectStatus: 200 }));
      meRuns.push(await load(`${api}/me`, headers, { ...options, expectStatus: 200 }));
    }
    const pick = (runs: LoadResult[]): LoadResult => ({
      requests: median(runs.map((r) => r.requests)),
      perSecond: median(runs.map((r) => r.perSecond)),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      failures: runs.reduce((s, r) => s + r.failures, 0),
    });
    return { health: pick(healthRuns), me: pick(meRuns) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Two application instances (own caches, own invalidators) over one PostgreSQL. */
export async function benchRevocation(adminUrl: string, pollMs: number): Promise<number[]> {
  const name = `bench_revoke_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), { max: 10 });
  // Each instance has its own caches and invalidator, as two processes would.
  const instance = () => buildTestApp({ db: db.db, keyCachePollMs: pollMs }).application;
  try {
    await migrate(db.db);
    const a = instance();
    const b = instance();
    await b.invalidator.poll();
    b.invalidator.start();
    const user = await a.accounts.registerUser(
      {
        email: 'revoke@lawfirm.example',
        name: 'Revoke',
        tier: 'enterprise',
        organizationId: null,
        role: 'MEMBER',
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: null,
        limitOverrides: {},
      },
      operator,
    );
    if (!user.ok) throw new Error(user.error.tag);
    const samples: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const key = await a.accounts.createKey(user.value.userId, `k${i}`, operator);
      if (!key.ok) throw new Error(key.error.tag);
      const first = await b.authenticator.authenticate(key.value.fullKey);
      if (!first.ok) throw new Error('key did not authenticate on instance B');
      await a.accounts.revokeKey(key.value.id, operator);
      const revokedAt = performance.now();
      while ((await b.authenticator.authenticate(key.value.fullKey)).ok) await new Promise((r) => setTimeout(r, 5));
      samples.push(performance.now() - revokedAt);
      await new Promise((r) => setTimeout(r, Math.random() * pollMs));
    }
    await b.invalidator.stop();
    return samples;
  } finally {
    await db.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

class StepClock implements Clock {
  constructor(public t: number) {}
  now(): Date {
    return new Date(this.t);
  }
}

export interface Misclassification {
  readonly requests: number;
  readonly wronglyRefused: number;
  readonly admittedOverSlidingLimit: number;
}

/**
 * Replays a bursty arrival pattern (seeded) through a limiter and an exact sliding-window
 * oracle: a refusal while the key is under its limit is a misclassification (must be 0);
 * admissions beyond the sliding limit show the fixed window's boundary allowance.
 */
export async function benchMisclassification(
  makeLimiter: (clock: Clock) => Promise<RateLimiter>,
  limit: number,
): Promise<Misclassification> {
  const clock = new StepClock(Date.parse('2026-11-26T10:00:00Z'));
  const limiter = await makeLimiter(clock);
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const admitted: number[] = [];
  const key = `bench-${Date.now()}`;
  let wronglyRefused = 0;
  let over = 0;
  let requests = 0;
  for (let step = 0; step < 4000; step += 1) {
    clock.t += Math.floor(random() * (random() < 0.1 ? 4000 : 400));
    const windowStart = clock.t - 60_000;
    while (admitted.length > 0 && admitted[0]! <= windowStart) admitted.shift();
    const decision = await limiter.hit(key, limit, 60_000);
    requests += 1;
    if (!decision.allowed && admitted.length < limit) wronglyRefused += 1;
    if (decision.allowed) {
      if (admitted.length >= limit) over += 1;
      admitted.push(clock.t);
    }
  }
  return { requests, wronglyRefused, admittedOverSlidingLimit: over };
}

export async function benchLimiters(): Promise<{ memory: Misclassification }> {
  return { memory: await benchMisclassification(async (clock) => new MemoryRateLimiter(clock), 60) };
}
