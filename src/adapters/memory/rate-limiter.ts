/**
 * In-process fixed-window limiter, the embedded default. Windows are aligned to the clock
 * (not to the first hit), so every instance computes the same reset time.
 */
import type { Clock } from '../../ports/clock.ts';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.ts';

export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, { windowStart: number; count: number }>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % windowMs);
    const current = this.#windows.get(key);
    const entry = current && current.windowStart === windowStart ? current : { windowStart, count: 0 };
    entry.count += 1;
    this.#windows.set(key, entry);
    if (this.#windows.size > 100_000) this.#evictBefore(windowStart);
    return {
      allowed: entry.count <= limit,
      limit,
      remaining: Math.max(0, limit - entry.count),
      resetAt: new Date(windowStart + windowMs),
    };
  }

  #evictBefore(windowStart: number): void {
    for (const [key, entry] of this.#windows) if (entry.windowStart < windowStart) this.#windows.delete(key);
  }
}
