/**
 * Authenticates an API key on the hot path without a database round trip per request:
 * shape and checksum first (no lookup), then the verified key record from an in-process
 * cache. The cache is dropped whenever an account event commits (see the invalidator), so
 * a revocation reaches every instance within the invalidator's poll interval.
 */
import type { KeyRecord } from '../../adapters/postgres/key-lookup.ts';
import { decideAccess, type AccessPolicy, type AccessRefusal } from '../../domain/access/access.ts';
import { limitsFor, type Tier, type TierLimits } from '../../domain/access/tiers.ts';
import type { ApiKeyCodec } from '../../ports/api-keys.ts';
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

export type AuthRefusal = 'InvalidFormat' | 'UnknownKey' | 'StandingUnavailable' | AccessRefusal;
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; refusal: AuthRefusal };

export interface KeyAuthenticatorDeps {
  readonly codec: ApiKeyCodec;
  readonly lookup: (keyHash: string) => Promise<KeyRecord | undefined>;
  readonly policy: AccessPolicy;
  readonly clock: Clock;
  /** A safety net only: invalidation by events is what keeps entries current. */
  readonly ttlMs?: number;
}

const DEFAULT_TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 100_000;

export class KeyAuthenticator {
  /** null records an unknown key, so a flood of well-formed guesses costs one lookup each. */
  readonly #cache = new Map<string, { record: KeyRecord | null; loadedAt: number }>();
  /** Bumped by every invalidation, so a lookup that raced one is not cached stale. */
  #generation = 0;

  constructor(private readonly deps: KeyAuthenticatorDeps) {}

  async authenticate(presented: string): Promise<AuthOutcome> {
    const form = await this.deps.codec.wellFormed(presented);
    if (form === 'bad-shape') return { ok: false, refusal: 'InvalidFormat' };
    if (form === 'bad-checksum') return { ok: false, refusal: 'UnknownKey' };
    const hash = await this.deps.codec.hash(presented);
    const now = this.deps.clock.now();
    let record = this.#fresh(hash, now.getTime());
    if (record === undefined) {
      const generation = this.#generation;
      try {
        record = (await this.deps.lookup(hash)) ?? null;
      } catch {
        return { ok: false, refusal: 'StandingUnavailable' };
      }
      if (generation === this.#generation) this.#remember(hash, record, now.getTime());
    }
    if (record === null) return { ok: false, refusal: 'UnknownKey' };
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

  invalidateAll(): void {
    this.#generation += 1;
    this.#cache.clear();
  }

  #remember(hash: string, record: KeyRecord | null, now: number): void {
    // Bounded: random guesses must not grow the map without end.
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    this.#cache.set(hash, { record, loadedAt: now });
  }

  #fresh(hash: string, now: number): KeyRecord | null | undefined {
    const entry = this.#cache.get(hash);
    if (!entry) return undefined;
    if (now - entry.loadedAt > (this.deps.ttlMs ?? DEFAULT_TTL_MS)) {
      this.#cache.delete(hash);
      return undefined;
    }
    return entry.record;
  }
}
