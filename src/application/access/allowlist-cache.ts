/**
 * Organisation IP allowlists, cached up to one minute per organisation. When a lookup
 * fails: an organisation last seen in strict mode fails closed; any other (or one never
 * looked up successfully) fails open, as the spec requires.
 */
import type { Clock } from '../../ports/clock.ts';

export type AllowlistVerdict = 'allowed' | 'refused';

export interface AllowlistCacheDeps {
  readonly lookup: (organizationId: string) => Promise<{ allowlist: string[]; strict: boolean } | undefined>;
  readonly matches: (ranges: readonly string[], address: string) => boolean;
  readonly clock: Clock;
  readonly ttlMs?: number;
  readonly onLookupFailure: (organizationId: string, error: unknown) => void;
}

const DEFAULT_TTL_MS = 60_000;

export class AllowlistCache {
  readonly #entries = new Map<string, { allowlist: string[]; strict: boolean; loadedAt: number }>();
  /** Survives expiry: strictness seen at the last successful lookup decides failure mode. */
  readonly #lastStrict = new Map<string, boolean>();

  constructor(private readonly deps: AllowlistCacheDeps) {}

  async check(organizationId: string, address: string): Promise<AllowlistVerdict> {
    const now = this.deps.clock.now().getTime();
    let entry = this.#entries.get(organizationId);
    if (!entry || now - entry.loadedAt > (this.deps.ttlMs ?? DEFAULT_TTL_MS)) {
      try {
        const found = await this.deps.lookup(organizationId);
        entry = { allowlist: found?.allowlist ?? [], strict: found?.strict ?? false, loadedAt: now };
        this.#entries.set(organizationId, entry);
        this.#lastStrict.set(organizationId, entry.strict);
      } catch (error) {
        this.deps.onLookupFailure(organizationId, error);
        return this.#lastStrict.get(organizationId) === true ? 'refused' : 'allowed';
      }
    }
    if (entry.allowlist.length === 0) return 'allowed';
    return this.deps.matches(entry.allowlist, address) ? 'allowed' : 'refused';
  }

  invalidate(organizationId: string): void {
    this.#entries.delete(organizationId);
  }
}
