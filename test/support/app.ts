/**
 * Builds the real HTTP app over a real (in-memory PGlite or PostgreSQL) database for
 * `app.request()` tests, through the same wiring production uses. Options replace only
 * what a test must control: probes, clock, rate limits, stores.
 */
import pino from 'pino';
import type { PayloadCodec } from '@temporalio/common';
import { MemoryCache } from '../../src/adapters/memory/cache.ts';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import type { readCoverageAggregates } from '../../src/adapters/postgres/coverage-source.ts';
import { postgresProbes } from '../../src/adapters/postgres/probes.ts';
import type { Db } from '../../src/db/database.ts';
import type { Tier } from '../../src/domain/access/tiers.ts';
import { createApp } from '../../src/http/app.ts';
import { InFlightRequests } from '../../src/http/middleware/in-flight.ts';
import { PromMetrics } from '../../src/adapters/metrics/prom-metrics.ts';
import { findUserOrganization } from '../../src/adapters/postgres/key-lookup.ts';
import { AuditQueries } from '../../src/application/audit/audit-queries.ts';
import { UsageByDay } from '../../src/application/audit/usage-by-day.ts';
import { exportLedger } from '../../src/application/credits/ledger-export.ts';
import { FailedAttemptThrottle } from '../../src/application/access/failed-attempt-throttle.ts';
import type { AnalyticsStore } from '../../src/ports/analytics.ts';
import type { ApiKeyGateDeps } from '../../src/http/middleware/require-api-key.ts';
import type { App } from '../../src/http/app-types.ts';
import type { Cache } from '../../src/ports/cache.ts';
import { randomIds, type Clock } from '../../src/ports/clock.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import type { DependencyProbe } from '../../src/ports/health.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { DocumentLinkSigner } from '../../src/adapters/storage/document-link-signer.ts';
import { LocalDocumentStorage } from '../../src/adapters/storage/local-document-storage.ts';
import type { ResearchDeps } from '../../src/http/research-deps.ts';
import type { DocumentStorage } from '../../src/ports/document-storage.ts';
import type { SearchIndex } from '../../src/ports/search-index.ts';
import { LocalUseEmbedder } from '../../src/adapters/embeddings/local-use-embedder.ts';
import { PostgresVectorIndex } from '../../src/adapters/postgres/vector-index.ts';
import { PostgresCaseRestrictions } from '../../src/adapters/postgres/case-restrictions.ts';
import type { CaseRestrictions } from '../../src/ports/case-restrictions.ts';
import type { Embedder } from '../../src/ports/embedder.ts';
import type { VectorIndex } from '../../src/ports/vector-index.ts';
import { corpusDir } from './corpus.ts';
import {
  eventStoreOf,
  wireAnalysis,
  wireApplication,
  wireResearch,
  wireScreening,
  type AnalysisWiring,
  type Application,
} from '../../src/wiring.ts';
import { wireTimeline, type TimelineWiring, type WorkflowWatchdogBounds } from '../../src/wiring.ts';
import { wireWebhooks, type WebhookWiring } from '../../src/wiring.ts';
import { unavailableWebhookWorkflows, type WebhookWorkflows } from '../../src/ports/webhooks.ts';
import { unavailableTimelineWorkflows, type TimelineWorkflows } from '../../src/ports/timeline-workflows.ts';
import { LocalContextAdjudicator } from '../../src/adapters/llm/local-adjudicator.ts';
import type { MatchAdjudicator } from '../../src/ports/match-adjudicator.ts';
import type { PartySearchIndex } from '../../src/ports/search-index.ts';
import { unavailableAnalysisWorkflows, type AnalysisWorkflows } from '../../src/ports/analysis-workflows.ts';

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
  readonly distinctKeys?: DistinctCounter;
  readonly readCoverage?: typeof readCoverageAggregates;
  readonly entitledTiers?: readonly Tier[];
  readonly adminToken?: string;
  readonly trustProxy?: boolean;
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
  /** Defaults to the process's one local model (loading it costs a few hundred ms). */
  readonly embedder?: Embedder;
  /** Defaults to pgvector over `db` (on PostgreSQL without pgvector every search fails, so the keyword fallback answers). */
  readonly vectors?: VectorIndex;
  /** The restricted-record check of search pages; defaults to the case store's flag over `db`. */
  readonly restrictions?: CaseRestrictions;
  /** Defaults to no workflow engine (analysis requests answer 503); see test/support/temporal.ts for a real one. */
  readonly workflows?: AnalysisWorkflows;
  /** Hosts allowRemoteFetch may reach (default: the production list, which no test host is on). */
  readonly remoteFetchAllowlist?: readonly string[];
  readonly scDocumentsBaseUrl?: string;
  readonly consolidatedDeadlineSeconds?: number;
  /** The Temporal payload codec of the ops codec endpoint, mounted when this and adminToken are given. */
  readonly codec?: PayloadCodec;
  /** Party-name retrieval of the litigation check; defaults to the PostgreSQL index over `db`. */
  readonly parties?: PartySearchIndex;
  /** Defaults to the local context reader (deterministic, no model). */
  readonly adjudicator?: MatchAdjudicator;
  /** Defaults to no workflow engine (live timeline fetches answer 503); see test/support/temporal.ts. */
  readonly timelineWorkflows?: TimelineWorkflows;
  /** Webhook deliveries' workflows (the real engine in the webhook tests); none by default. */
  readonly webhookWorkflows?: WebhookWorkflows;
  /** Whether a court portal is configured for live fetches (default false: refresh true answers 502). */
  readonly livePortal?: boolean;
  /** The outbox and watchdog bounds (default: the production defaults). */
  readonly watchdog?: WorkflowWatchdogBounds;
  /** METRICS_TOKEN of GET /ops/metrics (default unset: loopback callers only, the x-test-client header standing in for the socket). */
  readonly metricsToken?: string;
  /** Where refusals send callers (default https://billing.test/top-up and TEST_UPGRADE_URL); the service's defaults are dashboard pages. */
  readonly links?: { readonly topUpUrl: string; readonly upgradeUrl: string };
}

const DEFAULT_WATCHDOG: WorkflowWatchdogBounds = { startBoundMs: 120_000, maxRunMs: 1_800_000 };

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

export function buildTestApp(options: TestAppOptions): TestApp {
  const clock = options.clock ?? { now: () => new Date() };
  const { topUpUrl, upgradeUrl } = options.links ?? { topUpUrl: 'https://billing.test/top-up', upgradeUrl: TEST_UPGRADE_URL };
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const cache = options.cache ?? new MemoryCache(clock);
  const limiter = options.limiter ?? new MemoryRateLimiter(clock);
  const metrics = new PromMetrics();
  const application = wireApplication({
    db: options.db,
    cache,
    clock,
    ids: randomIds,
    logger,
    keyPrefixes: KEY_PREFIXES,
    keyHashSecret: KEY_HASH_SECRET,
    entitledTiers: options.entitledTiers ?? ['enterprise'],
    keyCachePollMs: 50,
    longestCallMs: (options.consolidatedDeadlineSeconds ?? 120) * 1000,
    metrics,
    ...(options.readCoverage ? { readCoverage: options.readCoverage } : {}),
  });
  const real: DependencyProbe[] = [
    ...postgresProbes(options.db, 'pglite'),
    { name: 'cache', hard: false, backend: 'memory', check: (s) => cache.ping(s) },
  ];
  const clientAddress = (c: { req: { header(name: string): string | undefined } }) => c.req.header(TEST_CLIENT_HEADER) ?? '127.0.0.1';
  const failedAttempts = (scope: string, maxFailures: number) =>
    new FailedAttemptThrottle({
      limiter,
      clock,
      scope,
      maxFailures,
      windowMs: options.failedAttempts?.windowMs ?? 60_000,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; failed attempt not counted'),
      onBlocked: (source) => logger.warn({ scope, source }, 'too many failed attempts'),
    });
  const adminTokenAttempts = { failures: failedAttempts('admin-token', options.failedAttempts?.adminTokens ?? 5), clientAddress };
  const gate: ApiKeyGateDeps = {
    mode: 'live',
    keyMode: (key) => application.codec.modeOf(key),
    authenticator: application.authenticator,
    allowlists: application.allowlists,
    limiter,
    distinctKeys: options.distinctKeys ?? new MemoryDistinctCounter(clock),
    keyFailures: failedAttempts('api-key', options.failedAttempts?.keys ?? 20),
    clientAddress,
    clock,
    onStoreFailure: () => undefined,
    audit: { recorder: application.audit, basePath: BASE, onFailure: (err) => logger.error({ err }, 'audit event could not be written') },
  };
  const auditQueries = new AuditQueries(options.analytics ?? analyticsNotConfigured);
  const embedder = options.embedder ?? testEmbedder();
  const signer = new DocumentLinkSigner(KEY_HASH_SECRET, clock);
  const documents =
    options.documents ??
    new LocalDocumentStorage({
      root: mkdtempSync(join(tmpdir(), 'court-docs-')),
      publicBaseUrl: options.publicBaseUrl ?? TEST_PUBLIC_BASE_URL,
      signer,
    });
  const research = wireResearch({
    db: options.db,
    application,
    index: options.index ?? new PostgresSearchIndex(options.db),
    embedder,
    vectors: options.vectors ?? new PostgresVectorIndex(options.db, { model: embedder.model, dimensions: embedder.dimensions }),
    onVectorFailure: (err) => logger.warn({ err }, 'vector search failed; answering from the keyword index'),
    restrictions: options.restrictions ?? new PostgresCaseRestrictions(options.db),
    onRestrictionCheckFailure: (err) => logger.error({ err }, 'restricted-record check failed; search page answered masked'),
    documents,
    documentLinks: options.documents ? null : signer,
    counter: gate.distinctKeys,
    clock,
    secret: KEY_HASH_SECRET,
    topUpUrl,
    corpusDir,
  });
  const analysis = wireAnalysis({
    db: options.db,
    application,
    cases: research.cases,
    documents,
    workflows: options.workflows ?? unavailableAnalysisWorkflows,
    remoteFetchAllowlist: options.remoteFetchAllowlist ?? ['sci.gov.in', '*.sci.gov.in', '*.gov.in', '*.nic.in'],
    scDocumentsBaseUrl: options.scDocumentsBaseUrl ?? 'https://main.sci.gov.in',
    consolidatedDeadlineSeconds: options.consolidatedDeadlineSeconds ?? 120,
    clock,
    watchdog: options.watchdog ?? DEFAULT_WATCHDOG,
    onStartFailure: (runId, err) => logger.warn({ runId, err }, 'analysis workflow start failed'),
    onDispatchError: (runId, err) => logger.warn({ runId, err }, 'analysis run dispatch failed'),
  });
  const timeline = wireTimeline({
    db: options.db,
    application,
    cases: research.cases,
    workflows: options.timelineWorkflows ?? unavailableTimelineWorkflows,
    livePortal: options.livePortal ?? false,
    clock,
    ids: randomIds,
    watchdog: options.watchdog ?? DEFAULT_WATCHDOG,
    onStartFailure: (requestId, err) => logger.warn({ requestId, err }, 'timeline workflow start failed'),
    onDispatchError: (requestId, err) => logger.warn({ requestId, err }, 'timeline dispatch failed'),
  });
  const screening = wireScreening({
    db: options.db,
    application,
    parties: options.parties ?? new PostgresSearchIndex(options.db),
    adjudicator: options.adjudicator ?? new LocalContextAdjudicator(),
    limiter,
    counter: gate.distinctKeys,
    clock,
    secret: KEY_HASH_SECRET,
    topUpUrl,
    upgradeUrl,
    logger,
  });
  // Tests deliver to receivers on loopback over http: the development setting.
  const webhooks = wireWebhooks({
    db: options.db,
    store: application.store,
    clock,
    ids: randomIds,
    keyHashSecret: KEY_HASH_SECRET,
    allowInsecureUrls: true,
    timeoutMs: 2_000,
    maxResponseBytes: 65_536,
    userAgent: 'court-records-webhooks/test',
    workflows: options.webhookWorkflows ?? unavailableWebhookWorkflows,
    onDispatchError: (deliveryId, err) => logger.warn({ deliveryId, err }, 'webhook dispatch failed'),
  });
  const app = createApp({
    basePath: BASE,
    version: options.version ?? '0.1.0-test',
    logger,
    ids: randomIds,
    health: {
      probes: options.probes ? options.probes(real) : real,
      version: options.version ?? '0.1.0-test',
      commit: 'test',
      startedAt: clock.now(),
      now: () => clock.now(),
      onProbeFailure: () => undefined,
    },
    coverage: { service: application.coverage, corsOrigins: ['https://www.example-court-records.in'] },
    publicRateLimit: {
      limiter,
      perMinute: options.perMinute ?? 1000,
      clock,
      clientAddress,
      onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; serving the public request'),
    },
    apiKeyGate: gate,
    audit: { queries: auditQueries, userOrganization: (userId) => findUserOrganization(options.db, userId) },
    usage: { credits: application.credits, queries: auditQueries, clock },
    settings: {
      accounts: application.accounts,
      sessions: application.sessions,
      clock,
      trustProxy: options.trustProxy ?? false,
      webhooks: webhooks.endpoints,
    },
    dashboard: {
      sessions: application.sessions,
      accounts: application.accounts,
      credits: application.credits,
      ledger: (range) => exportLedger(eventStoreOf(options.db), range),
      audit: auditQueries,
      usage: new UsageByDay(options.analytics ?? analyticsNotConfigured),
      webhooks: webhooks.endpoints,
      clock,
      trustProxy: options.trustProxy ?? false,
    },
    admin: {
      adminToken: options.adminToken,
      attempts: adminTokenAttempts,
      accounts: application.accounts,
      cases: application.cases,
      credits: application.credits,
    },
    research,
    analysis: {
      cases: research.cases,
      requests: analysis.requests,
      topUpUrl,
      upgradeUrl,
      basePath: BASE,
    },
    screening,
    timeline: {
      requests: timeline.requests,
      documents,
      topUpUrl,
      upgradeUrl,
      basePath: BASE,
    },
    temporalCodec: {
      // Mounted like the service's when the test hands it a codec, on the admin token.
      adminToken: options.codec === undefined ? undefined : options.adminToken,
      attempts: adminTokenAttempts,
      codec: options.codec ?? { encode: async (p) => p, decode: async (p) => p },
      uiOrigins: [],
    },
    metrics: {
      metrics,
      token: options.metricsToken,
      attempts: adminTokenAttempts,
      socketAddress: clientAddress,
      behindProxy: options.trustProxy ?? false,
    },
    scalarBundle: async () => new TextEncoder().encode('/* scalar bundle */'),
    inFlight: new InFlightRequests(),
  });
  return { app, application, logs, gate, research, analysis, timeline, webhooks, documents, metrics };
}
