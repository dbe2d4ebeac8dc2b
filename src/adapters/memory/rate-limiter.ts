/**
 * In-process fixed-window limiter, the embedded default. Windows are aligned to the clock
 * (not to the first hit), so every instance computes the same reset time. Bounded: past
 * MAX_KEYS, ended windows go first, then the oldest keys (their counts start again), so a
 * flood of distinct keys (guessed emails, addresses) cannot grow the process without limit.
 */
import type { Clock } from '../../ports/clock.ts';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.ts';

const MAX_KEYS = 100_000;
/** Eviction goes down to this, so its scan is paid once per 10,000 new keys, not on every one. */
const EVICT_TO = 90_000;

export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { windowStart: number; windowMs: number; count: number }>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % windowMs);
    const current = this.#windows.get(key);
    const entry = current && current.windowStart === windowStart ? current : { windowStart, windowMs, count: 0 };
    entry.count += 1;
    this.#windows.set(key, entry);
    if (this.#windows.size > MAX_KEYS) this.#evict(now);
    return {
      allowed: entry.count <= limit,
      limit,
      remaining: Math.max(0, limit - entry.count),
      resetAt: new Date(windowStart + windowMs),
    };
  }

  #evict(now: number): void {
    for (const [key, entry] of this.#windows) if (entry.windowStart + entry.windowMs <= now) this.#windows.delete(key);
    for (const key of this.#windows.keys()) {
      if (this.#windows.size <= EVICT_TO) break;
      this.#windows.delete(key);
    }
  }
}
