/**
 * Test mode, like Stripe's: keys with the test prefix (crk_test) reach every route of the
 * API, answered by a second app built from the same wiring over stores of its own, so a
 * test key can never read or write a live record and never spends a live credit.
 *
 * - Its database is a PGlite in DATA_DIR/test-mode, holding a fixed fixture corpus
 *   (TEST_MODE_SOURCES, read from CORPUS_DIR at run time), its own credit ledger, audit
 *   trail, idempotency records, analyses, timeline jobs and litigation checks; its audit
 *   rows go to their own analytics table. Each billing
 *   account's test ledger opens with TEST_MODE_CREDITS test credits, granted on its first
 *   test call; they are worth nothing and never touch the live ledger.
 * - Deterministic by construction: the local extractive analyser and the local context
 *   reader (never an LLM, whatever LLM_URL says), no remote document fetch, and live fetches
 *   answered by the fixture portal (the High Court fixtures' records) instead of a court's.
 * - Workflows run the same code on test mode's own task queues with `test-` workflow ids,
 *   on workers in this process bound to the test stores.
 * - Document links point under /test-mode/ and are signed with a secret of its own.
 * - Its facts become webhook deliveries to the account's test endpoints (webhook-outbox.ts).
 *
 * The keys themselves, their accounts and their standing stay live: a test key is a key of
 * a live account, authenticated, limited and revocable like any other. Built on the first
 * test call (a few seconds), so a service nobody tests against pays nothing for it.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadOrCreateSecret } from './adapters/crypto/local-secret.ts';
import { LocalExtractiveAnalyser } from './adapters/llm/local-extractive-analyser.ts';
import { LocalContextAdjudicator } from './adapters/llm/local-adjudicator.ts';
import { MemoryCache } from './adapters/memory/cache.ts';
import { MemoryDistinctCounter } from './adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from './adapters/memory/rate-limiter.ts';
import { PostgresCaseRestrictions } from './adapters/postgres/case-restrictions.ts';
import { PostgresSearchIndex } from './adapters/postgres/search-index.ts';
import { PostgresVectorIndex } from './adapters/postgres/vector-index.ts';
import { DocumentLinkSigner } from './adapters/storage/document-link-signer.ts';
import { LocalDocumentStorage } from './adapters/storage/local-document-storage.ts';
import { TemporalAnalysisWorkflows } from './adapters/temporal/analysis-workflows.ts';
import { TemporalTimelineWorkflows } from './adapters/temporal/timeline-workflows.ts';
import type { Worker } from '@temporalio/worker';
import { bundleWorkflows, createWorker, stopWorker } from './adapters/temporal/workers.ts';
import { AuditQueries } from './application/audit/audit-queries.ts';
import { billingAccountOf, type CreditsService } from './application/credits/credits-service.ts';
import { PeriodicTask } from './scheduling/periodic-task.ts';
import { noCourtPortal, type WorkflowRuntime } from './compose-workflows.ts';
import type { Config } from './config.ts';
import { publicBaseUrl } from './config.ts';
import { ingestCorpus } from './corpus/ingest.ts';
import { ecourtsHcSource } from './corpus/sources/ecourts-hc.ts';
import { scIk50Source } from './corpus/sources/sc-ik50.ts';
import { scInAbsSource } from './corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments } from './corpus/store-documents.ts';
import { migrate } from './db/migrate.ts';
import { openPglite, type OpenedDatabase } from './db/open.ts';
import { createApp, type AppDeps } from './http/app.ts';
import type { App } from './http/app-types.ts';
import { AUDIT_TABLES, auditToClickHouse } from './projections/audit-to-clickhouse.ts';
import { EmbeddingProjector } from './projections/embedding-projector.ts';
import { ProjectorRunner } from './projections/projector.ts';
import { SearchIndexProjector } from './projections/search-index-projector.ts';
import { randomIds, type Clock } from './ports/clock.ts';
import type { AnalyticsStore } from './ports/analytics.ts';
import type { Embedder } from './ports/embedder.ts';
import { unavailableAnalysisWorkflows, type AnalysisWorkflows } from './ports/analysis-workflows.ts';
import { unavailableTimelineWorkflows, type TimelineWorkflows } from './ports/timeline-workflows.ts';
import { TEST_MODE_WORKFLOWS } from '../workflows/task-queues.ts';
import { createAnalysisActivities } from '../workflows/activities/analysis-activities.ts';
import { createTimelineActivities } from '../workflows/activities/timeline-activities.ts';
import { pdfText } from './adapters/pdf/pdf-text.ts';
import { webhookOutbox } from './application/webhooks/webhook-outbox.ts';
import { FixtureCourtPortal, PORTAL_FIXTURES } from './adapters/court-portal/fixture-portal.ts';
import type { Db } from './db/database.ts';
import { HttpRemoteDocuments } from './adapters/http/remote-document-fetcher.ts';
import { wireAnalysis, wireApplication, wireResearch, wireScreening, wireTimeline } from './wiring.ts';
import type { Principal } from './application/access/key-authenticator.ts';

/** The fixture corpus: small, fixed files of real records (Supreme Court judgments with text, High Court case status). */
export const TEST_MODE_SOURCES = [scInAbsSource, scIk50Source, ecourtsHcSource] as const;

/** What each billing account's test ledger opens with. */
export const TEST_MODE_CREDITS = 1_000_000;

/** Where test mode's document links live: the dispatch in app.ts strips it and hands the rest to the test app. */
export const TEST_MODE_PATH = '/test-mode';

/** As the live worker: each attempt of an analysis activity may take this long. */
const ACTIVITY_TIMEOUT_SECONDS = 120;

export interface TestModeOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The live app's deps: test mode serves the same routes, with its own stores in place of every live one. */
  readonly live: AppDeps;
  readonly keyHashSecret: string;
  /** The live embedding model (stateless): test mode embeds its fixture corpus with it. */
  readonly embedder: Embedder;
  /** The live engine connection: test mode's workflows run on their own queues over it. */
  readonly workflows: WorkflowRuntime;
  /** The live analytics store: test mode's audit rows go to a table of their own in it (one embedded ClickHouse per process). */
  readonly analytics: AnalyticsStore;
  /** The live database: test-mode facts become deliveries there, to the account's test endpoints, sent like live ones. */
  readonly webhookDeliveries: Db;
}

export interface TestMode {
  /** The app that answers test keys, built on the first call. */
  app(): Promise<App>;
  close(): Promise<void>;
}

/** Grants each billing account its opening test balance once: this process owns the test ledger. */
class TestBalances {
  readonly #opened = new Map<string, Promise<void>>();

  constructor(private readonly credits: CreditsService) {}

  ensure(principal: Principal): Promise<void> {
    const account = billingAccountOf(principal);
    let opened = this.#opened.get(account);
    if (!opened) {
      opened = this.#open(account);
      this.#opened.set(account, opened);
      // A failed grant is retried by the next call rather than remembered.
      opened.catch(() => this.#opened.delete(account));
    }
    return opened;
  }

  async #open(account: string): Promise<void> {
    const { balance, reserved } = await this.credits.balance(account);
    // A balance or hold means this account's test ledger was opened before this process started.
    if (balance !== 0 || reserved !== 0) return;
    const granted = await this.credits.grant(account, { amount: TEST_MODE_CREDITS, source: 'grant', note: 'test mode opening balance' });
    if (!granted.ok) throw new Error(`test mode balance not opened: ${granted.error.tag}`);
  }
}

interface Built {
  readonly app: App;
  readonly close: () => Promise<void>;
}

export function testMode(options: TestModeOptions): TestMode {
  let building: Promise<Built> | undefined;
  return {
    app: async () => {
      building ??= build(options).catch((err: unknown) => {
        // The next test call tries again; until then each one answers 502.
        building = undefined;
        throw err;
      });
      return (await building).app;
    },
    close: async () => {
      const built = await building?.catch(() => undefined);
      await built?.close();
    },
  };
}

async function build(options: TestModeOptions): Promise<Built> {
  const { config, logger, clock, live } = options;
  const started = Date.now();
  const dir = join(config.DATA_DIR, 'test-mode');
  const database = await openPglite(dir, 'test mode');
  const closers: (() => Promise<void>)[] = [() => database.close()];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch((err: unknown) => logger.warn({ err }, 'test mode: closing failed'));
  };
  try {
    const wired = await wire(options, database, dir, closers);
    logger.info({ ms: Date.now() - started }, 'test mode ready');
    return { app: wired, close };
  } catch (err) {
    await close();
    throw err;
  }

  async function wire(o: TestModeOptions, db: OpenedDatabase, root: string, onClose: (() => Promise<void>)[]): Promise<App> {
    await migrate(db.maintenance);
    if (config.CORPUS_DIR)
      await ingestCorpus({ db: db.maintenance, corpusDir: config.CORPUS_DIR, now: () => clock.now(), sources: TEST_MODE_SOURCES });
    else logger.warn('test mode: no CORPUS_DIR, so its fixture corpus is empty');

    const application = wireApplication({
      db: db.db,
      cache: new MemoryCache(clock),
      clock,
      ids: randomIds,
      logger,
      keyPrefixes: config.API_KEY_PREFIXES,
      keyHashSecret: o.keyHashSecret,
      entitledTiers: config.API_PLANS,
      keyCachePollMs: config.KEY_CACHE_POLL_MS,
      longestCallMs: config.CONSOLIDATED_DEADLINE_SECONDS * 1000,
    });
    const index = new PostgresSearchIndex(db.db);
    await new SearchIndexProjector(db.maintenance, index, { kind: db.kind, now: () => clock.now() }).catchUp();
    const vectors = new PostgresVectorIndex(db.db, { model: o.embedder.model, dimensions: o.embedder.dimensions });
    await vectors.prepare();
    // Semantic search answers from the keyword index until the fixture corpus is embedded.
    const embeddings = new EmbeddingProjector(db.maintenance, o.embedder, {
      kind: db.kind,
      now: () => clock.now(),
      onError: (err) => logger.warn({ err }, 'test mode: embedding projection failed; will retry'),
    });
    embeddings.start();
    onClose.push(() => embeddings.stop());

    const base = new URL(publicBaseUrl(config));
    const signer = new DocumentLinkSigner(loadOrCreateSecret(join(root, 'secrets', 'document-url-secret')), clock);
    const documents = new LocalDocumentStorage({
      root: join(root, 'documents'),
      publicBaseUrl: `${base.origin}${TEST_MODE_PATH}${base.pathname}`,
      signer,
    });
    await storeJudgmentDocuments({ db: db.maintenance, storage: documents, now: () => clock.now() });

    const research = wireResearch({
      db: db.db,
      application,
      index,
      embedder: o.embedder,
      vectors,
      onVectorFailure: (err) => logger.warn({ err }, 'test mode: vector search failed; answering from the keyword index'),
      restrictions: new PostgresCaseRestrictions(db.db),
      onRestrictionCheckFailure: (err) => logger.error({ err }, 'test mode: restricted-record check failed'),
      documents,
      documentLinks: signer,
      counter: new MemoryDistinctCounter(clock),
      clock,
      secret: o.keyHashSecret,
      topUpUrl: config.TOP_UP_URL,
      corpusDir: config.CORPUS_DIR,
    });

    const engines = await testWorkflows(o, onClose);
    const watchdog = { startBoundMs: config.WORKFLOW_START_BOUND_SECONDS * 1000, maxRunMs: config.WORKFLOW_RUN_MAX_SECONDS * 1000 };
    const analysis = wireAnalysis({
      db: db.db,
      application,
      cases: research.cases,
      documents,
      workflows: engines.analysis,
      remoteFetchAllowlist: [],
      scDocumentsBaseUrl: config.SC_DOCUMENTS_BASE_URL,
      consolidatedDeadlineSeconds: config.CONSOLIDATED_DEADLINE_SECONDS,
      clock,
      watchdog,
      onStartFailure: (runId, err) => logger.warn({ runId, err }, 'test mode: an analysis run failed to start; refunded'),
      onDispatchError: (runId, err) => logger.warn({ runId, err }, 'test mode: analysis dispatch failed; will retry'),
    });
    const timeline = wireTimeline({
      db: db.db,
      application,
      cases: research.cases,
      workflows: engines.timeline,
      // Live fetches go to the fixture portal, which needs the corpus folder.
      livePortal: config.CORPUS_DIR !== undefined,
      clock,
      ids: randomIds,
      watchdog,
      onStartFailure: (requestId, err) => logger.warn({ requestId, err }, 'test mode: a live fetch failed to start; released'),
      onDispatchError: (requestId, err) => logger.warn({ requestId, err }, 'test mode: timeline dispatch failed; will retry'),
    });
    for (const dispatch of [() => analysis.dispatcher.dispatch(), () => timeline.dispatcher.dispatch()]) {
      const task = new PeriodicTask(dispatch, {
        intervalMs: 10_000,
        onError: (err) => logger.warn({ err }, 'test mode: dispatch failed; will retry'),
      });
      task.start();
      onClose.push(() => task.stop());
    }
    engines.start({ runs: analysis.runs, cases: research.cases, documents, timeline });

    const auditProjector = new ProjectorRunner(db.maintenance, application.store, auditToClickHouse(o.analytics, AUDIT_TABLES.test), {
      now: () => clock.now(),
      idleMs: 250,
      onError: (err) => logger.warn({ err }, 'test mode: audit projection failed; will retry'),
    });
    auditProjector.start();
    onClose.push(() => auditProjector.stop());
    const webhookProjector = new ProjectorRunner(
      db.maintenance,
      application.store,
      webhookOutbox({ mode: 'test', into: o.webhookDeliveries }),
      {
        now: () => clock.now(),
        idleMs: 250,
        onError: (err) => logger.warn({ err }, 'test mode: webhook projection failed; will retry'),
      },
    );
    webhookProjector.start();
    onClose.push(() => webhookProjector.stop());
    const auditQueries = new AuditQueries(o.analytics, AUDIT_TABLES.test);
    const balances = new TestBalances(application.credits);

    return createApp({
      ...live,
      coverage: { ...live.coverage, service: application.coverage },
      apiKeyGate: {
        ...live.apiKeyGate,
        mode: 'test',
        onAdmitted: (principal) => balances.ensure(principal),
        audit: { ...live.apiKeyGate.audit, recorder: application.audit },
      },
      audit: { ...live.audit, queries: auditQueries },
      usage: { credits: application.credits, queries: auditQueries, clock },
      research,
      analysis: { ...live.analysis, cases: research.cases, requests: analysis.requests },
      screening: wireScreening({
        db: db.db,
        application,
        parties: index,
        adjudicator: new LocalContextAdjudicator(),
        limiter: new MemoryRateLimiter(clock),
        counter: new MemoryDistinctCounter(clock),
        clock,
        secret: o.keyHashSecret,
        topUpUrl: config.TOP_UP_URL,
        upgradeUrl: config.UPGRADE_URL,
        logger,
      }),
      timeline: { ...live.timeline, requests: timeline.requests, documents },
      testMode: undefined,
    });
  }
}

interface TestWorkflowEngines {
  readonly analysis: AnalysisWorkflows;
  readonly timeline: TimelineWorkflows;
  start(adapters: {
    runs: Parameters<typeof createAnalysisActivities>[0]['runs'];
    cases: Parameters<typeof createAnalysisActivities>[0]['cases'];
    documents: Parameters<typeof createAnalysisActivities>[0]['documents'];
    timeline: {
      jobs: Parameters<typeof createTimelineActivities>[0]['jobs'];
      records: Parameters<typeof createTimelineActivities>[0]['records'];
    };
  }): void;
}

/** Test mode's workflows and their in-process workers, on the live engine's connection; none without an engine. */
async function testWorkflows(o: TestModeOptions, onClose: (() => Promise<void>)[]): Promise<TestWorkflowEngines> {
  const engine = o.workflows.engine;
  if (!engine) return { analysis: unavailableAnalysisWorkflows, timeline: unavailableTimelineWorkflows, start: () => undefined };
  const { runtime, dataConverter } = engine;
  const placement = TEST_MODE_WORKFLOWS;
  return {
    analysis: new TemporalAnalysisWorkflows(runtime.client, {
      activityTimeoutSeconds: ACTIVITY_TIMEOUT_SECONDS,
      executionTimeoutSeconds: o.config.WORKFLOW_RUN_MAX_SECONDS,
      placement,
    }),
    // No portal in test mode: a live fetch is refused before it starts, so these run only stored-record jobs.
    timeline: new TemporalTimelineWorkflows(runtime.client, {
      activityTimeoutSeconds: ACTIVITY_TIMEOUT_SECONDS,
      maximumAttempts: 1,
      executionTimeoutSeconds: o.config.WORKFLOW_RUN_MAX_SECONDS,
      placement,
    }),
    start: (adapters) => {
      const analysisActivities = createAnalysisActivities({
        runs: adapters.runs,
        cases: adapters.cases,
        documents: adapters.documents,
        analyser: new LocalExtractiveAnalyser(),
        // Never reached: test mode allows no remote host, so no run asks for a remote document.
        remote: new HttpRemoteDocuments({ allowlist: [], timeoutMs: 1_000, maxBytes: 1 }),
        documentText: pdfText,
        scDocumentsBaseUrl: o.config.SC_DOCUMENTS_BASE_URL,
      });
      const timelineActivities = createTimelineActivities({
        jobs: adapters.timeline.jobs,
        records: adapters.timeline.records,
        // The fixtures' records, deterministic: a live fetch runs its whole paid path for test credits.
        portal: o.config.CORPUS_DIR
          ? new FixtureCourtPortal(join(o.config.CORPUS_DIR, PORTAL_FIXTURES))
          : noCourtPortal('test mode has no CORPUS_DIR, so no fixture portal'),
        documents: adapters.documents,
        clock: o.clock,
      });
      const bundle = bundleWorkflows();
      const started: { worker: Worker; running: Promise<unknown> }[] = [];
      for (const [queue, activities] of [
        [placement.queues.analysis, analysisActivities],
        [placement.queues.timeline, timelineActivities],
      ] as const) {
        const running: Promise<unknown> = bundle
          .then((code) => createWorker(runtime, queue, activities, { dataConverter, bundle: code }))
          .then((worker) => {
            started.push({ worker, running });
            o.logger.info({ taskQueue: queue }, 'test mode worker running');
            return worker.run();
          })
          .catch((err: unknown) => o.logger.error({ err, taskQueue: queue }, 'test mode worker stopped'));
      }
      // Side by side: each may wait out its bound on an engine that does not answer.
      onClose.push(async () => {
        const stopped = await Promise.all(started.map(({ worker, running }) => stopWorker(worker, running)));
        if (stopped.includes(false)) o.logger.warn('a test mode worker did not stop in its bound: closing under it');
      });
    },
  };
}
