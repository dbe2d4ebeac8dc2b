/**
 * Builds the real HTTP app over a real (in-memory PGlite) database for `app.request()`
 * tests. Options replace only what a test must control: probes, clock, rate limits.
 */
import pino from 'pino';
import { MemoryCache } from '../../src/adapters/memory/cache.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { readCoverageAggregates } from '../../src/adapters/postgres/coverage-source.ts';
import { postgresProbes } from '../../src/adapters/postgres/probes.ts';
import { CoverageService } from '../../src/application/coverage/coverage-service.ts';
import type { Db } from '../../src/db/database.ts';
import { createApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app-types.ts';
import type { Cache } from '../../src/ports/cache.ts';
import { randomIds, type Clock } from '../../src/ports/clock.ts';
import type { DependencyProbe } from '../../src/ports/health.ts';

export const BASE = '/api/v1/prod';

export class SettableClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  advanceSeconds(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

export interface TestAppOptions {
  readonly db: Db;
  readonly clock?: Clock;
  readonly probes?: (real: DependencyProbe[]) => DependencyProbe[];
  readonly perMinute?: number;
  readonly cache?: Cache;
  readonly readCoverage?: typeof readCoverageAggregates;
}

export function buildTestApp(options: TestAppOptions): { app: App; coverage: CoverageService; logs: string[] } {
  const clock = options.clock ?? { now: () => new Date() };
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const cache = options.cache ?? new MemoryCache(clock);
  const real: DependencyProbe[] = [
    ...postgresProbes(options.db, 'pglite'),
    { name: 'cache', hard: false, backend: 'memory', check: (s) => cache.ping(s) },
  ];
  const coverage = new CoverageService({
    read: () => (options.readCoverage ?? readCoverageAggregates)(options.db),
    cache,
    clock,
    onRefreshFailure: () => undefined,
  });
  const app = createApp({
    basePath: BASE,
    version: '0.1.0-test',
    logger,
    ids: randomIds,
    health: {
      probes: options.probes ? options.probes(real) : real,
      version: '0.1.0-test',
      commit: 'test',
      startedAt: clock.now(),
      now: () => clock.now(),
      onProbeFailure: () => undefined,
    },
    coverage: { service: coverage, corsOrigins: ['https://www.example-court-records.in'] },
    publicRateLimit: {
      limiter: new MemoryRateLimiter(clock),
      perMinute: options.perMinute ?? 1000,
      clock,
      clientAddress: (c) => c.req.header('x-test-client') ?? '127.0.0.1',
    },
    scalarBundle: async () => new TextEncoder().encode('/* scalar bundle */'),
  });
  return { app, coverage, logs };
}
