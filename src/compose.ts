/**
 * Composition root shared by the Node and Deno entry points: parses config, constructs
 * every adapter (embedded defaults unless a service URL is set), migrates, builds the app
 * and starts background work. Nothing below this file constructs an adapter.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'hono';
import pino, { type Logger } from 'pino';
import { MemoryCache } from './adapters/memory/cache.ts';
import { MemoryRateLimiter } from './adapters/memory/rate-limiter.ts';
import { MemoryDistinctCounter } from './adapters/memory/distinct-counter.ts';
import { ADMIN_TOKEN_FILE, loadOrCreateSecret } from './adapters/crypto/local-secret.ts';
import { RedisDistinctCounter, RedisRateLimiter } from './adapters/redis/rate-limits.ts';
import { wireAnalysis, wireApplication, wireResearch, wireScreening, wireTimeline, wireWebhooks } from './wiring.ts';
import { openAdjudicator } from './adapters/llm/open-adjudicator.ts';
import { openWorkflowRuntime, payloadCodecOf, remoteFetchAllowlist } from './compose-workflows.ts';
import { PeriodicTask } from './application/periodic-task.ts';
import { FailedAttemptThrottle } from './application/access/failed-attempt-throttle.ts';
import { openSearchIndex } from './adapters/search/open-search-index.ts';
import { openEmbedder } from './adapters/embeddings/open-embedder.ts';
import { PostgresVectorIndex, vectorStoreAvailable } from './adapters/postgres/vector-index.ts';
import { PostgresCaseRestrictions } from './adapters/postgres/case-restrictions.ts';
import { EmbeddingProjector } from './projections/embedding-projector.ts';
import { CreditExpirySweeper } from './application/credits/expiry-sweeper.ts';
import { openDocumentStorage } from './adapters/storage/open-document-storage.ts';
import { storeJudgmentDocuments } from './corpus/store-documents.ts';
import { SearchIndexProjector } from './projections/search-index-projector.ts';
import { MeilisearchSearchIndex } from './adapters/meilisearch/search-index.ts';
import { openAnalyticsStore } from './adapters/clickhouse/open.ts';
import { unavailableAnalyticsStore } from './adapters/clickhouse/unavailable-store.ts';
import type { AnalyticsStore } from './ports/analytics.ts';
import { migrateAnalytics } from './adapters/clickhouse/migrate.ts';
import { findUserOrganization } from './adapters/postgres/key-lookup.ts';
import { AuditQueries } from './application/audit/audit-queries.ts';
import { UsageByDay } from './application/audit/usage-by-day.ts';
import { exportLedger } from './application/credits/ledger-export.ts';
import { auditToClickHouse } from './projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from './projections/projector.ts';
import { projectorLag } from './projections/projector-lag.ts';
import { WEBHOOK_PROJECTOR } from './application/webhooks/webhook-outbox.ts';
import { searchIndexProjectorName } from './projections/search-index-projector.ts';
import { embeddingProjectorName } from './projections/embedding-projector.ts';
import { PromMetrics } from './adapters/metrics/prom-metrics.ts';
import { clientAddressResolver } from './http/client-address.ts';
import type { RateLimiter } from './ports/rate-limiter.ts';
import type { DistinctCounter } from './ports/distinct-counter.ts';
import { meilisearchProbe } from './adapters/meilisearch/probe.ts';
import { postgresProbes } from './adapters/postgres/probes.ts';
import { RedisCache } from './adapters/redis/cache.ts';
import { connectRedis } from './adapters/redis/connection.ts';
import { publicBaseUrl, type Config } from './config.ts';
import { autoIngest } from './corpus/auto-ingest.ts';
import { migrate } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { createApp, type AppDeps } from './http/app.ts';
import { testMode, TEST_MODE_PATH } from './compose-test-mode.ts';
import { InFlightRequests } from './http/middleware/in-flight.ts';
import type { App } from './http/app-types.ts';
import type { AppEnv } from './http/env.ts';
import type { Cache } from './ports/cache.ts';
import { randomIds, systemClock, type Clock } from './ports/clock.ts';
import { endsWithin } from './application/ends-within.ts';
import type { DependencyProbe } from './ports/health.ts';

export interface Service {
  readonly app: App;
  readonly logger: Logger;
  /** Background work after the listener is up: first-start ingest, coverage warm-up. */
  startBackground(): Promise<void>;
  /**
   * A graceful stop, once the listener stopped accepting: lets the requests in flight finish
   * (up to SHUTDOWN_DRAIN_SECONDS; answers meanwhile say Connection: close), then closes
   * everything, for at most CLOSE_BOUND_MS. Resolves how many requests were still in flight
   * when it gave up waiting, and whether the closing finished in its bound.
   */
  drainAndClose(): Promise<{ abandoned: number; closed: boolean }>;
  close(): Promise<void>;
}

/**
 * How long closing may take once the requests are drained. An engine that does not answer
 * holds each worker's shutdown for half a minute; the process exits anyway, and whatever a
 * dev server left behind is stopped by the next start (dev-server-ports.ts).
 */
const CLOSE_BOUND_MS = 10_000;

const SCALAR_BUNDLE = new URL('../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url);

interface SharedStores {
  readonly cache: Cache;
  readonly limiter: RateLimiter;
  readonly distinctKeys: DistinctCounter;
  readonly probe: DependencyProbe;
  close(): Promise<void>;
}

/** Cache, rate limits and distinct counters: in process, or in Redis when REDIS_URL is set. */
async function openSharedStores(config: Config, clock: Clock): Promise<SharedStores> {
  if (!config.REDIS_URL) {
    const cache: Cache = new MemoryCache(clock);
    return {
      cache,
      limiter: new MemoryRateLimiter(clock),
      distinctKeys: new MemoryDistinctCounter(clock),
      probe: { name: 'cache', hard: false, backend: 'memory', check: (signal) => cache.ping(signal) },
      close: async () => undefined,
    };
  }
  const redis = await connectRedis(config.REDIS_URL);
  const cache: Cache = new RedisCache(redis);
  return {
    cache,
    limiter: new RedisRateLimiter(redis, clock),
    distinctKeys: new RedisDistinctCounter(redis),
    probe: { name: 'cache', hard: false, backend: 'redis', check: (signal) => cache.ping(signal) },
    close: async () => {
      await redis.close();
    },
  };
}

/** The analytics store, or, if it cannot be opened, one that refuses: the API still serves. */
async function openAnalytics(config: Config, logger: Logger): Promise<{ store: AnalyticsStore; ready: boolean }> {
  try {
    const store = await openAnalyticsStore({ CLICKHOUSE_URL: config.CLICKHOUSE_URL, DATA_DIR: config.DATA_DIR });
    const migrated = await migrateAnalytics(store);
    logger.info({ analytics: store.kind, applied: migrated.applied }, 'analytics store ready');
    return { store, ready: true };
  } catch (err) {
    logger.error({ err }, 'analytics store unavailable: /audit and /usage will answer 502; audit events wait in Postgres');
    return { store: unavailableAnalyticsStore(err instanceof Error ? err.message : String(err)), ready: false };
  }
}

/**
 * Stdout written in 4 kB chunks off the event loop instead of a blocking write per line: under
 * load the access log costs one write per some fifteen requests. A quiet service's lines wait
 * at most a second, and what is buffered is flushed when the process exits (a SIGKILL loses it).
 */
function bufferedStdout(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 });
}

export async function composeService(
  config: Config,
  options: { socketAddress: (c: Context<AppEnv>) => string; clock?: Clock; logger?: Logger },
): Promise<Service> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL, base: { service: 'court-records-api' } }, bufferedStdout());
  // First: on the embedded default this locks DATA_DIR's database, so a second instance on it stops here, having started nothing.
  const database = await openDatabase(config, 'the service');
  const migrated = await migrate(database.maintenance);
  logger.info({ database: database.kind, applied: migrated.applied }, 'database ready');
  // One registry for the process: the HTTP layer, the ledger and the workflows all count into it.
  const metrics = new PromMetrics({ onLagReadFailure: (err) => logger.warn({ err }, 'projector lag could not be read for the scrape') });
  const stores = await openSharedStores(config, clock);
  const analytics = await openAnalytics(config, logger);
  const keyHashSecret = config.KEY_HASH_SECRET ?? loadOrCreateSecret(join(config.DATA_DIR, 'secrets', 'key-hash-secret'));
  // Off a single machine (DATABASE_URL set), no ADMIN_TOKEN means no admin API.
  const adminToken =
    config.ADMIN_TOKEN ?? (config.DATABASE_URL === undefined ? loadOrCreateSecret(ADMIN_TOKEN_FILE(config.DATA_DIR)) : undefined);
  if (config.ADMIN_TOKEN === undefined && adminToken !== undefined) {
    logger.info(
      { file: ADMIN_TOKEN_FILE(config.DATA_DIR) },
      'admin API on, with the local admin token in this file (court-records dev seed reads it)',
    );
  }
  const application = wireApplication({
    db: database.db,
    cache: stores.cache,
    clock,
    ids: randomIds,
    logger,
    keyPrefixes: config.API_KEY_PREFIXES,
    keyHashSecret,
    entitledTiers: config.API_PLANS,
    keyCachePollMs: config.KEY_CACHE_POLL_MS,
    longestCallMs: config.CONSOLIDATED_DEADLINE_SECONDS * 1000,
    metrics,
  });
  const expirySweeper = new CreditExpirySweeper(application.credits, {
    intervalMs: 60_000,
    onSwept: (report) => logger.info(report, 'expired credits recorded, lapsed holds released'),
    onError: (err) => logger.warn({ err }, 'credit expiry sweep failed; will retry'),
  });
  // Pin the invalidator's starting point before the first request can fill a cache.
  await application.invalidator.poll();
  const clientAddress = clientAddressResolver(options.socketAddress, config.TRUSTED_PROXIES);
  // Failed attempts at a secret, per client address per minute, counted in the shared store.
  const failedAttempts = (scope: string, maxFailures: number) =>
    new FailedAttemptThrottle({
      limiter: stores.limiter,
      clock,
      scope,
      maxFailures,
      windowMs: 60_000,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; failed attempt not counted'),
      onBlocked: (source, until) =>
        logger.warn({ scope, source, until }, 'too many failed attempts: address refused until the window ends'),
    });
  const adminTokenAttempts = { failures: failedAttempts('admin-token', config.FAILED_ADMIN_TOKEN_ATTEMPTS_PER_MINUTE), clientAddress };
  const probes = postgresProbes(database.db, database.kind).map((p) =>
    p.name === 'searchIndex' && config.MEILI_URL ? meilisearchProbe(config.MEILI_URL, config.MEILI_API_KEY) : p,
  );

  const auditProjection = auditToClickHouse(analytics.store);
  const auditProjector = new ProjectorRunner(database.maintenance, auditProjection, {
    now: () => clock.now(),
    // ClickHouse wants few large inserts: each insert writes a part, whatever its size.
    batchSize: 5_000,
    idleMs: 250,
    onError: (err) => logger.warn({ err }, 'audit projection to ClickHouse failed; will retry'),
  });

  // Meilisearch when MEILI_URL is set, else PostgreSQL full-text search over the case store's database.
  const searchIndex = await openSearchIndex(config, database.db);
  // The projector's writes (and the ANALYZE after a large load) go through the pool without the statement timeout.
  // Meilisearch has no pool to keep apart: the one client (its schema migrated once) serves both.
  const searchIndexWriter =
    searchIndex.name === 'postgres' && database.maintenance !== database.db
      ? await openSearchIndex(config, database.maintenance)
      : searchIndex;
  const searchProjector = new SearchIndexProjector(database.maintenance, searchIndexWriter, {
    kind: database.kind,
    now: () => clock.now(),
    onError: (err) => logger.warn({ err }, 'search index projection failed; will retry'),
  });
  const embedder = openEmbedder(config);
  const vectorIndex = new PostgresVectorIndex(database.db, { model: embedder.model, dimensions: embedder.dimensions });
  // PostgreSQL without pgvector has no case_chunks: semantic search then answers from the keyword index.
  const vectorsAvailable = await vectorStoreAvailable(database.db);
  // Building the HNSW index over every chunk may take minutes: not on the request path's pool.
  if (vectorsAvailable)
    await new PostgresVectorIndex(database.maintenance, { model: embedder.model, dimensions: embedder.dimensions }).prepare();
  else logger.warn('no pgvector: semantic search will answer from the keyword index (fallbackMode)');
  const embeddingProjector = new EmbeddingProjector(database.maintenance, embedder, {
    kind: database.kind,
    now: () => clock.now(),
    onProgress: (progress) => logger.debug(progress, 'embedding projector'),
    onError: (err) => logger.warn({ err }, 'embedding projection failed; will retry'),
  });
  metrics.observeProjectorLag(() =>
    projectorLag(database.db, [
      { name: auditProjection.name, feed: 'events' },
      { name: WEBHOOK_PROJECTOR, feed: 'events' },
      { name: searchIndexProjectorName(searchIndexWriter), feed: 'cases' },
      ...(vectorsAvailable ? [{ name: embeddingProjectorName(embedder), feed: 'cases' as const }] : []),
    ]),
  );
  const documents = openDocumentStorage({ ...config, PUBLIC_BASE_URL: publicBaseUrl(config) }, clock);
  const research = wireResearch({
    db: database.db,
    application,
    index: searchIndex,
    embedder,
    vectors: vectorIndex,
    onVectorFailure: (err) => logger.warn({ err }, 'vector search failed; answering from the keyword index'),
    restrictions: new PostgresCaseRestrictions(database.db),
    onRestrictionCheckFailure: (err) => logger.error({ err }, 'restricted-record check failed; search page answered masked'),
    documents: documents.storage,
    documentLinks: documents.links,
    counter: stores.distinctKeys,
    clock,
    secret: keyHashSecret,
    topUpUrl: config.TOP_UP_URL,
    corpusDir: config.CORPUS_DIR,
  });

  const watchdog = { startBoundMs: config.WORKFLOW_START_BOUND_SECONDS * 1000, maxRunMs: config.WORKFLOW_RUN_MAX_SECONDS * 1000 };
  const baseUrl = publicBaseUrl(config);
  const allowlist = remoteFetchAllowlist(config, baseUrl);
  // The worker runs in this process on the embedded default; beside a real cluster, workers usually run apart.
  const runWorker = config.TEMPORAL_WORKER_IN_PROCESS ?? !config.TEMPORAL_ADDRESS;
  const payloadCodec = await payloadCodecOf(config);
  const workflowRuntime = await openWorkflowRuntime(config, {
    logger,
    codec: payloadCodec,
    codecEndpoint: new URL('/ops/temporal-codec', baseUrl).toString(),
    runWorker,
    activities: () => ({
      runs: analysis.runs,
      cases: research.cases,
      documents: documents.storage,
      allowlist,
      timeline: { jobs: timeline.jobs, records: timeline.records, clock },
      webhooks: webhooks.deliveries,
    }),
  });
  const analysis = wireAnalysis({
    db: database.db,
    application,
    cases: research.cases,
    documents: documents.storage,
    workflows: workflowRuntime.workflows,
    remoteFetchAllowlist: allowlist,
    scDocumentsBaseUrl: config.SC_DOCUMENTS_BASE_URL,
    consolidatedDeadlineSeconds: config.CONSOLIDATED_DEADLINE_SECONDS,
    clock,
    watchdog,
    onStartFailure: (runId, err) => logger.warn({ runId, err }, 'the workflow engine failed an analysis run; its credits were given back'),
    onDispatchError: (runId, err) => logger.warn({ runId, err }, 'analysis run dispatch failed; will retry'),
  });
  const dispatcher = new PeriodicTask(() => analysis.dispatcher.dispatch(), {
    intervalMs: 10_000,
    onError: (err) => logger.warn({ err }, 'analysis run dispatch failed; will retry'),
  });
  const timeline = wireTimeline({
    db: database.db,
    application,
    cases: research.cases,
    workflows: workflowRuntime.timelineWorkflows,
    livePortal: config.COURT_PORTAL_URL !== undefined,
    clock,
    ids: randomIds,
    watchdog,
    onStartFailure: (requestId, err) => logger.warn({ requestId, err }, 'the workflow engine failed a live fetch; its hold was released'),
    onDispatchError: (requestId, err) => logger.warn({ requestId, err }, 'live fetch dispatch failed; will retry'),
  });
  const timelineDispatcher = new PeriodicTask(() => timeline.dispatcher.dispatch(), {
    intervalMs: 10_000,
    onError: (err) => logger.warn({ err }, 'timeline fetch dispatch failed; will retry'),
  });
  const webhooks = wireWebhooks({
    db: database.db,
    store: application.store,
    clock,
    ids: randomIds,
    keyHashSecret,
    // A developer's receiver on this machine is http on loopback; a deployment (DATABASE_URL set) refuses both unless told.
    allowInsecureUrls: config.WEBHOOK_ALLOW_INSECURE_URLS ?? config.DATABASE_URL === undefined,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
    userAgent: `court-records-webhooks/${config.APP_VERSION}`,
    workflows: workflowRuntime.webhookWorkflows,
    onDispatchError: (deliveryId, err) => logger.warn({ deliveryId, err }, 'webhook dispatch failed; will retry'),
  });
  // Facts become delivery rows as the event log is followed (the outbox); the dispatcher starts their workflows.
  const webhookProjector = new ProjectorRunner(database.maintenance, webhooks.outbox, {
    now: () => clock.now(),
    onError: (err) => logger.warn({ err }, 'webhook projection failed; will retry'),
  });
  const webhookDispatcher = new PeriodicTask(() => webhooks.dispatcher.dispatch(), {
    intervalMs: config.WEBHOOK_DISPATCH_INTERVAL_MS,
    onError: (err) => logger.warn({ err }, 'webhook dispatch failed; will retry'),
  });
  const webhookRetention = new PeriodicTask(
    async () => {
      const endedBefore = new Date(clock.now().getTime() - config.WEBHOOK_RETENTION_DAYS * 86_400_000);
      const pruned = await webhooks.deliveries.prune(endedBefore);
      if (pruned > 0) logger.info({ pruned, endedBefore }, 'old webhook deliveries deleted');
    },
    { intervalMs: 3_600_000, onError: (err) => logger.warn({ err }, 'webhook retention sweep failed; will retry') },
  );

  const screening = wireScreening({
    db: database.db,
    application,
    parties: searchIndex,
    adjudicator: openAdjudicator(config),
    limiter: stores.limiter,
    counter: stores.distinctKeys,
    clock,
    secret: keyHashSecret,
    topUpUrl: config.TOP_UP_URL,
    upgradeUrl: config.UPGRADE_URL,
    logger,
  });

  const auditQueries = new AuditQueries(analytics.store);
  const inFlight = new InFlightRequests();
  const appDeps: AppDeps = {
    basePath: config.API_BASE_PATH,
    version: config.APP_VERSION,
    logger,
    ids: randomIds,
    health: {
      probes: [
        ...probes,
        stores.probe,
        ...workflowRuntime.probes,
        {
          name: 'analyticsStore',
          hard: false,
          backend: config.CLICKHOUSE_URL ? 'clickhouse' : 'chdb',
          check: () => analytics.store.ping(),
        },
      ],
      version: config.APP_VERSION,
      commit: config.GIT_COMMIT,
      startedAt: clock.now(),
      now: () => clock.now(),
      onProbeFailure: (name, err) => logger.warn({ dependency: name, err }, 'health probe failed'),
    },
    coverage: { service: application.coverage, corsOrigins: config.CORS_ORIGINS },
    publicRateLimit: {
      limiter: stores.limiter,
      perMinute: config.PUBLIC_RATE_LIMIT_PER_MINUTE,
      clock,
      clientAddress,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; serving the public request'),
    },
    apiKeyGate: {
      mode: 'live',
      keyMode: (key) => application.codec.modeOf(key),
      authenticator: application.authenticator,
      allowlists: application.allowlists,
      limiter: stores.limiter,
      distinctKeys: stores.distinctKeys,
      keyFailures: failedAttempts('api-key', config.FAILED_KEY_ATTEMPTS_PER_MINUTE),
      clientAddress,
      clock,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; allowing the request'),
      audit: {
        recorder: application.audit,
        basePath: config.API_BASE_PATH,
        onFailure: (err) => logger.error({ err }, 'audit event could not be written'),
      },
    },
    settings: {
      accounts: application.accounts,
      sessions: application.sessions,
      clock,
      trustProxy: config.TRUSTED_PROXIES.length > 0,
      webhooks: webhooks.endpoints,
    },
    audit: { queries: auditQueries, userOrganization: (userId) => findUserOrganization(database.db, userId) },
    usage: { credits: application.credits, queries: auditQueries, clock },
    dashboard: {
      sessions: application.sessions,
      accounts: application.accounts,
      credits: application.credits,
      ledger: (range) => exportLedger(database.db, range),
      audit: auditQueries,
      usage: new UsageByDay(analytics.store),
      webhooks: webhooks.endpoints,
      clock,
      trustProxy: config.TRUSTED_PROXIES.length > 0,
    },
    admin: {
      adminToken,
      attempts: adminTokenAttempts,
      accounts: application.accounts,
      cases: application.cases,
      credits: application.credits,
      db: database.db,
    },
    research,
    analysis: {
      cases: research.cases,
      requests: analysis.requests,
      topUpUrl: config.TOP_UP_URL,
      upgradeUrl: config.UPGRADE_URL,
      basePath: config.API_BASE_PATH,
    },
    screening,
    timeline: {
      requests: timeline.requests,
      documents: documents.storage,
      topUpUrl: config.TOP_UP_URL,
      upgradeUrl: config.UPGRADE_URL,
      basePath: config.API_BASE_PATH,
    },
    temporalCodec: {
      adminToken,
      attempts: adminTokenAttempts,
      codec: payloadCodec,
      uiOrigins: config.TEMPORAL_UI_ORIGIN,
      clock,
      trustProxy: config.TRUSTED_PROXIES.length > 0,
      // Only the UI this process started (none beside a cluster): it cannot be told to send credentials.
      localUi: workflowRuntime.uiUrl ? { origin: workflowRuntime.uiUrl, socketAddress: options.socketAddress } : undefined,
    },
    metrics: {
      metrics,
      token: config.METRICS_TOKEN,
      attempts: adminTokenAttempts,
      socketAddress: options.socketAddress,
      behindProxy: config.TRUSTED_PROXIES.length > 0,
    },
    scalarBundle: () => readFile(SCALAR_BUNDLE).catch(() => undefined),
    inFlight,
  };
  const tests = config.TEST_MODE
    ? testMode({
        config,
        logger,
        clock,
        live: appDeps,
        keyHashSecret,
        embedder,
        workflows: workflowRuntime,
        analytics: analytics.store,
        webhookDeliveries: database.db,
      })
    : undefined;
  const app = createApp({
    ...appDeps,
    testMode: tests && {
      app: () => tests.app(),
      isTestKey: (key) => application.codec.modeOf(key) === 'test',
      linkPrefix: TEST_MODE_PATH,
    },
  });

  const close = async (): Promise<void> => {
    await tests?.close();
    await application.invalidator.stop();
    await auditProjector.stop();
    await searchProjector.stop();
    await embeddingProjector.stop();
    await embedder.close?.();
    await expirySweeper.stop();
    await dispatcher.stop();
    await timelineDispatcher.stop();
    await webhookProjector.stop();
    await webhookDispatcher.stop();
    await webhookRetention.stop();
    await workflowRuntime.close();
    documents.close();
    await analytics.store.close();
    await stores.close();
    await database.close();
  };

  return {
    app,
    logger,
    startBackground: async () => {
      application.invalidator.start();
      if (analytics.ready) auditProjector.start();
      searchProjector.start();
      // A schema version that changed the documents: rebuild beside the live index, which keeps serving.
      if (searchIndexWriter instanceof MeilisearchSearchIndex && searchIndexWriter.schema.needsReindex)
        void searchProjector
          .reindex()
          .then((cases) => logger.info({ cases }, 'search index rebuilt and swapped in'))
          .catch((err: unknown) => logger.error({ err }, 'search index reindex failed; the previous index keeps serving'));
      if (vectorsAvailable) embeddingProjector.start();
      expirySweeper.start();
      workflowRuntime.startWorker();
      if (workflowRuntime.workflows.available) dispatcher.start();
      if (workflowRuntime.timelineWorkflows.available) timelineDispatcher.start();
      webhookProjector.start();
      if (workflowRuntime.webhookWorkflows.available) webhookDispatcher.start();
      webhookRetention.start();
      if (config.AUTO_INGEST && config.CORPUS_DIR) {
        await autoIngest({ db: database.maintenance, corpusDir: config.CORPUS_DIR, clock, logger });
      }
      await storeJudgmentDocuments({ db: database.maintenance, storage: documents.storage, now: () => clock.now() })
        .then((report) => logger.info({ documents: documents.storage.backend, ...report }, 'judgment documents stored'))
        .catch((err: unknown) => logger.warn({ err }, 'storing judgment documents failed'));
      await application.coverage.refresh().catch((err: unknown) => logger.warn({ err }, 'coverage warm-up failed'));
    },
    drainAndClose: async () => {
      const drained = await inFlight.drain(config.SHUTDOWN_DRAIN_SECONDS * 1000);
      const abandoned = drained ? 0 : inFlight.count;
      return { abandoned, closed: await endsWithin(close(), CLOSE_BOUND_MS) };
    },
    close,
  };
}
