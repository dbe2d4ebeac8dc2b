/**
 * Serves the coverage snapshot. It is computed from the case store, kept in the cache well
 * past its 6-hour freshness so a failed refresh can still serve the last snapshot (marked
 * stale), and refreshed by one caller at a time. No snapshot and a failed read: unavailable.
 */
import { buildCoverage, type CoverageAggregate, type CoverageSnapshot } from '../../domain/coverage/coverage.ts';
import type { Cache } from '../../ports/cache.ts';
import type { Clock } from '../../ports/clock.ts';

export const COVERAGE_TTL_SECONDS = 21_600;
const KEEP_SECONDS = 7 * 86_400;
const CACHE_KEY = 'coverage:snapshot:v1';

interface Cached {
  readonly snapshot: CoverageSnapshot;
  readonly cachedAt: string;
}

export interface CoverageView {
  readonly snapshot: CoverageSnapshot;
  readonly snapshotAgeSeconds: number;
  readonly cacheAgeSeconds: number;
  readonly stale: boolean;
}

export class CoverageUnavailableError extends Error {
  readonly tag = 'CoverageUnavailable';
}

export interface CoverageServiceDeps {
  readonly read: () => Promise<CoverageAggregate[]>;
  readonly cache: Cache;
  readonly clock: Clock;
  readonly onRefreshFailure: (error: unknown) => void;
}

export class CoverageService {
  #refreshing: Promise<Cached> | undefined;

  constructor(private readonly deps: CoverageServiceDeps) {}

  async current(): Promise<CoverageView> {
    const cached = await this.deps.cache.get<Cached>(CACHE_KEY).catch(() => undefined);
    if (cached && this.#ageSeconds(cached.snapshot.computedAt) < COVERAGE_TTL_SECONDS) return this.#view(cached, false);
    try {
      return this.#view(await this.refresh(), false);
    } catch (error) {
      this.deps.onRefreshFailure(error);
      if (cached) return this.#view(cached, true);
      throw new CoverageUnavailableError('coverage could not be read and no snapshot is cached');
    }
  }

  /** Recomputes now; concurrent callers share one computation. */
  refresh(): Promise<Cached> {
    this.#refreshing ??= this.#compute().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #compute(): Promise<Cached> {
    const snapshot = buildCoverage(await this.deps.read(), this.deps.clock.now());
    const cached = { snapshot, cachedAt: this.deps.clock.now().toISOString() };
    await this.deps.cache.set(CACHE_KEY, cached, KEEP_SECONDS).catch(this.deps.onRefreshFailure);
    return cached;
  }

  #ageSeconds(iso: string): number {
    return Math.max(0, Math.floor((this.deps.clock.now().getTime() - Date.parse(iso)) / 1000));
  }

  #view(cached: Cached, stale: boolean): CoverageView {
    return {
      snapshot: cached.snapshot,
      snapshotAgeSeconds: this.#ageSeconds(cached.snapshot.computedAt),
      cacheAgeSeconds: this.#ageSeconds(cached.cachedAt),
      stale,
    };
  }
}
