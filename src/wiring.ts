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
