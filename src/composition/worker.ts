/**
 * A worker apart from the API (`npm run worker`): the workflows' activities over the same
 * PostgreSQL, document storage and engine as the API, built by the same wiring with the
 * same settings (settings.ts) and counting into its own metrics registry, which it serves at
 * GET /ops/metrics when WORKER_METRICS_PORT is set. PGlite lives inside one process, so a
 * worker apart needs DATABASE_URL.
 */
import { serve } from '@hono/node-server';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { PromMetrics } from '../adapters/metrics/prom-metrics.ts';
import { MemoryCache } from '../adapters/memory/cache.ts';
import { MemoryRateLimiter } from '../adapters/memory/rate-limiter.ts';
import { openDocumentStorage } from '../adapters/storage/open-document-storage.ts';
import { FailedAttemptThrottle } from '../application/access/failed-attempt-throttle.ts';
import { CaseReader } from '../application/cases/case-reader.ts';
import { StoredRecords } from '../application/timeline/stored-records.ts';
import {
  openWorkflowRuntime,
  payloadCodecOf,
  remoteFetchAllowlist,
  workerTemporalAddress,
  type WorkflowRuntime,
} from '../compose-workflows.ts';
import { keyHashSecretOf } from '../adapters/crypto/local-secret.ts';
import { publicBaseUrl, type Config } from '../config.ts';
import { openDatabase } from '../db/open.ts';
import { clientAddressResolver } from '../http/client-address.ts';
import type { AppEnv } from '../http/env.ts';
import { createOpsApp } from '../http/ops-app.ts';
import type { Clock, IdGenerator } from '../ports/clock.ts';
import { webhookDeliveriesOf, wireApplication, wireWorkflowCommands } from '../wiring.ts';
import { lifecycle } from './lifecycle.ts';
import { applicationSettings, watchdogBounds, webhookSending } from './settings.ts';

export interface Worker {
  /** False when no engine could be reached: nothing to run. */
  readonly available: boolean;
  /** Runs the workers, and serves GET /ops/metrics when WORKER_METRICS_PORT is set. */
  start(): void;
  /** Drains the workers and closes everything within `boundMs`; false when something did not end in it. */
  stop(boundMs: number): Promise<boolean>;
}

export async function composeWorker(
  config: Config,
  options: {
    readonly logger: Logger;
    readonly clock: Clock;
    readonly ids: IdGenerator;
    readonly socketAddress: (c: Context<AppEnv>) => string;
  },
): Promise<Worker> {
  const { logger, clock, ids } = options;
  const life = lifecycle({ onFailure: (step, err) => logger.error({ err, step }, 'did not stop cleanly') });
  const database = await openDatabase(config, 'the worker');
  life.resource('database', () => database.close());
  const metrics = new PromMetrics();
  const baseUrl = publicBaseUrl(config);
  const documents = openDocumentStorage({ ...config, PUBLIC_BASE_URL: baseUrl }, clock);
  life.resource('document storage', () => documents.close());
  const runtime: WorkflowRuntime = await openWorkflowRuntime(
    { ...config, TEMPORAL_ADDRESS: workerTemporalAddress(config) },
    { logger, codec: await payloadCodecOf(config), codecEndpoint: new URL('/ops/temporal-codec', baseUrl).toString() },
  );
  life.resource('workflow engine and workers', () => runtime.close());

  const keyHashSecret = keyHashSecretOf(config);
  // The application as the API builds it (its caches are this process's own, and nothing here polls them).
  const application = wireApplication({
    db: database.db,
    cache: new MemoryCache(clock),
    clock,
    ids,
    logger,
    keyHashSecret,
    ...applicationSettings(config),
    metrics,
  });
  const { runs, jobs } = wireWorkflowCommands(application, { db: database.db, clock, ids, watchdog: watchdogBounds(config) });
  const activities = {
    runs,
    cases: new CaseReader(database.db),
    documents: documents.storage,
    allowlist: remoteFetchAllowlist(config, baseUrl),
    timeline: {
      jobs,
      records: new StoredRecords(database.db),
      clock,
    },
    // Only the attempts run here; the API process projects and dispatches deliveries.
    webhooks: webhookDeliveriesOf({ db: database.db, clock, keyHashSecret, ...webhookSending(config) }),
  };
  const attempts = {
    failures: new FailedAttemptThrottle({
      limiter: new MemoryRateLimiter(clock),
      clock,
      scope: 'admin-token',
      maxFailures: config.FAILED_ADMIN_TOKEN_ATTEMPTS_PER_MINUTE,
      windowMs: 60_000,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; failed attempt not counted'),
      onBlocked: (source, until) => logger.warn({ source, until }, 'too many failed attempts: address refused until the window ends'),
    }),
    clientAddress: clientAddressResolver(options.socketAddress, config.TRUSTED_PROXIES),
  };
  const metricsApp = createOpsApp({
    ids,
    logger,
    metrics: {
      metrics,
      token: config.METRICS_TOKEN,
      attempts,
      socketAddress: options.socketAddress,
      behindProxy: config.TRUSTED_PROXIES.length > 0,
    },
  });
  const serveMetrics = (port: number) => {
    const server = serve({ fetch: metricsApp.fetch, port, hostname: config.HOST }, (info) =>
      logger.info({ url: `http://${config.HOST}:${String(info.port)}/ops/metrics` }, 'worker metrics served'),
    );
    life.resource('metrics listener', () => new Promise<void>((resolve) => server.close(() => resolve())));
  };
  return {
    available: runtime.workflows.available,
    start: () => {
      runtime.startWorkers(activities);
      if (config.WORKER_METRICS_PORT !== undefined) serveMetrics(config.WORKER_METRICS_PORT);
    },
    stop: (boundMs) => life.stop(boundMs),
  };
}
