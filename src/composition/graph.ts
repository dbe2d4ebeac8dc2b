/**
 * The service's object graph, built once over opened adapters with no IO: the application
 * services, every HTTP dependency, the background tasks in start order, the workers'
 * activity adapters and the start-up work. The API process builds it over adapters.ts's
 * adapters, and what it returns is started, served and stopped by compose.ts; the test
 * harness (test/support/app.ts) builds it over stand-ins and serves it without starting it.
 */
import { readFile } from 'node:fs/promises';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { wireAnalysis, wireApplication, wireResearch, wireScreening, wireTimeline, wireWebhooks } from '../wiring.ts';
import { PeriodicTask } from '../scheduling/periodic-task.ts';
import { FailedAttemptThrottle } from '../application/access/failed-attempt-throttle.ts';
import { PostgresVectorIndex } from '../adapters/postgres/vector-index.ts';
import { PostgresCaseRestrictions } from '../adapters/postgres/case-restrictions.ts';
import { EmbeddingProjector } from '../projections/embedding-projector.ts';
import { CreditExpirySweeper, type SweepReport } from '../application/credits/expiry-sweeper.ts';
import { storeJudgmentDocuments } from '../corpus/store-documents.ts';
import { SearchIndexProjector } from '../projections/search-index-projector.ts';
import { MeilisearchSearchIndex } from '../adapters/meilisearch/search-index.ts';
import { findUserOrganization } from '../adapters/postgres/key-lookup.ts';
import { AuditQueries } from '../application/audit/audit-queries.ts';
import { UsageByDay } from '../application/audit/usage-by-day.ts';
import { exportLedger } from '../application/credits/ledger-export.ts';
import { closeMonth } from '../application/credits/month-close.ts';
import { renderStatementPdf } from '../adapters/pdf/render-statement-pdf.ts';
import { auditToClickHouse } from '../projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../projections/projector.ts';
import { projectorLag } from '../projections/projector-lag.ts';
import { WEBHOOK_PROJECTOR, webhookOutbox } from '../application/webhooks/webhook-outbox.ts';
import { searchIndexProjectorName } from '../projections/search-index-projector.ts';
import { embeddingProjectorName } from '../projections/embedding-projector.ts';
import { clientAddressResolver } from '../http/client-address.ts';
import { meilisearchProbe } from '../adapters/meilisearch/probe.ts';
import { postgresProbes } from '../adapters/postgres/probes.ts';
import type { Config } from '../config.ts';
import { autoIngest } from '../corpus/auto-ingest.ts';
import { underSessionLock } from '../db/session-lock.ts';
import { type AppDeps } from '../http/app.ts';
import { InFlightRequests } from '../http/middleware/in-flight.ts';
import type { AppEnv } from '../http/env.ts';
import type { Clock, IdGenerator } from '../ports/clock.ts';
import type { Adapters } from './adapters.ts';
import { liveChoices } from './mode-choices.ts';
import { watchdogBounds, webhookFairness, webhookSending } from './settings.ts';
import type { BackgroundTask } from './lifecycle.ts';
import type { ActivityAdapters } from '../compose-workflows.ts';
import type { AnalysisWiring, Application, TimelineWiring, WebhookWiring } from '../wiring.ts';
import type { DependencyProbe } from '../ports/health.ts';

export interface GraphSettings {
  readonly config: Config;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly socketAddress: (c: Context<AppEnv>) => string;
  /** The window failed attempts at a secret are counted in (default a minute; a test waits a short one out). */
  readonly failedAttemptWindowMs?: number;
  /** Adjusts the health probes derived from the adapters (a test swaps in failing ones, or drops a stand-in's). */
  readonly probes?: (derived: DependencyProbe[]) => DependencyProbe[];
}

export interface Graph {
  readonly application: Application;
  /** Everything the HTTP app needs but test mode. */
  readonly appDeps: AppDeps;
  readonly inFlight: InFlightRequests;
  /** Background tasks in start order (stopped in reverse). */
  readonly tasks: readonly BackgroundTask[];
  /** The services this process's workers act on, the same objects the dispatchers use. */
  readonly activities: ActivityAdapters;
  /** The services behind the dispatchers, for a test that drives them by hand. */
  readonly analysis: AnalysisWiring;
  readonly timeline: TimelineWiring;
  readonly webhooks: WebhookWiring;
  /** Whether this process runs the workers: on the embedded default, yes; beside a real cluster, usually apart. */
  readonly runWorker: boolean;
  /** Start-up work once the listener is up: first-start ingest, a reindex, judgment documents, coverage warm-up; `signal` ends it between steps. */
  warmUp(signal?: AbortSignal): Promise<void>;
}

const SCALAR_BUNDLE = new URL('../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url);

/**
 * How often each instance offers to sweep credit expiries and lapsed holds. Only one sweeps at
 * a time (CREDIT_SWEEP_LOCK); a sweeper killed mid-sweep is followed by another instance's
 * turn within this, and a hold that lapsed waits at most this long to come back.
 */
const CREDIT_SWEEP_INTERVAL_MS = 30_000;
/**
 * The session advisory lock one sweeping instance holds (db/session-lock.ts): it dies with its
 * connection. Taken on the request pool, not the maintenance pool, whose connections the
 * projectors' locks and batches already fill; a lock's connection runs no statement while held.
 */
const CREDIT_SWEEP_LOCK = 'credit-expiry-sweep';

/** Held by the instance running the first-start ingest; it dies with its connection, and the store is then no longer empty or is ingested by the next start. */
const FIRST_START_INGEST_LOCK = 'first-start-ingest';

const named = (name: string, task: Omit<BackgroundTask, 'name'>): BackgroundTask => ({
  name,
  start: () => task.start(),
  stop: () => task.stop(),
});

export function buildGraph(adapters: Adapters, settings: GraphSettings): Graph {
  const { config, clock, ids, logger } = settings;
  const {
    database,
    metrics,
    stores,
    analytics,
    keyHashSecret,
    adminToken,
    searchIndex,
    searchIndexWriter,
    parties,
    embedder,
    vectorsAvailable,
    documents,
    payloadCodec,
    workflowRuntime,
  } = adapters;
  const choices = adapters.choices ?? liveChoices(config);
  const application = wireApplication({
    db: database.db,
    cache: stores.cache,
    clock,
    ids,
    logger,
    keyPrefixes: config.API_KEY_PREFIXES,
    keyHashSecret,
    entitledTiers: config.API_PLANS,
    keyCachePollMs: config.KEY_CACHE_POLL_MS,
    limiter: stores.limiter,
    loginHashes: { concurrency: config.LOGIN_HASH_CONCURRENCY, queue: config.LOGIN_HASH_QUEUE },
    longestCallMs: config.CONSOLIDATED_DEADLINE_SECONDS * 1000,
    metrics,
    ...(adapters.readCoverage ? { readCoverage: adapters.readCoverage } : {}),
  });
  const expirySweeper = new CreditExpirySweeper(application.credits, {
    intervalMs: CREDIT_SWEEP_INTERVAL_MS,
    oneAtATime: (sweep) => underSessionLock<SweepReport | 'busy'>(database.db, database.kind, CREDIT_SWEEP_LOCK, false, sweep, 'busy'),
    onSwept: (report) => logger.info(report, 'expired credits recorded, lapsed holds released'),
    onError: (err) => logger.warn({ err }, 'credit expiry sweep failed; will retry'),
  });
  const clientAddress = clientAddressResolver(settings.socketAddress, config.TRUSTED_PROXIES);
  // Failed attempts at a secret, per client address per minute, counted in the shared store.
  const failedAttempts = (scope: string, maxFailures: number) =>
    new FailedAttemptThrottle({
      limiter: stores.limiter,
      clock,
      scope,
      maxFailures,
      windowMs: settings.failedAttemptWindowMs ?? 60_000,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; failed attempt not counted'),
      onBlocked: (source, until) =>
        logger.warn({ scope, source, until }, 'too many failed attempts: address refused until the window ends'),
    });
  const adminTokenAttempts = { failures: failedAttempts('admin-token', config.FAILED_ADMIN_TOKEN_ATTEMPTS_PER_MINUTE), clientAddress };
  const probes = postgresProbes(database.db, database.kind).map((p) =>
    p.name === 'searchIndex' && config.MEILI_URL ? meilisearchProbe(config.MEILI_URL, config.MEILI_API_KEY) : p,
  );

  const auditProjection = auditToClickHouse(analytics.store, choices.auditTable);
  const auditProjector = new ProjectorRunner(database.maintenance, application.store, auditProjection, {
    now: () => clock.now(),
    // ClickHouse wants few large inserts: each insert writes a part, whatever its size.
    batchSize: 5_000,
    idleMs: 250,
    onError: (err) => logger.warn({ err }, 'audit projection to ClickHouse failed; will retry'),
  });

  const searchProjector = new SearchIndexProjector(database.maintenance, searchIndexWriter, {
    kind: database.kind,
    now: () => clock.now(),
    onError: (err) => logger.warn({ err }, 'search index projection failed; will retry'),
  });
  const vectorIndex = adapters.vectors ?? new PostgresVectorIndex(database.db, { model: embedder.model, dimensions: embedder.dimensions });
  const embeddingProjector = new EmbeddingProjector(database.maintenance, embedder, {
    kind: database.kind,
    now: () => clock.now(),
    onProgress: (progress) => logger.debug(progress, 'embedding projector'),
    onError: (err) => logger.warn({ err }, 'embedding projection failed; will retry'),
  });
  // Reported by the process that runs the projectors, so a scrape of every process sums to one lag per projector.
  const projectorLagGauge: BackgroundTask = {
    name: 'projector lag gauge',
    start: () =>
      metrics.observeProjectorLag(() =>
        projectorLag(database.db, application.store, [
          { name: auditProjection.name, feed: 'events' },
          { name: WEBHOOK_PROJECTOR, feed: 'events' },
          { name: searchIndexProjectorName(searchIndexWriter), feed: 'cases' },
          ...(vectorsAvailable ? [{ name: embeddingProjectorName(embedder), feed: 'cases' as const }] : []),
        ]),
      ),
    stop: async () => undefined,
  };
  const research = wireResearch({
    db: database.db,
    application,
    index: searchIndex,
    embedder,
    vectors: vectorIndex,
    onVectorFailure: (err) => logger.warn({ err }, 'vector search failed; answering from the keyword index'),
    restrictions: adapters.restrictions ?? new PostgresCaseRestrictions(database.db),
    onRestrictionCheckFailure: (err) => logger.error({ err }, 'restricted-record check failed; search page answered masked'),
    documents: documents.storage,
    documentLinks: documents.links,
    counter: stores.distinctKeys,
    clock,
    secret: keyHashSecret,
    topUpUrl: config.TOP_UP_URL,
    corpusDir: config.CORPUS_DIR,
  });

  const watchdog = watchdogBounds(config);
  const allowlist = choices.remoteFetchAllowlist;
  // The worker runs in this process on the embedded default; beside a real cluster, workers usually run apart.
  const runWorker = config.TEMPORAL_WORKER_IN_PROCESS ?? !config.TEMPORAL_ADDRESS;
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
    livePortal: choices.livePortal,
    clock,
    ids,
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
    ids,
    keyHashSecret,
    ...webhookSending(config),
    resolver: adapters.resolver,
    workflows: workflowRuntime.webhookWorkflows,
    fairness: webhookFairness(config),
    onDispatchError: (deliveryId, err) => logger.warn({ deliveryId, err }, 'webhook dispatch failed; will retry'),
    eventRetentionDays: config.EVENT_RETENTION_DAYS,
  });
  // Facts become delivery rows as the event log is followed (the outbox); the dispatcher starts their workflows.
  const webhookProjector = new ProjectorRunner(
    database.maintenance,
    application.store,
    webhookOutbox(choices.webhookOutbox, webhookFairness(config)),
    {
      now: () => clock.now(),
      onError: (err) => logger.warn({ err }, 'webhook projection failed; will retry'),
    },
  );
  const webhookDispatcher = new PeriodicTask(() => webhooks.dispatcher.dispatch(), {
    intervalMs: config.WEBHOOK_DISPATCH_INTERVAL_MS,
    onError: (err) => logger.warn({ err }, 'webhook dispatch failed; will retry'),
  });
  const webhookRetention = new PeriodicTask(
    async () => {
      const endedBefore = new Date(clock.now().getTime() - config.WEBHOOK_RETENTION_DAYS * 86_400_000);
      const pruned = await webhooks.deliveries.prune(endedBefore);
      if (pruned > 0) logger.info({ pruned, endedBefore }, 'old webhook deliveries deleted');
      const events = await webhooks.events.sweep();
      if (events.pruned > 0) logger.info({ events: events.pruned, recordedBefore: events.before }, 'old events deleted');
    },
    { intervalMs: 3_600_000, onError: (err) => logger.warn({ err }, 'webhook retention sweep failed; will retry') },
  );

  const screening = wireScreening({
    db: database.db,
    application,
    parties,
    adjudicator: choices.adjudicator,
    limiter: stores.limiter,
    counter: stores.distinctKeys,
    clock,
    secret: keyHashSecret,
    topUpUrl: config.TOP_UP_URL,
    upgradeUrl: config.UPGRADE_URL,
    logger,
  });

  const auditQueries = new AuditQueries(analytics.store, choices.auditTable);
  const inFlight = new InFlightRequests();
  const derivedProbes: DependencyProbe[] = [
    ...probes,
    stores.probe,
    ...workflowRuntime.probes,
    {
      name: 'analyticsStore',
      hard: false,
      backend: config.CLICKHOUSE_URL ? 'clickhouse' : 'chdb',
      check: () => analytics.store.ping(),
    },
  ];
  const appDeps: AppDeps = {
    basePath: config.API_BASE_PATH,
    version: config.APP_VERSION,
    logger,
    ids,
    health: {
      probes: settings.probes ? settings.probes(derivedProbes) : derivedProbes,
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
      clientAddress,
    },
    audit: { queries: auditQueries, userOrganization: (userId) => findUserOrganization(database.db, userId) },
    usage: { credits: application.credits, queries: auditQueries, clock },
    dashboard: {
      sessions: application.sessions,
      accounts: application.accounts,
      credits: application.credits,
      ledger: (range) => exportLedger(application.store, range),
      statement: (window, accountId) => closeMonth({ db: database.db, events: application.store }, window, accountId),
      statementPdf: renderStatementPdf,
      audit: auditQueries,
      usage: new UsageByDay(analytics.store),
      webhooks: webhooks.endpoints,
      clock,
      trustProxy: config.TRUSTED_PROXIES.length > 0,
      clientAddress,
    },
    admin: {
      adminToken,
      attempts: adminTokenAttempts,
      accounts: application.accounts,
      cases: application.cases,
      credits: application.credits,
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
      localUi: workflowRuntime.uiUrl ? { origin: workflowRuntime.uiUrl, socketAddress: settings.socketAddress } : undefined,
    },
    metrics: {
      metrics,
      token: config.METRICS_TOKEN,
      attempts: adminTokenAttempts,
      socketAddress: settings.socketAddress,
      behindProxy: config.TRUSTED_PROXIES.length > 0,
    },
    events: { events: webhooks.events, mode: 'live' },
    webhookApi: { webhooks: webhooks.endpoints, mode: 'live' },
    scalarBundle: () => readFile(SCALAR_BUNDLE).catch(() => undefined),
    inFlight,
  };
  const tasks = [
    projectorLagGauge,
    named('access cache invalidator', application.invalidator),
    ...(analytics.ready ? [named('audit projector', auditProjector)] : []),
    named('search index projector', searchProjector),
    ...(vectorsAvailable ? [named('embedding projector', embeddingProjector)] : []),
    named('credit expiry sweeper', expirySweeper),
    ...(workflowRuntime.workflows.available ? [named('analysis dispatcher', dispatcher)] : []),
    ...(workflowRuntime.timelineWorkflows.available ? [named('timeline dispatcher', timelineDispatcher)] : []),
    named('webhook projector', webhookProjector),
    ...(workflowRuntime.webhookWorkflows.available ? [named('webhook dispatcher', webhookDispatcher)] : []),
    named('webhook retention', webhookRetention),
  ];
  return {
    application,
    appDeps,
    inFlight,
    tasks,
    activities: {
      runs: analysis.runs,
      cases: research.cases,
      documents: documents.storage,
      allowlist,
      timeline: { jobs: timeline.jobs, records: timeline.records, clock },
      webhooks: webhooks.deliveries,
    },
    analysis,
    timeline,
    webhooks,
    runWorker,
    warmUp: async (signal) => {
      // A schema version that changed the documents: rebuild beside the live index, which keeps serving.
      if (searchIndexWriter instanceof MeilisearchSearchIndex && searchIndexWriter.schema.needsReindex)
        void searchProjector
          .reindex()
          .then((cases) => logger.info({ cases }, 'search index rebuilt and swapped in'))
          .catch((err: unknown) => logger.error({ err }, 'search index reindex failed; the previous index keeps serving'));
      const corpusDir = config.CORPUS_DIR;
      // Instances starting together on an empty store: one ingests, the others skip (they find it held).
      if (choices.autoIngest && corpusDir)
        await underSessionLock(
          database.db,
          database.kind,
          FIRST_START_INGEST_LOCK,
          false,
          async () => {
            await autoIngest({ db: database.maintenance, corpusDir, clock, logger, signal });
          },
          undefined,
        );
      signal?.throwIfAborted();
      await storeJudgmentDocuments({ db: database.maintenance, storage: documents.storage, now: () => clock.now(), signal })
        .then((report) => logger.info({ documents: documents.storage.backend, ...report }, 'judgment documents stored'))
        .catch((err: unknown) => {
          if (signal?.aborted) throw err;
          logger.warn({ err }, 'storing judgment documents failed');
        });
      await application.coverage.refresh().catch((err: unknown) => logger.warn({ err }, 'coverage warm-up failed'));
    },
  };
}
