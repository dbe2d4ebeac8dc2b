/**
 * Builds the real HTTP app over a real (in-memory PGlite or PostgreSQL) database for
 * `app.request()` tests, through the service's own graph (src/composition/graph.ts) over
 * adapters assembled here. Options replace adapters or settings, never wiring: probes,
 * clock, rate limits, stores, indexes, storage, workflow ports.
 */
import pino from 'pino';
import type { PayloadCodec } from '@temporalio/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalUseEmbedder } from '../../src/adapters/embeddings/local-use-embedder.ts';
import { MemoryCache } from '../../src/adapters/memory/cache.ts';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { PromMetrics } from '../../src/adapters/metrics/prom-metrics.ts';
import type { Resolver } from '../../src/adapters/network/address-guard.ts';
import type { readCoverageAggregates } from '../../src/adapters/postgres/coverage-source.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { DocumentLinkSigner } from '../../src/adapters/storage/document-link-signer.ts';
import { LocalDocumentStorage } from '../../src/adapters/storage/local-document-storage.ts';
import type { OpenedDocumentStorage } from '../../src/adapters/storage/open-document-storage.ts';
import { createPayloadCodec, parseCodecKeyring } from '../../src/adapters/temporal/payload-codec.ts';
import type { WorkflowRuntime } from '../../src/compose-workflows.ts';
import type { Adapters } from '../../src/composition/adapters.ts';
import { liveChoices } from '../../src/composition/mode-choices.ts';
import { buildGraph } from '../../src/composition/graph.ts';
import { loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import type { Tier } from '../../src/domain/access/tiers.ts';
import { createApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app-types.ts';
import type { ApiKeyGateDeps } from '../../src/http/middleware/require-api-key.ts';
import type { ResearchDeps } from '../../src/http/research-deps.ts';
import { unavailableAnalysisWorkflows, type AnalysisWorkflows } from '../../src/ports/analysis-workflows.ts';
import type { AnalyticsStore } from '../../src/ports/analytics.ts';
import type { Cache } from '../../src/ports/cache.ts';
import type { CaseRestrictions } from '../../src/ports/case-restrictions.ts';
import { randomIds, systemClock, type Clock } from '../../src/ports/clock.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import type { DocumentStorage } from '../../src/ports/document-storage.ts';
import type { DependencyProbe } from '../../src/ports/health.ts';
import type { MatchAdjudicator } from '../../src/ports/match-adjudicator.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';
import type { PartySearchIndex, SearchIndex } from '../../src/ports/search-index.ts';
import { unavailableTimelineWorkflows, type TimelineWorkflows } from '../../src/ports/timeline-workflows.ts';
import type { VectorIndex } from '../../src/ports/vector-index.ts';
import { unavailableWebhookWorkflows, type WebhookWorkflows } from '../../src/ports/webhooks.ts';
import type { AnalysisWiring, Application, TimelineWiring, WebhookWiring } from '../../src/wiring.ts';
import { corpusDir } from './corpus.ts';

export const BASE = '/api/v1/prod';

/** Stand-in for tests that never read analytics: any use fails loudly (as a down store would). */
const analyticsNotConfigured: AnalyticsStore = {
  command: () => Promise.reject(new Error('analytics store not configured in this test')),
  insert: () => Promise.reject(new Error('analytics store not configured in this test')),
  query: () => Promise.reject(new Error('analytics store not configured in this test')),
  ping: () => Promise.reject(new Error('analytics store not configured in this test')),
  close: async () => undefined,
};
export const KEY_PREFIXES = ['crk_live', 'crk_test'] as const;
export const KEY_HASH_SECRET = 'test-key-hash-secret-of-at-least-32-chars';

export class SettableClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  set(date: Date): void {
    this.current = new Date(date);
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
  /** Failed attempts per address and window: key lookups (default 20) and admin tokens (5), per minute like the service. */
  readonly failedAttempts?: { readonly keys?: number; readonly adminTokens?: number; readonly windowMs?: number };
  readonly cache?: Cache;
  readonly limiter?: RateLimiter;
  /** Password hashes logins may run at once and may wait for (LOGIN_HASH_CONCURRENCY, LOGIN_HASH_QUEUE). */
  readonly loginHashes?: { readonly concurrency: number; readonly queue: number };
  readonly distinctKeys?: DistinctCounter;
  readonly readCoverage?: typeof readCoverageAggregates;
  /** Name resolution for webhook deliveries: a fake resolver, so no query leaves the machine; unset: the system's. */
  readonly resolver?: Resolver;
  readonly entitledTiers?: readonly Tier[];
  readonly adminToken?: string;
  readonly trustProxy?: boolean;
  /** The key-hash secret (default KEY_HASH_SECRET); a bench's keys must hash as its child service hashes them. */
  readonly keyHashSecret?: string;
  /** How often the access caches poll for revocations (default 50 ms). */
  readonly keyCachePollMs?: number;
  /** The real ClickHouse engine for tests of /audit and /usage; others get a stand-in that refuses. */
  readonly analytics?: AnalyticsStore;
  /** Defaults to the PostgreSQL full-text index over `db`. */
  readonly index?: SearchIndex;
  /** Defaults to a local folder in a fresh temporary directory, its links signed by the service. */
  readonly documents?: DocumentStorage;
  /** Where the default local storage's links point (default TEST_PUBLIC_BASE_URL); tests over a real listener pass its origin. */
  readonly publicBaseUrl?: string;
  /** The version the app reports (default 0.1.0-test). */
  readonly version?: string;
  /** Defaults to pgvector over `db` (on PostgreSQL without pgvector every search fails, so the keyword fallback answers). */
  readonly vectors?: VectorIndex;
  /** The restricted-record check of search pages; defaults to the case store's flag over `db`. */
  readonly restrictions?: CaseRestrictions;
  /** Defaults to no workflow engine (analysis requests answer 503); see test/support/temporal.ts for a real one. */
  readonly workflows?: AnalysisWorkflows;
  /** Hosts allowRemoteFetch may reach besides the documents' own host (default: the production list, which no test host is on). */
  readonly remoteFetchAllowlist?: readonly string[];
  readonly scDocumentsBaseUrl?: string;
  /** The Temporal payload codec of the ops codec endpoint (mounted with the admin API); defaults to one under a fixed test key. */
  readonly codec?: PayloadCodec;
  /** Party-name retrieval of the litigation check; defaults to the PostgreSQL index over `db`. */
  readonly parties?: PartySearchIndex;
  /** Defaults to the local context reader (deterministic, no model). */
  readonly adjudicator?: MatchAdjudicator;
  /** Defaults to no workflow engine (live timeline fetches answer 503); see test/support/temporal.ts. */
  readonly timelineWorkflows?: TimelineWorkflows;
  /** Webhook deliveries' workflows (the real engine in the webhook tests); none by default. */
  readonly webhookWorkflows?: WebhookWorkflows;
  /** WEBHOOK_* settings over the harness's (fairness limits, disabling thresholds, timeouts). */
  readonly webhookSettings?: Readonly<Record<`WEBHOOK_${string}`, string>>;
  /** Whether a court portal is configured for live fetches (default false: refresh true answers 502). */
  readonly livePortal?: boolean;
  /** METRICS_TOKEN of GET /ops/metrics (default unset: loopback callers only, the x-test-client header standing in for the socket). */
  readonly metricsToken?: string;
  /** Where refusals send callers (default https://billing.test/top-up and TEST_UPGRADE_URL); the service's defaults are dashboard pages. */
  readonly links?: { readonly topUpUrl: string; readonly upgradeUrl: string };
}

let sharedEmbedder: LocalUseEmbedder | undefined;
/** One local embedding model per test process. */
export function testEmbedder(): LocalUseEmbedder {
  sharedEmbedder ??= new LocalUseEmbedder();
  return sharedEmbedder;
}

export interface TestApp {
  readonly app: App;
  readonly application: Application;
  readonly logs: string[];
  /** The API-key gate's dependencies, for tests that mount a keyed route of their own. */
  readonly gate: ApiKeyGateDeps;
  readonly research: ResearchDeps;
  readonly analysis: AnalysisWiring;
  readonly timeline: TimelineWiring;
  readonly webhooks: WebhookWiring;
  readonly documents: DocumentStorage;
  /** The app's own registry, as GET /ops/metrics exposes it. */
  readonly metrics: PromMetrics;
}

export const TEST_UPGRADE_URL = 'https://billing.test/plans';

/** Where the test app's local document links point. */
export const TEST_PUBLIC_BASE_URL = `http://localhost${BASE}`;

/** The client address of a test request: the x-test-client header stands in for the socket. */
export const TEST_CLIENT_HEADER = 'x-test-client';

/** The service's configuration as a test runs it, parsed as the service parses its environment. */
function testConfig(options: TestAppOptions) {
  const { topUpUrl, upgradeUrl } = options.links ?? { topUpUrl: 'https://billing.test/top-up', upgradeUrl: TEST_UPGRADE_URL };
  return loadConfig({
    API_BASE_PATH: BASE,
    APP_VERSION: options.version ?? '0.1.0-test',
    GIT_COMMIT: 'test',
    CORS_ORIGINS: 'https://www.example-court-records.in',
    API_KEY_PREFIXES: KEY_PREFIXES.join(','),
    API_PLANS: (options.entitledTiers ?? ['enterprise']).join(','),
    KEY_CACHE_POLL_MS: String(options.keyCachePollMs ?? 50),
    PUBLIC_RATE_LIMIT_PER_MINUTE: String(options.perMinute ?? 1000),
    FAILED_KEY_ATTEMPTS_PER_MINUTE: String(options.failedAttempts?.keys ?? 20),
    FAILED_ADMIN_TOKEN_ATTEMPTS_PER_MINUTE: String(options.failedAttempts?.adminTokens ?? 5),
    // The x-test-client header stands in for a loopback socket: behind a proxy, that proxy's.
    TRUSTED_PROXIES: options.trustProxy ? '127.0.0.1,::1' : undefined,
    PUBLIC_BASE_URL: options.publicBaseUrl ?? TEST_PUBLIC_BASE_URL,
    CONSOLIDATED_DEADLINE_SECONDS: '120',
    REMOTE_FETCH_ALLOWED_HOSTS: options.remoteFetchAllowlist?.join(','),
    SC_DOCUMENTS_BASE_URL: options.scDocumentsBaseUrl,
    // Only whether one is configured matters here: the harness runs no workers to reach it.
    COURT_PORTAL_URL: options.livePortal ? 'http://court-portal.invalid' : undefined,
    TOP_UP_URL: topUpUrl,
    UPGRADE_URL: upgradeUrl,
    METRICS_TOKEN: options.metricsToken,
    // Tests deliver to receivers on loopback over http: the development setting.
    WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...options.webhookSettings,
    CORPUS_DIR: corpusDir,
    LOGIN_HASH_CONCURRENCY: options.loginHashes ? String(options.loginHashes.concurrency) : undefined,
    LOGIN_HASH_QUEUE: options.loginHashes ? String(options.loginHashes.queue) : undefined,
  });
}

/** No engine: workflow ports that refuse unless the test hands real ones, and no workers (test/support/temporal.ts runs those). */
function testWorkflowRuntime(options: TestAppOptions): WorkflowRuntime {
  return {
    workflows: options.workflows ?? unavailableAnalysisWorkflows,
    timelineWorkflows: options.timelineWorkflows ?? unavailableTimelineWorkflows,
    webhookWorkflows: options.webhookWorkflows ?? unavailableWebhookWorkflows,
    engine: null,
    uiUrl: null,
    probes: [],
    startWorkers: () => undefined,
    close: async () => undefined,
  };
}

let documentsRoot: string | undefined;

/** One directory per test process, removed when it exits: a test app has no close of its own to remove its documents. */
function documentsDir(): string {
  if (documentsRoot === undefined) {
    const root = mkdtempSync(join(tmpdir(), 'court-docs-'));
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
    documentsRoot = root;
  }
  return mkdtempSync(join(documentsRoot, 'app-'));
}

function testDocuments(options: TestAppOptions, keyHashSecret: string, clock: Clock): OpenedDocumentStorage {
  if (options.documents) return { storage: options.documents, links: null, close: () => undefined };
  const signer = new DocumentLinkSigner(keyHashSecret, clock);
  const storage = new LocalDocumentStorage({
    root: documentsDir(),
    publicBaseUrl: options.publicBaseUrl ?? TEST_PUBLIC_BASE_URL,
    signer,
  });
  return { storage, links: signer, close: () => undefined };
}

export function buildTestApp(options: TestAppOptions): TestApp {
  const clock = options.clock ?? systemClock;
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const cache = options.cache ?? new MemoryCache(clock);
  const keyHashSecret = options.keyHashSecret ?? KEY_HASH_SECRET;
  const index = options.index ?? new PostgresSearchIndex(options.db);
  const config = testConfig(options);
  const adapters: Adapters = {
    // The test owns the database and closes it; the kind only labels the probes and the projectors, which the harness does not start.
    database: { db: options.db, maintenance: options.db, kind: 'pglite', close: async () => undefined },
    metrics: new PromMetrics({ onLagReadFailure: (err) => logger.warn({ err }, 'projector lag could not be read for the scrape') }),
    stores: {
      cache,
      limiter: options.limiter ?? new MemoryRateLimiter(clock),
      distinctKeys: options.distinctKeys ?? new MemoryDistinctCounter(clock),
      probe: { name: 'cache', hard: false, backend: 'memory', check: (signal) => cache.ping(signal) },
      close: async () => undefined,
    },
    analytics: { store: options.analytics ?? analyticsNotConfigured, ready: options.analytics !== undefined },
    keyHashSecret,
    adminToken: options.adminToken,
    searchIndex: index,
    searchIndexWriter: index,
    parties: options.parties ?? new PostgresSearchIndex(options.db),
    embedder: testEmbedder(),
    // Selects only the embedding projector's task and lag gauge, neither of which a test app runs.
    vectorsAvailable: false,
    documents: testDocuments(options, keyHashSecret, clock),
    payloadCodec: options.codec ?? createPayloadCodec(parseCodecKeyring(`test:${Buffer.alloc(32, 1).toString('base64')}`)),
    workflowRuntime: testWorkflowRuntime(options),
    vectors: options.vectors,
    restrictions: options.restrictions,
    readCoverage: options.readCoverage,
    resolver: options.resolver,
    choices: options.adjudicator ? { ...liveChoices(config), adjudicator: options.adjudicator } : undefined,
  };
  const graph = buildGraph(adapters, {
    config,
    clock,
    ids: randomIds,
    logger,
    socketAddress: (c) => c.req.header(TEST_CLIENT_HEADER) ?? '127.0.0.1',
    failedAttemptWindowMs: options.failedAttempts?.windowMs,
    probes: (derived) => {
      // Without a test's own analytics store there is only the stand-in, which has nothing to probe.
      const real = options.analytics ? derived : derived.filter((p) => p.name !== 'analyticsStore');
      return options.probes ? options.probes(real) : real;
    },
  });
  return {
    app: createApp(graph.appDeps),
    application: graph.application,
    logs,
    gate: graph.appDeps.apiKeyGate,
    research: graph.appDeps.research,
    analysis: graph.analysis,
    timeline: graph.timeline,
    webhooks: graph.webhooks,
    documents: adapters.documents.storage,
    metrics: adapters.metrics,
  };
}
