/** Counts hits per key in fixed windows. Shared stores let several instances agree. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /**
   * When the window ends, on the caller's clock (the one the limiter was given), so
   * `resetAt - clock.now()` is the wait to state in Retry-After. A store keeping its own
   * time (Redis) converts the wait it measured, not its own instant.
   */
  readonly resetAt: Date;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}
