/**
 * Composition root shared by the Node and Deno entry points: parses config, constructs
 * every adapter (embedded defaults unless a service URL is set), migrates, builds the app
 * and starts background work. Nothing below this file constructs an adapter.
 */
import { readFile } from 'node:fs/promises';
import type { Context } from 'hono';
import pino, { type Logger } from 'pino';
import { MemoryCache } from './adapters/memory/cache.ts';
import { MemoryRateLimiter } from './adapters/memory/rate-limiter.ts';
import { meilisearchProbe } from './adapters/meilisearch/probe.ts';
import { readCoverageAggregates } from './adapters/postgres/coverage-source.ts';
import { postgresProbes } from './adapters/postgres/probes.ts';
import { connectRedis, RedisCache } from './adapters/redis/cache.ts';
import { CoverageService } from './application/coverage/coverage-service.ts';
import type { Config } from './config.ts';
import { autoIngest } from './corpus/auto-ingest.ts';
import { migrate } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { createApp } from './http/app.ts';
import type { App } from './http/app-types.ts';
import type { AppEnv } from './http/env.ts';
import type { Cache } from './ports/cache.ts';
import { randomIds, systemClock, type Clock } from './ports/clock.ts';
import type { DependencyProbe } from './ports/health.ts';

export interface Service {
  readonly app: App;
  readonly logger: Logger;
  /** Background work after the listener is up: first-start ingest, coverage warm-up. */
  startBackground(): Promise<void>;
  close(): Promise<void>;
}

const SCALAR_BUNDLE = new URL('../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url);

async function openCache(config: Config, clock: Clock): Promise<{ cache: Cache; probe: DependencyProbe; close: () => Promise<void> }> {
  if (!config.REDIS_URL) {
    const cache: Cache = new MemoryCache(clock);
    return {
      cache,
      probe: { name: 'cache', hard: false, backend: 'memory', check: (signal) => cache.ping(signal) },
      close: async () => undefined,
    };
  }
  const client = await connectRedis(config.REDIS_URL);
  const cache: Cache = new RedisCache(client);
  return {
    cache,
    probe: { name: 'cache', hard: false, backend: 'redis', check: (signal) => cache.ping(signal) },
    close: async () => {
      await client.quit();
    },
  };
}

export async function composeService(
  config: Config,
  options: { clientAddress: (c: Context<AppEnv>) => string; clock?: Clock; logger?: Logger },
): Promise<Service> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL, base: { service: 'court-records-api' } });
  const database = await openDatabase(config);
  const migrated = await migrate(database.db);
  logger.info({ database: database.kind, applied: migrated.applied }, 'database ready');
  const cache = await openCache(config, clock);

  const probes = postgresProbes(database.db, database.kind).map((p) =>
    p.name === 'searchIndex' && config.MEILI_URL ? meilisearchProbe(config.MEILI_URL, config.MEILI_API_KEY) : p,
  );
  const coverage = new CoverageService({
    read: () => readCoverageAggregates(database.db),
    cache: cache.cache,
    clock,
    onRefreshFailure: (err) => logger.warn({ err }, 'coverage refresh failed'),
  });

  const app = createApp({
    basePath: config.API_BASE_PATH,
    version: config.APP_VERSION,
    logger,
    ids: randomIds,
    health: {
      probes: [...probes, cache.probe],
      version: config.APP_VERSION,
      commit: config.GIT_COMMIT,
      startedAt: clock.now(),
      now: () => clock.now(),
      onProbeFailure: (name, err) => logger.warn({ dependency: name, err }, 'health probe failed'),
    },
    coverage: { service: coverage, corsOrigins: config.CORS_ORIGINS },
    publicRateLimit: {
      limiter: new MemoryRateLimiter(clock),
      perMinute: config.PUBLIC_RATE_LIMIT_PER_MINUTE,
      clock,
      clientAddress: options.clientAddress,
    },
    scalarBundle: () => readFile(SCALAR_BUNDLE).catch(() => undefined),
  });

  return {
    app,
    logger,
    startBackground: async () => {
      if (config.AUTO_INGEST && config.CORPUS_DIR) {
        await autoIngest({ db: database.db, corpusDir: config.CORPUS_DIR, clock, logger });
      }
      await coverage.refresh().catch((err: unknown) => logger.warn({ err }, 'coverage warm-up failed'));
    },
    close: async () => {
      await cache.close();
      await database.close();
    },
  };
}
