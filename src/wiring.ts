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
import { findAllowlist, findKeyByHash } from './adapters/postgres/key-lookup.ts';
import { AccountCacheInvalidator } from './application/access/account-cache-invalidator.ts';
import { AllowlistCache } from './application/access/allowlist-cache.ts';
import { KeyAuthenticator } from './application/access/key-authenticator.ts';
import { AccountsService } from './application/accounts/accounts-service.ts';
import { accountsReadModel } from './application/accounts/read-model.ts';
import { CoverageService } from './application/coverage/coverage-service.ts';
import { CaseRestrictionService } from './application/cases/case-restriction-service.ts';
import { SessionService } from './application/sessions/session-service.ts';
import { IdempotencyService } from './application/idempotency/idempotency-service.ts';
import { AuditRecorder } from './application/audit/audit-recorder.ts';
import { CreditsService } from './application/credits/credits-service.ts';
import { creditsReadModel } from './application/credits/read-model.ts';
import type { Db } from './db/database.ts';
import { allowedBy } from './domain/access/cidr.ts';
import type { Tier } from './domain/access/tiers.ts';
import { SearchCursorCodec } from './adapters/crypto/search-cursor-codec.ts';
import { watermarkTagger } from './adapters/crypto/watermark-tag.ts';
import { readStoredBenches } from './adapters/postgres/stored-benches.ts';
import { CaseReader } from './application/cases/case-reader.ts';
import { ReadQuotas } from './application/cases/read-quotas.ts';
import { JudgeDirectory } from './application/judges/judge-directory.ts';
import { CourtCodes } from './application/search/court-codes.ts';
import { KeywordSearch } from './application/search/keyword-search.ts';
import { readHcJudgeProfiles } from './corpus/hc-judges.ts';
import { embed } from './domain/watermark/embed.ts';
import type { ResearchDeps } from './http/research-deps.ts';
import type { DistinctCounter } from './ports/distinct-counter.ts';
import type { DocumentLinkVerifier, DocumentStorage } from './ports/document-storage.ts';
import type { SearchIndex } from './ports/search-index.ts';
import type { Embedder } from './ports/embedder.ts';
import type { VectorIndex } from './ports/vector-index.ts';
import { SemanticSearch } from './application/search/semantic-search.ts';
import type { Cache } from './ports/cache.ts';
import type { Clock, IdGenerator } from './ports/clock.ts';

export interface WiringOptions {
  readonly db: Db;
  readonly cache: Cache;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly keyPrefixes: readonly [string, ...string[]];
  readonly keyHashSecret: string;
  readonly entitledTiers: readonly Tier[];
  readonly keyCachePollMs: number;
  readonly readCoverage?: typeof readCoverageAggregates;
}

export function wireApplication(options: WiringOptions) {
  const { db, clock, logger } = options;
  const store = new PostgresEventStore(db, [accountsReadModel, creditsReadModel]);
  const codec = new HmacApiKeyCodec(options.keyPrefixes, options.keyHashSecret);
  const passwords = new ScryptPasswordHasher();
  const accounts = new AccountsService({ db, store, clock, ids: options.ids, keys: codec, passwords });
  const sessions = new SessionService({ db, clock, passwords });
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
  const invalidator = new AccountCacheInvalidator(db, authenticator, allowlists, {
    pollMs: options.keyCachePollMs,
    onError: (err) => logger.warn({ err }, 'access cache invalidation poll failed'),
  });
  const coverage = new CoverageService({
    read: () => (options.readCoverage ?? readCoverageAggregates)(db),
    cache: options.cache,
    clock,
    onRefreshFailure: (err) => logger.warn({ err }, 'coverage refresh failed'),
  });
  const idempotency = new IdempotencyService({ store, clock });
  const audit = new AuditRecorder({ db, store, ids: options.ids });
  const credits = new CreditsService({ db, store, clock, ids: options.ids });
  return { store, codec, accounts, sessions, cases, authenticator, allowlists, invalidator, coverage, idempotency, audit, credits };
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

/** The research routes' object graph (search, judges, cases, PDFs), shared by the service and the tests. */
export function wireResearch(options: ResearchWiringOptions): ResearchDeps {
  const { db, clock } = options;
  const cases = new CaseReader(db);
  const tagOf = watermarkTagger(options.secret);
  const courts = new CourtCodes({ cases, clock });
  const keyword = new KeywordSearch({ index: options.index, cases, courts });
  return {
    cases,
    quotas: new ReadQuotas({ counter: options.counter, clock }),
    judges: new JudgeDirectory({
      storedBenches: () => readStoredBenches(db),
      profiles: () => readHcJudgeProfiles(options.corpusDir),
      clock,
    }),
    search: keyword,
    semantic: new SemanticSearch({
      embedder: options.embedder,
      vectors: options.vectors,
      keyword,
      cases,
      courts,
      onVectorFailure: options.onVectorFailure,
    }),
    cursors: new SearchCursorCodec(options.secret),
    documents: options.documents,
    documentLinks: options.documentLinks,
    charging: { credits: options.application.credits, topUpUrl: options.topUpUrl },
    idempotency: options.application.idempotency,
    watermark: (accountId, text) => embed(text, tagOf(accountId)),
    clock,
  };
}
