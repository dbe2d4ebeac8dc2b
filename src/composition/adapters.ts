/**
 * Opens everything the service talks to, once: the database (migrated), the shared stores,
 * the analytics store, the search and vector indexes, the embedder, document storage and
 * the workflow engine's client (no workers). Each is the embedded default unless its URL is
 * set. Everything opened is registered on the lifecycle, to be closed in reverse. This is
 * the only IO of composition: the graph over these is built without any (graph.ts).
 */
import type { Logger } from 'pino';
import { ADMIN_TOKEN_FILE, keyHashSecretOf, loadOrCreateSecret } from '../adapters/crypto/local-secret.ts';
import { openAnalyticsStore } from '../adapters/clickhouse/open.ts';
import { migrateAnalytics } from '../adapters/clickhouse/migrate.ts';
import { unavailableAnalyticsStore } from '../adapters/clickhouse/unavailable-store.ts';
import { openEmbedder } from '../adapters/embeddings/open-embedder.ts';
import { MemoryCache } from '../adapters/memory/cache.ts';
import { MemoryDistinctCounter } from '../adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from '../adapters/memory/rate-limiter.ts';
import { PromMetrics } from '../adapters/metrics/prom-metrics.ts';
import { PostgresVectorIndex, vectorStoreAvailable } from '../adapters/postgres/vector-index.ts';
import { RedisCache } from '../adapters/redis/cache.ts';
import { connectRedis } from '../adapters/redis/connection.ts';
import { RedisDistinctCounter, RedisRateLimiter } from '../adapters/redis/rate-limits.ts';
import { openSearchIndex } from '../adapters/search/open-search-index.ts';
import { openDocumentStorage } from '../adapters/storage/open-document-storage.ts';
import { openWorkflowRuntime, payloadCodecOf, type WorkflowRuntime } from '../compose-workflows.ts';
import { publicBaseUrl, type Config } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase, type OpenedDatabase } from '../db/open.ts';
import type { readCoverageAggregates } from '../adapters/postgres/coverage-source.ts';
import type { AnalyticsStore } from '../ports/analytics.ts';
import type { CaseRestrictions } from '../ports/case-restrictions.ts';
import type { Cache } from '../ports/cache.ts';
import type { Clock } from '../ports/clock.ts';
import type { DistinctCounter } from '../ports/distinct-counter.ts';
import type { DependencyProbe } from '../ports/health.ts';
import type { RateLimiter } from '../ports/rate-limiter.ts';
import type { PartySearchIndex, SearchIndex } from '../ports/search-index.ts';
import type { VectorIndex } from '../ports/vector-index.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { ModeChoices } from './mode-choices.ts';
import type { PayloadCodec } from '@temporalio/common';
import type { Resolver } from '../adapters/network/address-guard.ts';

export interface SharedStores {
  readonly cache: Cache;
  readonly limiter: RateLimiter;
  readonly distinctKeys: DistinctCounter;
  readonly probe: DependencyProbe;
  close(): Promise<void>;
}

export interface Adapters {
  readonly database: OpenedDatabase;
  readonly metrics: PromMetrics;
  readonly stores: SharedStores;
  readonly analytics: { readonly store: AnalyticsStore; readonly ready: boolean };
  readonly keyHashSecret: string;
  /** Undefined: no admin API. */
  readonly adminToken: string | undefined;
  /** The request path's index and the projector's writer (the same client on Meilisearch). */
  readonly searchIndex: SearchIndex;
  readonly searchIndexWriter: SearchIndex;
  /** Party-name retrieval of the litigation check: the search index's own client (both adapters implement it). */
  readonly parties: PartySearchIndex;
  readonly embedder: ReturnType<typeof openEmbedder>;
  /** PostgreSQL without pgvector has no case_chunks: semantic search then answers from the keyword index. */
  readonly vectorsAvailable: boolean;
  readonly documents: ReturnType<typeof openDocumentStorage>;
  readonly payloadCodec: PayloadCodec;
  readonly workflowRuntime: WorkflowRuntime;
  /** What test mode (or a test) chooses otherwise (test-mode-adapters.ts); absent, the configuration's (mode-choices.ts). */
  readonly choices?: ModeChoices;
  // These need no IO to open: the graph builds them over the database and the configuration unless a test hands in its own.
  /** The vector index of semantic search; unset: pgvector over the database. */
  readonly vectors?: VectorIndex;
  /** The restricted-record check of search pages; unset: the case store's flag. */
  readonly restrictions?: CaseRestrictions;
  /** What the coverage service reads; unset: the case store's aggregates. */
  readonly readCoverage?: typeof readCoverageAggregates;
  /** Name resolution for webhook deliveries; unset: the system's. */
  readonly resolver?: Resolver;
}

/** Cache, rate limits and distinct counters in this process. */
export function memoryStores(clock: Clock): SharedStores {
  const cache: Cache = new MemoryCache(clock);
  return {
    cache,
    limiter: new MemoryRateLimiter(clock),
    distinctKeys: new MemoryDistinctCounter(clock),
    probe: { name: 'cache', hard: false, backend: 'memory', check: (signal) => cache.ping(signal) },
    close: async () => undefined,
  };
}

/** The live deployment's Redis keys start with this. */
export function liveRedisNamespace(prefix: string): string {
  return `${prefix}:`;
}

/**
 * Cache, rate limits and distinct counters: in process, or in Redis when REDIS_URL is set,
 * under keys starting with `namespace` (test mode's own, so its counts never meet the live ones).
 */
export async function openSharedStores(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>,
  clock: Clock,
  namespace = liveRedisNamespace(config.REDIS_PREFIX),
): Promise<SharedStores> {
  if (!config.REDIS_URL) return memoryStores(clock);
  const redis = await connectRedis(config.REDIS_URL);
  const cache: Cache = new RedisCache(redis, namespace);
  return {
    cache,
    limiter: new RedisRateLimiter(redis, clock, `${namespace}rl:`),
    distinctKeys: new RedisDistinctCounter(redis, `${namespace}dc:`),
    probe: { name: 'cache', hard: false, backend: 'redis', check: (signal) => cache.ping(signal) },
    close: async () => {
      await redis.close();
    },
  };
}

/** The analytics store, or, if it cannot be opened, one that refuses: the API still serves. */
async function openAnalytics(config: Config, logger: Logger): Promise<{ store: AnalyticsStore; ready: boolean }> {
  try {
    const store = await openAnalyticsStore({
      CLICKHOUSE_URL: config.CLICKHOUSE_URL,
      DATA_DIR: config.ANALYTICS_DATA_DIR ?? config.DATA_DIR,
    });
    const migrated = await migrateAnalytics(store);
    logger.info({ analytics: store.kind, applied: migrated.applied }, 'analytics store ready');
    return { store, ready: true };
  } catch (err) {
    logger.error({ err }, 'analytics store unavailable: /audit and /usage will answer 502; audit events wait in Postgres');
    return { store: unavailableAnalyticsStore(err instanceof Error ? err.message : String(err)), ready: false };
  }
}

export async function openAdapters(
  config: Config,
  options: { readonly clock: Clock; readonly logger: Logger; readonly life: Lifecycle },
): Promise<Adapters> {
  const { clock, logger, life } = options;
  // First: on the embedded default this locks DATA_DIR's database, so a second instance on it stops here, having started nothing.
  const database = await openDatabase(config, 'the service');
  life.resource('database', () => database.close());
  const migrated = await migrate(database.maintenance);
  logger.info({ database: database.kind, applied: migrated.applied }, 'database ready');
  // One registry for the process: the HTTP layer, the ledger and the workflows all count into it.
  const metrics = new PromMetrics({ onLagReadFailure: (err) => logger.warn({ err }, 'projector lag could not be read for the scrape') });
  const stores = await openSharedStores(config, clock);
  life.resource('shared stores', () => stores.close());
  const analytics = await openAnalytics(config, logger);
  life.resource('analytics store', () => analytics.store.close());
  const keyHashSecret = keyHashSecretOf(config);
  // Off a single machine (DATABASE_URL set), no ADMIN_TOKEN means no admin API.
  const adminToken =
    config.ADMIN_TOKEN ?? (config.DATABASE_URL === undefined ? loadOrCreateSecret(ADMIN_TOKEN_FILE(config.DATA_DIR)) : undefined);
  if (config.ADMIN_TOKEN === undefined && adminToken !== undefined) {
    logger.info(
      { file: ADMIN_TOKEN_FILE(config.DATA_DIR) },
      'admin API on, with the local admin token in this file (court-records dev seed reads it)',
    );
  }
  // Meilisearch when MEILI_URL is set, else PostgreSQL full-text search over the case store's database.
  const searchIndex = await openSearchIndex(config, database.db, { soleWriter: database.kind === 'pglite' });
  // The projector's writes (and the ANALYZE after a large load) go through the pool without the statement timeout.
  // Meilisearch has no pool to keep apart: the one client (its schema migrated once) serves both.
  const searchIndexWriter =
    searchIndex.name === 'postgres' && database.maintenance !== database.db
      ? await openSearchIndex(config, database.maintenance)
      : searchIndex;
  const embedder = openEmbedder(config);
  life.resource('embedder', () => embedder.close?.());
  const vectorsAvailable = await vectorStoreAvailable(database.db);
  // Building the HNSW index over every chunk may take minutes: not on the request path's pool.
  if (vectorsAvailable)
    await new PostgresVectorIndex(database.maintenance, { model: embedder.model, dimensions: embedder.dimensions }).prepare();
  else logger.warn('no pgvector: semantic search will answer from the keyword index (fallbackMode)');
  const documents = openDocumentStorage({ ...config, PUBLIC_BASE_URL: publicBaseUrl(config) }, clock);
  life.resource('document storage', () => documents.close());
  const payloadCodec = await payloadCodecOf(config);
  const workflowRuntime = await openWorkflowRuntime(config, {
    logger,
    codec: payloadCodec,
    codecEndpoint: new URL('/ops/temporal-codec', publicBaseUrl(config)).toString(),
  });
  life.resource('workflow engine and workers', () => workflowRuntime.close());
  return {
    database,
    metrics,
    stores,
    analytics,
    keyHashSecret,
    adminToken,
    searchIndex,
    searchIndexWriter,
    parties: searchIndex,
    embedder,
    vectorsAvailable,
    documents,
    payloadCodec,
    workflowRuntime,
  };
}
