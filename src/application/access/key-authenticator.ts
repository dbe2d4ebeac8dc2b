/**
 * Authenticates an API key on the hot path without a database round trip per request:
 * shape and checksum first (no lookup), then the verified key record from an in-process
 * cache. Every account event that commits makes the whole cache stale (see the
 * invalidator), so a revocation reaches every instance within the invalidator's poll
 * interval.
 *
 * Only keys that exist are cached, evicted least recently used first: unknown keys are
 * never stored, so a flood of well-formed guesses cannot push a real key out (each guess
 * costs a lookup instead; the HTTP gate throttles failures per address). A stale entry no
 * longer answers, but still marks its key as one this instance has seen exist, so a caller
 * may ask for lookups of such keys only (`knownKeysOnly`) while refusing all others.
 */
import { decideAccess, type AccessPolicy, type AccessRefusal } from '../../domain/access/access.ts';
import { limitsFor, type Tier, type TierLimits } from '../../domain/access/tiers.ts';
import type { ApiKeyCodec, KeyRecord } from '../../ports/api-keys.ts';
import type { Clock } from '../../ports/clock.ts';

export interface Principal {
  readonly keyId: string;
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly role: 'MEMBER' | 'ORG_ADMIN';
  readonly tier: Tier;
  readonly organizationId: string | null;
  readonly limits: TierLimits;
}

/** LookupWithheld: `knownKeysOnly` was asked and the key is not one this instance has seen exist. */
export type AuthRefusal = 'InvalidFormat' | 'UnknownKey' | 'LookupWithheld' | 'StandingUnavailable' | AccessRefusal;
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; refusal: AuthRefusal };

export interface KeyAuthenticatorDeps {
  readonly codec: ApiKeyCodec;
  readonly lookup: (keyHash: string) => Promise<KeyRecord | undefined>;
  readonly policy: AccessPolicy;
  readonly clock: Clock;
  /** A safety net only: invalidation by events is what keeps entries current. */
  readonly ttlMs?: number;
  /** Keys cached at most (default 100,000); past it the least recently used is dropped. */
  readonly maxEntries?: number;
}

export interface AuthenticateOptions {
  /** Answer from the cache, or look up only keys seen to exist before; refuse the rest with LookupWithheld. */
  readonly knownKeysOnly?: boolean;
}

const DEFAULT_TTL_MS = 5 * 60_000;
const DEFAULT_MAX_ENTRIES = 100_000;

interface Entry {
  readonly record: KeyRecord;
  readonly loadedAt: number;
  /** The invalidation generation the lookup started in: an older one no longer answers. */
  readonly generation: number;
}

export class KeyAuthenticator {
  /** Keys that exist, by hash; Map order is use order, least recent first. */
  readonly #verified = new Map<string, Entry>();
  /** Bumped by every invalidation, which makes every entry stale, also a lookup still in flight. */
  #generation = 0;

  constructor(private readonly deps: KeyAuthenticatorDeps) {}

  async authenticate(presented: string, options: AuthenticateOptions = {}): Promise<AuthOutcome> {
    const form = await this.deps.codec.wellFormed(presented);
    if (form === 'bad-shape') return { ok: false, refusal: 'InvalidFormat' };
    if (form === 'bad-checksum') return { ok: false, refusal: options.knownKeysOnly ? 'LookupWithheld' : 'UnknownKey' };
    const hash = await this.deps.codec.hash(presented);
    const now = this.deps.clock.now();
    const entry = this.#touch(hash);
    let record = entry && this.#isCurrent(entry, now.getTime()) ? entry.record : undefined;
    if (record === undefined) {
      if (entry === undefined && options.knownKeysOnly) return { ok: false, refusal: 'LookupWithheld' };
      const generation = this.#generation;
      try {
        record = await this.deps.lookup(hash);
      } catch {
        return { ok: false, refusal: 'StandingUnavailable' };
      }
      if (record === undefined) {
        this.#verified.delete(hash);
        return { ok: false, refusal: 'UnknownKey' };
      }
      this.#remember(hash, { record, loadedAt: now.getTime(), generation });
    }
    const refusal = decideAccess(
      { key: record, user: record.user, organization: record.organization },
      this.deps.policy,
      now.toISOString(),
    );
    if (refusal) return { ok: false, refusal };
    const user = record.user!;
    return {
      ok: true,
      principal: {
        keyId: record.keyId,
        userId: user.userId,
        email: user.email,
        name: user.name,
        role: user.role,
        tier: user.tier,
        organizationId: record.organization?.organizationId ?? null,
        limits: limitsFor(user.tier, user.limitOverrides),
      },
    };
  }

  /** Every cached answer goes stale; the keys stay known (they existed), so they are looked up again. */
  invalidateAll(): void {
    this.#generation += 1;
  }

  #isCurrent(entry: Entry, now: number): boolean {
    return entry.generation === this.#generation && now - entry.loadedAt <= (this.deps.ttlMs ?? DEFAULT_TTL_MS);
  }

  /** The entry, moved to the most recently used end. */
  #touch(hash: string): Entry | undefined {
    const entry = this.#verified.get(hash);
    if (entry) {
      this.#verified.delete(hash);
      this.#verified.set(hash, entry);
    }
    return entry;
  }

  #remember(hash: string, entry: Entry): void {
    this.#verified.delete(hash);
    this.#verified.set(hash, entry);
    // Bounded by evicting the least recently used key, never by dropping them all.
    if (this.#verified.size > (this.deps.maxEntries ?? DEFAULT_MAX_ENTRIES)) this.#verified.delete(this.#verified.keys().next().value!);
  }
}
