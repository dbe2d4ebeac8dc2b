/**
 * Opens test mode's adapters: the same graph (graph.ts) is then built over them, so test
 * mode is the live service over other stores, not a second wiring. This is the one place
 * that says where test mode keeps what it holds and what it shares with the live service.
 *
 * Its own stores follow the live ones, so that where the live service is shared by several
 * instances, so is test mode, and every instance answers a test key from the same records:
 * - with DATABASE_URL, a PostgreSQL database of its own on the same server
 *   (TEST_MODE_DATABASE_URL, else the live database's name with `_test_mode`, created if
 *   missing): its advisory locks, migrations, projector checkpoints and ledger never meet
 *   the live ones; migrated under the migration lock and given its fixture corpus under a
 *   lock of its own, so several instances starting at once do each once. Without it, a
 *   PGlite in DATA_DIR/test-mode, which only this process can hold (the embedded default).
 * - with DATABASE_URL and MEILI_URL, the index `<MEILI_INDEX>-test-mode`; else PostgreSQL
 *   keyword search over its database.
 * - with DATABASE_URL and REDIS_URL, cache, rate limits and distinct counters under
 *   `<REDIS_PREFIX>-test:`; else in process.
 * - with DATABASE_URL and S3_BUCKET, documents under `test-mode/` in the live bucket; else
 *   under DATA_DIR/test-mode, linked under /test-mode/ and signed with a secret of its own
 *   (derived from DOCUMENT_URL_SECRET when set, so every instance honours another's links).
 * - deterministic work: the local extractive analyser and context reader (never an LLM,
 *   whatever LLM_URL says), no remote document fetch, live fetches answered by the fixture
 *   portal (the High Court fixtures).
 *
 * The live service's: the embedding model (stateless), the engine connection (its workflows
 * on test mode's queues with `test-` ids, on workers in every instance), the analytics store
 * (its audit rows in a table of their own), and the live database as where its facts become
 * webhook deliveries, to the account's test endpoints, sent by the live dispatcher and workers.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { FixtureCourtPortal, PORTAL_FIXTURES } from '../adapters/court-portal/fixture-portal.ts';
import { LocalContextAdjudicator } from '../adapters/llm/local-adjudicator.ts';
import { LocalExtractiveAnalyser } from '../adapters/llm/local-extractive-analyser.ts';
import { PromMetrics } from '../adapters/metrics/prom-metrics.ts';
import { PostgresSearchIndex } from '../adapters/postgres/search-index.ts';
import { PostgresVectorIndex, vectorStoreAvailable } from '../adapters/postgres/vector-index.ts';
import { openSearchIndex } from '../adapters/search/open-search-index.ts';
import { openDocumentStorage } from '../adapters/storage/open-document-storage.ts';
import { TemporalAnalysisWorkflows } from '../adapters/temporal/analysis-workflows.ts';
import { TemporalTimelineWorkflows } from '../adapters/temporal/timeline-workflows.ts';
import { noCourtPortal, workersOn, type WorkflowRuntime } from '../compose-workflows.ts';
import { publicBaseUrl, type Config } from '../config.ts';
import { ingestCorpus } from '../corpus/ingest.ts';
import { ecourtsHcSource } from '../corpus/sources/ecourts-hc.ts';
import { scIk50Source } from '../corpus/sources/sc-ik50.ts';
import { scInAbsSource } from '../corpus/sources/sc-inabs.ts';
import { migrate } from '../db/migrate.ts';
import type { Db } from '../db/database.ts';
import { openPglite, openPostgres, type OpenedDatabase } from '../db/open.ts';
import { unavailableAnalysisWorkflows } from '../ports/analysis-workflows.ts';
import type { Clock } from '../ports/clock.ts';
import { unavailableTimelineWorkflows } from '../ports/timeline-workflows.ts';
import { unavailableWebhookWorkflows } from '../ports/webhooks.ts';
import { AUDIT_TABLES } from '../projections/audit-to-clickhouse.ts';
import { holding } from '../projections/case-change-feed.ts';
import { SearchIndexProjector } from '../projections/search-index-projector.ts';
import { TEST_MODE_WORKFLOWS } from '../../workflows/task-queues.ts';
import { memoryStores, openSharedStores, type Adapters } from './adapters.ts';
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
  const root = testModeDataDir(config.DATA_DIR);
  // On shared stores every store follows the live service's choice; on the embedded default all stay in this process.
  const shared = config.DATABASE_URL !== undefined;
  const database = shared ? await openTestModeDatabase(config, live.database.maintenance) : await openPglite(root, 'test mode');
  life.resource('test mode database', () => database.close());
  await migrate(database.maintenance);
  const corpusDir = config.CORPUS_DIR;
  if (corpusDir)
    // Idempotent, and one instance at a time: the others then find every fixture stored and write nothing.
    await holding(database.maintenance, database.kind, FIXTURE_INGEST_LOCK, async () => {
      await ingestCorpus({ db: database.maintenance, corpusDir, now, sources: TEST_MODE_SOURCES, signal });
    });
  else logger.warn('test mode: no CORPUS_DIR, so its fixture corpus is empty');
  const stores = shared ? await openSharedStores(config, clock, testModeRedisNamespace(config.REDIS_PREFIX)) : memoryStores(clock);
  life.resource('test mode shared stores', () => stores.close());
  // On PGlite one connection: the request path and the projector share the index.
  const searchIndex = shared
    ? await openSearchIndex({ ...config, MEILI_INDEX: testModeSearchIndex(config.MEILI_INDEX) }, database.db)
    : new PostgresSearchIndex(database.db, { keepAnswers: database.kind === 'pglite' });
  const searchIndexWriter =
    searchIndex.name === 'postgres' && database.maintenance !== database.db ? new PostgresSearchIndex(database.maintenance) : searchIndex;
  // The first test call finds the fixture corpus indexed; the graph's projector then resumes from here.
  signal?.throwIfAborted();
  await new SearchIndexProjector(database.maintenance, searchIndexWriter, { kind: database.kind, now }).catchUp();
  const vectorsAvailable = await vectorStoreAvailable(database.db);
  if (vectorsAvailable)
    await new PostgresVectorIndex(database.maintenance, { model: live.embedder.model, dimensions: live.embedder.dimensions }).prepare();
  const base = new URL(publicBaseUrl(config));
  const documents = openDocumentStorage(
    {
      ...config,
      DATA_DIR: root,
      PUBLIC_BASE_URL: `${base.origin}${TEST_MODE_PATH}${base.pathname}`,
      DOCUMENT_URL_SECRET: config.DOCUMENT_URL_SECRET && testModeSecret(config.DOCUMENT_URL_SECRET),
      S3_BUCKET: shared ? config.S3_BUCKET : undefined,
      S3_KEY_PREFIX: TEST_MODE_S3_PREFIX,
    },
    clock,
  );
  life.resource('test mode document storage', () => documents.close());
  const workflowRuntime = testModeWorkflows(live.workflowRuntime, config, logger);
  life.resource('test mode workers', () => workflowRuntime.close());
  return {
    database,
    // Counted apart, and scraped by nobody: test calls are not the service's traffic.
    metrics: new PromMetrics(),
    stores,
    analytics: live.analytics,
    keyHashSecret: live.keyHashSecret,
    adminToken: live.adminToken,
    searchIndex,
    searchIndexWriter,
    parties: searchIndex,
    embedder: live.embedder,
    vectorsAvailable,
    documents,
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

/** The session lock test mode's fixture ingest runs under, in test mode's database. */
const FIXTURE_INGEST_LOCK = 'test-mode-fixture-ingest';

/** Test mode's folder under DATA_DIR: its PGlite on the embedded default, its documents without S3_BUCKET. */
export function testModeDataDir(dataDir: string): string {
  return join(dataDir, 'test-mode');
}

/** Test mode's keys in the live Redis, beside the live ones (REDIS_PREFIX). */
export function testModeRedisNamespace(livePrefix: string): string {
  return `${livePrefix}-test:`;
}

/** Test mode's objects in the live bucket. */
export const TEST_MODE_S3_PREFIX = 'test-mode/';

/** Test mode's Meilisearch index, beside the live one (MEILI_INDEX). */
function testModeSearchIndex(liveIndex: string): string {
  return `${liveIndex}-test-mode`;
}

/** Test mode's link secret: every instance derives the same one, and it never signs a live link. */
function testModeSecret(documentUrlSecret: string): string {
  return createHmac('sha256', documentUrlSecret).update('test mode document links').digest('hex');
}

/**
 * Test mode's database: TEST_MODE_DATABASE_URL, else the live database's name with
 * `_test_mode` on the same server, created through the live connection if it is missing.
 * Smaller pools than the live ones: test traffic is light.
 */
async function openTestModeDatabase(config: Config, live: Db): Promise<OpenedDatabase> {
  const url = config.TEST_MODE_DATABASE_URL ?? (await ensureTestModeDatabase(config.DATABASE_URL ?? '', live));
  return openPostgres(url, {
    max: TEST_MODE_CONNECTIONS,
    maintenanceMax: TEST_MODE_CONNECTIONS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
}

const TEST_MODE_CONNECTIONS = 4;

/** PostgreSQL keeps 63 bytes of a name. */
const MAX_DATABASE_NAME = 63;

/** The URL of test mode's database beside the live one at `liveUrl`. */
export function testModeDatabaseUrl(liveUrl: string): string {
  const url = new URL(liveUrl);
  const live = decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || 'postgres';
  const name = `${live}_test_mode`;
  if (!/^[A-Za-z0-9_]+$/.test(name) || name.length > MAX_DATABASE_NAME)
    throw new Error(`test mode cannot name a database after "${live}": set TEST_MODE_DATABASE_URL`);
  url.pathname = `/${name}`;
  return url.toString();
}

async function ensureTestModeDatabase(liveUrl: string, live: Db): Promise<string> {
  const url = testModeDatabaseUrl(liveUrl);
  const name = new URL(url).pathname.slice(1);
  const found = await sql<{ one: number }>`select 1 as one from pg_database where datname = ${name}`.execute(live);
  if (found.rows.length > 0) return url;
  try {
    // The name was checked to be a plain identifier above.
    await sql.raw(`create database "${name}"`).execute(live);
  } catch (err) {
    // Another instance created it meanwhile: 42P04 duplicate_database, or 23505 from the catalogue's unique index.
    const code = (err as { code?: unknown }).code;
    if (code !== '42P04' && code !== '23505') throw err;
  }
  return url;
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
