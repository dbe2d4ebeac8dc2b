/**
 * Opens test mode's adapters: the same graph (graph.ts) is then built over them, so test
 * mode is the live service over other stores, not a second wiring. This is the one place
 * that says where test mode keeps what it holds and what it shares with the live service.
 *
 * Its own: a PGlite in DATA_DIR/test-mode (migrated, holding the fixture corpus
 * TEST_MODE_SOURCES read from CORPUS_DIR, indexed before the first test call), in-process
 * cache and limits, PostgreSQL keyword search and vectors over that database, documents
 * under /test-mode/ signed with a secret of its own, and deterministic work: the local
 * extractive analyser and context reader (never an LLM, whatever LLM_URL says), no remote
 * document fetch, live fetches answered by the fixture portal (the High Court fixtures).
 *
 * The live service's: the embedding model (stateless), the engine connection (its workflows
 * on test mode's queues with `test-` ids, on workers in this process), the analytics store
 * (its audit rows in a table of their own: one embedded ClickHouse per process), and the
 * live database as where its facts become webhook deliveries, to the account's test
 * endpoints, sent by the live dispatcher and workers.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { FixtureCourtPortal, PORTAL_FIXTURES } from '../adapters/court-portal/fixture-portal.ts';
import { loadOrCreateSecret } from '../adapters/crypto/local-secret.ts';
import { LocalContextAdjudicator } from '../adapters/llm/local-adjudicator.ts';
import { LocalExtractiveAnalyser } from '../adapters/llm/local-extractive-analyser.ts';
import { PromMetrics } from '../adapters/metrics/prom-metrics.ts';
import { PostgresSearchIndex } from '../adapters/postgres/search-index.ts';
import { PostgresVectorIndex, vectorStoreAvailable } from '../adapters/postgres/vector-index.ts';
import { DocumentLinkSigner } from '../adapters/storage/document-link-signer.ts';
import { LocalDocumentStorage } from '../adapters/storage/local-document-storage.ts';
import { TemporalAnalysisWorkflows } from '../adapters/temporal/analysis-workflows.ts';
import { TemporalTimelineWorkflows } from '../adapters/temporal/timeline-workflows.ts';
import { noCourtPortal, workersOn, type WorkflowRuntime } from '../compose-workflows.ts';
import { publicBaseUrl, type Config } from '../config.ts';
import { ingestCorpus } from '../corpus/ingest.ts';
import { ecourtsHcSource } from '../corpus/sources/ecourts-hc.ts';
import { scIk50Source } from '../corpus/sources/sc-ik50.ts';
import { scInAbsSource } from '../corpus/sources/sc-inabs.ts';
import { migrate } from '../db/migrate.ts';
import { openPglite } from '../db/open.ts';
import { unavailableAnalysisWorkflows } from '../ports/analysis-workflows.ts';
import type { Clock } from '../ports/clock.ts';
import { unavailableTimelineWorkflows } from '../ports/timeline-workflows.ts';
import { unavailableWebhookWorkflows } from '../ports/webhooks.ts';
import { AUDIT_TABLES } from '../projections/audit-to-clickhouse.ts';
import { SearchIndexProjector } from '../projections/search-index-projector.ts';
import { TEST_MODE_WORKFLOWS } from '../../workflows/task-queues.ts';
import { memoryStores, type Adapters } from './adapters.ts';
import type { Lifecycle } from './lifecycle.ts';

/** The fixture corpus: small, fixed files of real records (Supreme Court judgments with text, High Court case status). */
export const TEST_MODE_SOURCES = [scInAbsSource, scIk50Source, ecourtsHcSource] as const;

/** Where test mode's document links live: the dispatch in app.ts strips it and hands the rest to the test app. */
export const TEST_MODE_PATH = '/test-mode';

/** What test mode shares with the live service: nothing of it holds a customer's live records but the delivery rows it writes. */
export type SharedWithTestMode = Pick<Adapters, 'database' | 'analytics' | 'keyHashSecret' | 'adminToken' | 'embedder' | 'payloadCodec'> & {
  readonly workflowRuntime: Pick<WorkflowRuntime, 'engine'>;
};

/** As the live analyses: each attempt of an activity may take this long. */
const ACTIVITY_TIMEOUT_SECONDS = 120;

export async function openTestModeAdapters(
  config: Config,
  live: SharedWithTestMode,
  options: { readonly clock: Clock; readonly logger: Logger; readonly life: Lifecycle; readonly signal?: AbortSignal },
): Promise<Adapters> {
  const { clock, logger, life, signal } = options;
  const now = () => clock.now();
  const root = join(config.DATA_DIR, 'test-mode');
  const database = await openPglite(root, 'test mode');
  life.resource('test mode database', () => database.close());
  await migrate(database.maintenance);
  if (config.CORPUS_DIR)
    await ingestCorpus({ db: database.maintenance, corpusDir: config.CORPUS_DIR, now, sources: TEST_MODE_SOURCES, signal });
  else logger.warn('test mode: no CORPUS_DIR, so its fixture corpus is empty');
  // One PGlite connection: the request path and the projector share the index.
  const searchIndex = new PostgresSearchIndex(database.db);
  // The first test call finds the fixture corpus indexed; the graph's projector then resumes from here.
  signal?.throwIfAborted();
  await new SearchIndexProjector(database.maintenance, searchIndex, { kind: database.kind, now }).catchUp();
  const vectorsAvailable = await vectorStoreAvailable(database.db);
  if (vectorsAvailable)
    await new PostgresVectorIndex(database.maintenance, { model: live.embedder.model, dimensions: live.embedder.dimensions }).prepare();
  const base = new URL(publicBaseUrl(config));
  const signer = new DocumentLinkSigner(loadOrCreateSecret(join(root, 'secrets', 'document-url-secret')), clock);
  const storage = new LocalDocumentStorage({
    root: join(root, 'documents'),
    publicBaseUrl: `${base.origin}${TEST_MODE_PATH}${base.pathname}`,
    signer,
  });
  const workflowRuntime = testModeWorkflows(live.workflowRuntime, config, logger);
  life.resource('test mode workers', () => workflowRuntime.close());
  return {
    database,
    // Counted apart, and scraped by nobody: test calls are not the service's traffic.
    metrics: new PromMetrics(),
    stores: memoryStores(clock),
    analytics: live.analytics,
    keyHashSecret: live.keyHashSecret,
    adminToken: live.adminToken,
    searchIndex,
    searchIndexWriter: searchIndex,
    parties: searchIndex,
    embedder: live.embedder,
    vectorsAvailable,
    documents: { storage, links: signer, close: () => undefined },
    payloadCodec: live.payloadCodec,
    workflowRuntime,
    choices: {
      adjudicator: new LocalContextAdjudicator(),
      remoteFetchAllowlist: [],
      // Live fetches go to the fixture portal, which needs the corpus folder.
      livePortal: config.CORPUS_DIR !== undefined,
      auditTable: AUDIT_TABLES.test,
      webhookOutbox: { mode: 'test', into: live.database.db },
      // The fixture sources were ingested above; CORPUS_DIR's whole corpus is the live service's.
      autoIngest: false,
    },
  };
}

/**
 * Test mode's workflows on the live engine's connection, on its own queues with `test-` ids,
 * and its workers for them; none without an engine. Closing stops the workers only: the
 * connection is the live service's.
 */
function testModeWorkflows(live: Pick<WorkflowRuntime, 'engine'>, config: Config, logger: Logger): WorkflowRuntime {
  const engine = live.engine;
  const none = {
    // Test facts' deliveries are the live database's rows, dispatched and sent by the live service.
    webhookWorkflows: unavailableWebhookWorkflows,
    uiUrl: null,
    // The live app's /health answers for the engine and its workers.
    probes: [],
  };
  if (!engine)
    return {
      ...none,
      workflows: unavailableAnalysisWorkflows,
      timelineWorkflows: unavailableTimelineWorkflows,
      engine: null,
      startWorkers: () => undefined,
      close: async () => undefined,
    };
  const placement = TEST_MODE_WORKFLOWS;
  const workers = workersOn(engine, {
    queues: placement.queues,
    analyser: new LocalExtractiveAnalyser(),
    // The fixtures' records, deterministic: a live fetch runs its whole paid path for test credits.
    portal: config.CORPUS_DIR
      ? new FixtureCourtPortal(join(config.CORPUS_DIR, PORTAL_FIXTURES))
      : noCourtPortal('test mode has no CORPUS_DIR, so no fixture portal'),
    portalName: 'fixtures',
    config,
    logger,
  });
  return {
    ...none,
    engine,
    workflows: new TemporalAnalysisWorkflows(engine.runtime.client, {
      activityTimeoutSeconds: ACTIVITY_TIMEOUT_SECONDS,
      executionTimeoutSeconds: config.WORKFLOW_RUN_MAX_SECONDS,
      placement,
    }),
    // The fixture portal answers from files: what failed once would fail again, so one attempt.
    timelineWorkflows: new TemporalTimelineWorkflows(engine.runtime.client, {
      activityTimeoutSeconds: ACTIVITY_TIMEOUT_SECONDS,
      maximumAttempts: 1,
      executionTimeoutSeconds: config.WORKFLOW_RUN_MAX_SECONDS,
      placement,
    }),
    startWorkers: (adapters) => workers.start(adapters),
    close: async () => {
      if (!(await workers.stop())) logger.warn('a test mode worker did not stop in its bound: closing under it');
    },
  };
}
