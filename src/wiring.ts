/**
 * Builds the application layer over already-opened adapters: the event store with its
 * inline projections, account and session commands, the credit ledger, case restriction,
 * idempotency records, the audit recorder, the access caches and their invalidator, and
 * the coverage service. The entry points and the test harness share it, so tests exercise the
 * same object graph production runs.
 */
import type { Logger } from 'pino';
import { HmacApiKeyCodec } from './adapters/crypto/api-key-codec.ts';
import { ScryptPasswordHasher } from './adapters/crypto/scrypt-password-hasher.ts';
import { readCoverageAggregates } from './adapters/postgres/coverage-source.ts';
import { PostgresEventStore } from './adapters/postgres/event-store.ts';
import { PostgresSubjectKeys } from './adapters/postgres/subject-keys.ts';
import { WebCryptoPersonalDataSealer } from './adapters/crypto/personal-data-sealer.ts';
import type { SubjectKeys } from './ports/subject-keys.ts';
import { findAllowlist, findKeyByHash } from './adapters/postgres/key-lookup.ts';
import { AccountCacheInvalidator } from './application/access/account-cache-invalidator.ts';
import { AllowlistCache } from './application/access/allowlist-cache.ts';
import { KeyAuthenticator } from './application/access/key-authenticator.ts';
import { AccountsService } from './application/accounts/accounts-service.ts';
import { accountsReadModel } from './application/accounts/read-model.ts';
import { CoverageService } from './application/coverage/coverage-service.ts';
import { CaseRestrictionService } from './application/cases/case-restriction-service.ts';
import { SessionService } from './application/sessions/session-service.ts';
import { HashGate, type HashGateOptions } from './application/sessions/hash-gate.ts';
import { LoginThrottle } from './application/sessions/login-throttle.ts';
import { ACCOUNT_LOGIN_POLICY, ADDRESS_LOGIN_POLICY } from './domain/access/login-throttle.ts';
import { IdempotencyService } from './application/idempotency/idempotency-service.ts';
import { IdempotencyRecordSealer } from './application/idempotency/record-sealer.ts';
import { IDEMPOTENCY_LEASE_MS, inFlightTakeoverMs } from './domain/idempotency/idempotency.ts';
import { AuditRecorder } from './application/audit/audit-recorder.ts';
import { CreditsService } from './application/credits/credits-service.ts';
import { creditsReadModel } from './application/credits/read-model.ts';
import { analysisReadModel } from './application/analysis/read-model.ts';
import { AnalysisRequests } from './application/analysis/analysis-requests.ts';
import { AnalysisRuns } from './application/analysis/analysis-runs.ts';
import { AnalysisRunDispatcher } from './application/analysis/run-dispatcher.ts';
import type { AnalysisWorkflows } from './ports/analysis-workflows.ts';
import { timelineReadModel } from './application/timeline/read-model.ts';
import { StoredRecords } from './application/timeline/stored-records.ts';
import { TimelineDispatcher } from './application/timeline/timeline-dispatcher.ts';
import { TimelineJobs } from './application/timeline/timeline-jobs.ts';
import { TimelineRequests } from './application/timeline/timeline-requests.ts';
import type { TimelineWorkflows } from './ports/timeline-workflows.ts';
import type { Db, Trx } from './db/database.ts';
import type { EventStore } from './ports/event-store.ts';
import { allowedBy } from './domain/access/cidr.ts';
import type { Tier } from './domain/access/tiers.ts';
import { SearchCursorCodec } from './adapters/crypto/search-cursor-codec.ts';
import { watermarkTagger } from './adapters/crypto/watermark-tag.ts';
import { MarkedTexts } from './application/watermark/marked-texts.ts';
import { readStoredBenches } from './adapters/postgres/stored-benches.ts';
import { CaseReader } from './application/cases/case-reader.ts';
import { ReadQuotas } from './application/cases/read-quotas.ts';
import { Admission } from './application/admission/admission.ts';
import { Tickets } from './application/admission/tickets.ts';
import { JudgeDirectory } from './application/judges/judge-directory.ts';
import { CourtCodes } from './application/search/court-codes.ts';
import { KeywordSearch } from './application/search/keyword-search.ts';
import { SearchPages } from './application/search/search-pages.ts';
import { readHcJudgeProfiles } from './corpus/hc-judges.ts';
import { planInSteps } from './application/watermark/mark-in-steps.ts';
import { embed } from './domain/watermark/embed.ts';
import type { ResearchDeps } from './http/research-deps.ts';
import type { DistinctCounter } from './ports/distinct-counter.ts';
import type { DocumentLinkVerifier, DocumentStorage } from './ports/document-storage.ts';
import type { SearchIndex } from './ports/search-index.ts';
import type { Embedder } from './ports/embedder.ts';
import type { VectorIndex } from './ports/vector-index.ts';
import { SemanticSearch } from './application/search/semantic-search.ts';
import { RestrictionScreen } from './application/search/restriction-screen.ts';
import type { CaseRestrictions } from './ports/case-restrictions.ts';
import type { Cache } from './ports/cache.ts';
import { noMetrics, type Metrics } from './ports/metrics.ts';
import type { Clock, IdGenerator } from './ports/clock.ts';
import { failureSummary } from './application/screening/failure-summary.ts';
import { LitigationChecks } from './application/screening/litigation-checks.ts';
import { ScreeningAllowances } from './application/screening/screening-allowances.ts';
import { screenedNameKey } from './application/screening/screened-name-key.ts';
import { ScreeningService } from './application/screening/screening-service.ts';
import type { PartyRouteDeps } from './http/routes/party/index.ts';
import type { MatchAdjudicator } from './ports/match-adjudicator.ts';
import type { RateLimiter } from './ports/rate-limiter.ts';
import type { PartySearchIndex } from './ports/search-index.ts';
import { webhookEndpointsReadModel } from './application/webhooks/read-model.ts';
import { WebhookEndpoints } from './application/webhooks/webhook-endpoints.ts';
import { WebhookDeliveries } from './application/webhooks/webhook-deliveries.ts';
import { WebhookDispatcher } from './application/webhooks/webhook-dispatcher.ts';
import { webhookOutbox } from './application/webhooks/webhook-outbox.ts';
import { AccountEvents } from './application/webhooks/account-events.ts';
import { HttpWebhookSender } from './adapters/webhooks/http-webhook-sender.ts';
import { webhookSecrets } from './adapters/webhooks/signing.ts';
import type { WebhookWorkflows } from './ports/webhooks.ts';
import type { EndpointDisabling, FairDeliveryLimits } from './domain/webhook/fair-delivery.ts';
import type { Resolver } from './adapters/network/address-guard.ts';

/** Every inline projection, in one list: the API and the worker must keep the same read models in step. */
export function eventStoreOf(db: Db, subjectKeys: SubjectKeys<Trx> = new PostgresSubjectKeys(db)): PostgresEventStore {
  return new PostgresEventStore(
    db,
    [accountsReadModel, creditsReadModel, analysisReadModel, timelineReadModel, webhookEndpointsReadModel],
    new WebCryptoPersonalDataSealer(subjectKeys),
  );
}

export interface WiringOptions {
  readonly db: Db;
  readonly cache: Cache;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The live prefix, then the test prefix (API_KEY_PREFIXES). */
  readonly keyPrefixes: readonly [string, string];
  readonly keyHashSecret: string;
  readonly entitledTiers: readonly Tier[];
  readonly keyCachePollMs: number;
  /** The longest a call may run (a consolidated analysis's deadline): Idempotency-Key records in flight outlast it. */
  readonly longestCallMs: number;
  readonly readCoverage?: typeof readCoverageAggregates;
  /** The process's one Metrics (compose.ts); tools and benches that nobody scrapes leave it out. */
  readonly metrics?: Metrics;
  /** The shared rate-limit store: failed logins are counted in it. */
  readonly limiter: RateLimiter;
  /** Password hashes run at once for logins, and logins that may wait for one (LOGIN_HASH_*). */
  readonly loginHashes: HashGateOptions;
}

export function wireApplication(options: WiringOptions) {
  const { db, clock, logger } = options;
  const subjectKeys = new PostgresSubjectKeys(db);
  const store = eventStoreOf(db, subjectKeys);
  const codec = new HmacApiKeyCodec(options.keyPrefixes, options.keyHashSecret);
  const passwords = new ScryptPasswordHasher();
  const accounts = new AccountsService({ db, store, clock, ids: options.ids, keys: codec, passwords, subjectKeys });
  const throttle = new LoginThrottle({
    limiter: options.limiter,
    clock,
    account: ACCOUNT_LOGIN_POLICY,
    address: ADDRESS_LOGIN_POLICY,
    onStoreFailure: (err) => logger.warn({ err }, 'rate-limit store failed; failed login not counted'),
    onLocked: (scope, source, until) => logger.warn({ scope, source, until }, 'too many failed logins: locked until the time given'),
  });
  const sessions = new SessionService({ db, clock, passwords, throttle, hashGate: new HashGate(options.loginHashes) });
  const cases = new CaseRestrictionService({ db, store, clock });
  const authenticator = new KeyAuthenticator({
    codec,
    lookup: (hash) => findKeyByHash(db, hash),
    policy: { entitledTiers: options.entitledTiers },
    clock,
  });
  const allowlists = new AllowlistCache({
    lookup: (organizationId) => findAllowlist(db, organizationId),
    matches: allowedBy,
    clock,
    onLookupFailure: (organizationId, err) => logger.warn({ organizationId, err }, 'allowlist lookup failed'),
  });
  const invalidator = new AccountCacheInvalidator(store, authenticator, allowlists, {
    pollMs: options.keyCachePollMs,
    onError: (err) => logger.warn({ err }, 'access cache invalidation poll failed'),
  });
  const coverage = new CoverageService({
    read: () => (options.readCoverage ?? readCoverageAggregates)(db),
    cache: options.cache,
    clock,
    onRefreshFailure: (err) => logger.warn({ err }, 'coverage refresh failed'),
  });
  // Stored replies quote what was searched or screened: sealed at rest, fingerprints keyed.
  const idempotency = new IdempotencyService({
    store,
    transaction: (work) => db.transaction().execute(work),
    clock,
    sealer: new IdempotencyRecordSealer(options.keyHashSecret),
    leaseMs: IDEMPOTENCY_LEASE_MS,
    legacyTakeoverAfterMs: inFlightTakeoverMs(options.longestCallMs),
  });
  const audit = new AuditRecorder({ store, ids: options.ids });
  const metrics = options.metrics ?? noMetrics;
  const credits = new CreditsService({ db, store, clock, ids: options.ids, metrics });
  const tickets = new Tickets({ credits });
  return {
    store,
    codec,
    accounts,
    sessions,
    cases,
    authenticator,
    allowlists,
    invalidator,
    coverage,
    idempotency,
    audit,
    credits,
    tickets,
    metrics,
  };
}

export type Application = ReturnType<typeof wireApplication>;

export interface ResearchWiringOptions {
  readonly db: Db;
  readonly application: Application;
  readonly index: SearchIndex;
  readonly embedder: Embedder;
  readonly vectors: VectorIndex;
  /** A vector path that failed (the answer then comes from the keyword index). */
  readonly onVectorFailure: (error: unknown) => void;
  /** The restricted-record check of search pages (the case store's flag in production). */
  readonly restrictions: CaseRestrictions;
  /** A restricted-record check that failed or timed out (that page was answered masked). */
  readonly onRestrictionCheckFailure: (error: unknown) => void;
  readonly documents: DocumentStorage;
  readonly documentLinks: DocumentLinkVerifier | null;
  /** Holds the per-account read quotas (Redis in production). */
  readonly counter: DistinctCounter;
  readonly clock: Clock;
  /** Signs search cursors and keys the account watermarks; the key-hash secret serves, under distinct labels. */
  readonly secret: string;
  readonly topUpUrl: string;
  readonly corpusDir: string | undefined;
}

/** Case texts planned for marking, kept per process (a plan holds about six bytes a character): see marked-texts.ts. */
const PLANNED_TEXT_CHARS = 8_000_000;
/** Marked case texts kept per process, as the JSON bytes a read writes. */
const MARKED_TEXT_BYTES = 32_000_000;

/** The research routes' object graph (search, judges, cases, PDFs), shared by the service and the tests. */
export function wireResearch(options: ResearchWiringOptions): ResearchDeps {
  const { db, clock } = options;
  const cases = new CaseReader(db);
  const tagOf = watermarkTagger(options.secret);
  const markedTexts = new MarkedTexts({ plan: planInSteps, tagOf, planChars: PLANNED_TEXT_CHARS, markedBytes: MARKED_TEXT_BYTES });
  const courts = new CourtCodes({ cases, clock });
  const screen = new RestrictionScreen({ cases, restrictions: options.restrictions, onDegraded: options.onRestrictionCheckFailure });
  const keyword = new KeywordSearch({ index: options.index, screen, courts });
  const semantic = new SemanticSearch({
    embedder: options.embedder,
    vectors: options.vectors,
    keyword,
    screen,
    courts,
    onVectorFailure: options.onVectorFailure,
  });
  const admission = new Admission({ credits: options.application.credits, quotas: new ReadQuotas({ counter: options.counter, clock }) });
  return {
    cases,
    judges: new JudgeDirectory({
      storedBenches: () => readStoredBenches(db),
      profiles: () => readHcJudgeProfiles(options.corpusDir),
      clock,
    }),
    searchPages: new SearchPages({ admission, cursors: new SearchCursorCodec(options.secret), keyword, semantic }),
    documents: options.documents,
    documentLinks: options.documentLinks,
    admission,
    topUpUrl: options.topUpUrl,
    idempotency: options.application.idempotency,
    watermark: (accountId, text) => embed(text, tagOf(accountId)),
    markedJson: (accountId, text) => markedTexts.markedJson(accountId, text),
    clock,
  };
}

export interface AnalysisWiringOptions {
  readonly db: Db;
  readonly application: Application;
  readonly cases: CaseReader;
  readonly documents: DocumentStorage;
  readonly workflows: AnalysisWorkflows;
  readonly remoteFetchAllowlist: readonly string[];
  readonly scDocumentsBaseUrl: string;
  readonly consolidatedDeadlineSeconds: number;
  readonly clock: Clock;
  readonly watchdog: WorkflowWatchdogBounds;
  /** The engine failed a run's start or its caller's wait (the run was failed and refunded). */
  readonly onStartFailure: (runId: string, error: unknown) => void;
  /** A run the outbox or watchdog could not settle this pass. */
  readonly onDispatchError: (runId: string, error: unknown) => void;
}

/** How long admitted work may wait for the workflow engine before its credits go back (see run-dispatcher.ts). */
export interface WorkflowWatchdogBounds {
  /** An unstarted run or fetch older than this is failed and refunded; a started one is then checked against the engine. */
  readonly startBoundMs: number;
  /** The workflows' execution timeout: older work is failed and refunded whatever the engine says. */
  readonly maxRunMs: number;
}

/**
 * The outbox and watchdog timings both dispatchers share. The grace is long enough that a
 * start in flight is not raced, short enough that a crash costs seconds; started work is
 * checked against the engine from the same age at which unstarted work is given up.
 */
function dispatchTimings(watchdog: WorkflowWatchdogBounds) {
  return { graceMs: 15_000, startBoundMs: watchdog.startBoundMs, orphanCheckMs: watchdog.startBoundMs, maxRunMs: watchdog.maxRunMs };
}
/** How long a live fetch's hold may stay open: past the watchdog's bound on the fetch, so the watchdog always releases it first. */
export function liveFetchHoldMs(watchdog: WorkflowWatchdogBounds): number {
  return watchdog.maxRunMs + 10 * 60_000;
}
/** How long past its deadline a consolidated run's caller is given to fail it before the watchdog does. */
const CONSOLIDATED_SLACK_MS = 120_000;

/** Analysis runs, the requests the routes make and the outbox dispatcher, shared by the service, the worker and the tests. */
export function wireAnalysis(options: AnalysisWiringOptions) {
  const { db, application, clock } = options;
  const runs = new AnalysisRuns({
    db,
    store: application.store,
    credits: application.credits,
    tickets: application.tickets,
    clock,
    metrics: application.metrics,
  });
  const requests = new AnalysisRequests({
    db,
    cases: options.cases,
    runs,
    credits: application.credits,
    documents: options.documents,
    workflows: options.workflows,
    remoteFetchAllowlist: options.remoteFetchAllowlist,
    scDocumentsBaseUrl: options.scDocumentsBaseUrl,
    consolidatedDeadlineSeconds: options.consolidatedDeadlineSeconds,
    onStartFailure: options.onStartFailure,
  });
  const dispatcher = new AnalysisRunDispatcher({
    runs,
    workflows: options.workflows,
    clock,
    ...dispatchTimings(options.watchdog),
    consolidatedMaxMs: options.consolidatedDeadlineSeconds * 1000 + CONSOLIDATED_SLACK_MS,
    onRunError: options.onDispatchError,
  });
  return { runs, requests, dispatcher };
}

export type AnalysisWiring = ReturnType<typeof wireAnalysis>;

export interface TimelineWiringOptions {
  readonly db: Db;
  readonly application: Application;
  readonly cases: CaseReader;
  readonly workflows: TimelineWorkflows;
  /** Whether COURT_PORTAL_URL is set: without a portal, live fetches are refused before anything is charged. */
  readonly livePortal: boolean;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly watchdog: WorkflowWatchdogBounds;
  /** A workflow start that failed after admission (the job was failed and its hold released). */
  readonly onStartFailure: (requestId: string, error: unknown) => void;
  /** A job the outbox or watchdog could not settle this pass. */
  readonly onDispatchError: (requestId: string, error: unknown) => void;
}

/** Timeline jobs, the requests the routes make and the live-fetch outbox dispatcher, shared by the service, the worker and the tests. */
export function wireTimeline(options: TimelineWiringOptions) {
  const { db, application, clock } = options;
  const records = new StoredRecords(db);
  const jobs = new TimelineJobs({
    db,
    store: application.store,
    credits: application.credits,
    tickets: application.tickets,
    clock,
    ids: options.ids,
    holdForMs: liveFetchHoldMs(options.watchdog),
    metrics: application.metrics,
  });
  const requests = new TimelineRequests({
    cases: options.cases,
    records,
    jobs,
    workflows: options.workflows,
    livePortal: options.livePortal,
    clock,
    onStartFailure: options.onStartFailure,
  });
  const dispatcher = new TimelineDispatcher({
    jobs,
    workflows: options.workflows,
    clock,
    ...dispatchTimings(options.watchdog),
    onJobError: options.onDispatchError,
  });
  return { records, jobs, requests, dispatcher };
}

export type TimelineWiring = ReturnType<typeof wireTimeline>;

export interface ScreeningWiringOptions {
  readonly db: Db;
  readonly application: Application;
  /** Party-name retrieval: the keyword index's adapter (both implement it). */
  readonly parties: PartySearchIndex;
  /** The OpenAI-compatible adjudicator when LLM_URL is set, else the local context reader. */
  readonly adjudicator: MatchAdjudicator;
  /** The shared rate-limit and distinct-counter stores (Redis in production). */
  readonly limiter: RateLimiter;
  readonly counter: DistinctCounter;
  readonly clock: Clock;
  /** Keys the distinct-name hashes; the key-hash secret serves, under its own label. */
  readonly secret: string;
  readonly topUpUrl: string;
  readonly upgradeUrl: string;
  readonly logger: Logger;
}

/** The litigation check routes' object graph, shared by the service and the tests. */
export function wireScreening(options: ScreeningWiringOptions): PartyRouteDeps {
  const { db, clock, logger } = options;
  const screening = new ScreeningService({
    db,
    parties: options.parties,
    courts: new CourtCodes({ cases: new CaseReader(db), clock }),
    adjudicator: options.adjudicator,
    // Only the stage and the error's class: a failure's message can quote the screened name.
    onFailure: (stage, err) => logger.warn({ stage, failure: failureSummary(err) }, 'litigation check stage failed'),
  });
  const checks = new LitigationChecks({
    screening,
    allowances: new ScreeningAllowances({ limiter: options.limiter, counter: options.counter, clock }),
    tickets: options.application.tickets,
    nameKey: screenedNameKey(options.secret),
    // Purpose, entity types, lengths and counts only: never a name, identifier, address or known person.
    record: (check) => logger.info({ check }, 'litigation check'),
    onItemFailure: (failure) => logger.error({ failure }, 'litigation check batch item failed'),
  });
  return { checks, clock, topUpUrl: options.topUpUrl, upgradeUrl: options.upgradeUrl };
}

export interface WebhookDeliveryOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** The service's key-hash secret: endpoint secrets are sealed under a key derived from it. */
  readonly keyHashSecret: string;
  /** Development setting: http endpoints, and deliveries to loopback and private addresses. */
  readonly allowInsecureUrls: boolean;
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly userAgent: string;
  /** When an endpoint that keeps failing is disabled. */
  readonly disabling: EndpointDisabling;
  /** Name resolution for the address guard; unset: the system's. */
  readonly resolver?: Resolver;
}

/** The attempts a webhook worker makes (the API process and the standalone worker both run them). */
export function webhookDeliveriesOf(options: WebhookDeliveryOptions): WebhookDeliveries {
  const sender = new HttpWebhookSender({
    timeoutMs: options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    addresses: options.allowInsecureUrls ? 'public-or-loopback' : 'public',
    resolver: options.resolver,
    userAgent: options.userAgent,
  });
  return new WebhookDeliveries({
    db: options.db,
    sender,
    secrets: webhookSecrets(options.keyHashSecret),
    clock: options.clock,
    disabling: options.disabling,
  });
}

export interface WebhookWiringOptions extends WebhookDeliveryOptions {
  readonly store: EventStore<Trx>;
  readonly ids: IdGenerator;
  readonly workflows: WebhookWorkflows;
  readonly fairness: FairDeliveryLimits;
  readonly onDispatchError: (deliveryId: string, error: unknown) => void;
  /** How long events (GET /events) are kept. */
  readonly eventRetentionDays: number;
}

/** A pending delivery unheard of this long has its workflow looked up: one lookup per waiting delivery per ten minutes at most. */
const WEBHOOK_WATCH_AFTER_MS = 10 * 60_000;

/** Endpoints (settings), the outbox projection, the attempts the worker makes and the dispatcher that starts and watches them. */
export function wireWebhooks(options: WebhookWiringOptions) {
  const endpoints = new WebhookEndpoints({
    db: options.db,
    store: options.store,
    secrets: webhookSecrets(options.keyHashSecret),
    clock: options.clock,
    ids: options.ids,
    allowInsecureUrls: options.allowInsecureUrls,
    pendingCap: options.fairness.pendingCap,
  });
  const deliveries = webhookDeliveriesOf(options);
  const dispatcher = new WebhookDispatcher({
    deliveries,
    workflows: options.workflows,
    clock: options.clock,
    watchAfterMs: WEBHOOK_WATCH_AFTER_MS,
    perAccountInFlight: options.fairness.perAccountInFlight,
    onDeliveryError: options.onDispatchError,
  });
  const events = new AccountEvents({ db: options.db, clock: options.clock, retentionDays: options.eventRetentionDays });
  return { endpoints, deliveries, dispatcher, events, outbox: webhookOutbox({ mode: 'live' }, options.fairness) };
}

export type WebhookWiring = ReturnType<typeof wireWebhooks>;
