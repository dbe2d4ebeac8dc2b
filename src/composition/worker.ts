/**
 * A worker apart from the API (`npm run worker`): the service's graph (graph.ts) over the
 * adapters a worker opens, whose activities it runs through the one worker start
 * (`workersOn`), against the same PostgreSQL, document storage and engine as the API. It
 * counts into a metrics registry of its own, served at GET /ops/metrics when
 * WORKER_METRICS_PORT is set. PGlite lives inside one process, so a worker apart needs
 * DATABASE_URL.
 *
 * It opens only what its activities use. Analytics, search and embeddings are adapters that
 * need no IO and that no activity calls: a second embedded ClickHouse on the API's DATA_DIR,
 * a Meilisearch client or an HNSW build at start would be work and risk for nothing. Nor
 * does it start the graph's background tasks: the API runs the projectors, dispatchers
 * and sweepers.
 */
import { serve } from '@hono/node-server';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { unavailableAnalyticsStore } from '../adapters/clickhouse/unavailable-store.ts';
import { keyHashSecretOf } from '../adapters/crypto/local-secret.ts';
import { openEmbedder } from '../adapters/embeddings/open-embedder.ts';
import { PromMetrics } from '../adapters/metrics/prom-metrics.ts';
import { PostgresSearchIndex } from '../adapters/postgres/search-index.ts';
import { openDocumentStorage } from '../adapters/storage/open-document-storage.ts';
import { openWorkflowRuntime, payloadCodecOf, workerTemporalAddress } from '../compose-workflows.ts';
import { publicBaseUrl, type Config } from '../config.ts';
import { openDatabase } from '../db/open.ts';
import type { AppEnv } from '../http/env.ts';
import { createOpsApp } from '../http/ops-app.ts';
import type { Clock, IdGenerator } from '../ports/clock.ts';
import { memoryStores, type Adapters } from './adapters.ts';
import { buildGraph } from './graph.ts';
import { lifecycle, type Lifecycle } from './lifecycle.ts';

export interface Worker {
  /** False when no engine could be reached: nothing to run. */
  readonly available: boolean;
  /** Runs the workers, and serves GET /ops/metrics when WORKER_METRICS_PORT is set. */
  start(): void;
  /** Drains the workers and closes everything within `boundMs`; false when something did not end in it. */
  stop(boundMs: number): Promise<boolean>;
  /** What is being stopped or closed and has not ended yet. */
  stillClosing(): readonly string[];
}

interface WorkerOptions {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly socketAddress: (c: Context<AppEnv>) => string;
}

/** The database, document storage and engine the activities use; the rest need no IO (see the header). */
async function openWorkerAdapters(config: Config, options: { clock: Clock; logger: Logger; life: Lifecycle }): Promise<Adapters> {
  const { clock, logger, life } = options;
  const database = await openDatabase(config, 'the worker');
  life.resource('database', () => database.close());
  const baseUrl = publicBaseUrl(config);
  const documents = openDocumentStorage({ ...config, PUBLIC_BASE_URL: baseUrl }, clock);
  life.resource('document storage', () => documents.close());
  const payloadCodec = await payloadCodecOf(config);
  const workflowRuntime = await openWorkflowRuntime(
    { ...config, TEMPORAL_ADDRESS: workerTemporalAddress(config) },
    { logger, codec: payloadCodec, codecEndpoint: new URL('/ops/temporal-codec', baseUrl).toString() },
  );
  life.resource('workflow engine and workers', () => workflowRuntime.close());
  const searchIndex = new PostgresSearchIndex(database.db);
  return {
    database,
    metrics: new PromMetrics(),
    stores: memoryStores(clock),
    analytics: { store: unavailableAnalyticsStore('a worker apart opens no analytics store'), ready: false },
    keyHashSecret: keyHashSecretOf(config),
    adminToken: undefined,
    searchIndex,
    searchIndexWriter: searchIndex,
    parties: searchIndex,
    embedder: openEmbedder(config),
    vectorsAvailable: false,
    documents,
    payloadCodec,
    workflowRuntime,
  };
}

export async function composeWorker(config: Config, options: WorkerOptions): Promise<Worker> {
  const { logger, clock, ids } = options;
  const life = lifecycle({ onFailure: (step, err) => logger.error({ err, step }, 'did not stop cleanly') });
  const adapters = await openWorkerAdapters(config, { clock, logger, life });
  const graph = buildGraph(adapters, { config, clock, ids, logger, socketAddress: options.socketAddress });
  const metricsApp = createOpsApp({ ids, logger, metrics: graph.appDeps.metrics });
  const serveMetrics = (port: number) => {
    const server = serve({ fetch: metricsApp.fetch, port, hostname: config.HOST }, (info) =>
      logger.info({ url: `http://${config.HOST}:${String(info.port)}/ops/metrics` }, 'worker metrics served'),
    );
    life.resource('metrics listener', () => new Promise<void>((resolve) => server.close(() => resolve())));
  };
  return {
    available: adapters.workflowRuntime.workflows.available,
    start: () => {
      adapters.workflowRuntime.startWorkers(graph.activities);
      if (config.WORKER_METRICS_PORT !== undefined) serveMetrics(config.WORKER_METRICS_PORT);
    },
    stop: (boundMs) => life.stop(boundMs),
    stillClosing: () => life.unfinished(),
  };
}
