/**
 * Slows guessing of secrets (API keys, the admin token): counts failed attempts per client
 * address in the shared rate-limit store, and once an address has used up its allowance in
 * the current window, says so until the window ends, so the caller refuses further attempts
 * before checking anything. Only failures are counted: a successful attempt costs nothing.
 *
 * The count is shared by every instance; whether an address is blocked is remembered in
 * process, learnt from the count each time this instance records a failure. An instance that
 * has not yet seen the address fail therefore lets it try once more per window, then knows.
 * That keeps the check before a lookup free of any store round trip.
 */
import { parseAddress } from '../../domain/access/cidr.ts';
import type { Clock } from '../../ports/clock.ts';
import type { RateLimiter } from '../../ports/rate-limiter.ts';

export interface FailedAttemptThrottleDeps {
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Names the counters in the shared store: key guesses and admin-token guesses count apart. */
  readonly scope: string;
  /** Failures one address may make per window; further attempts are refused until it ends. */
  readonly maxFailures: number;
  readonly windowMs: number;
  /** The store is down: the failure goes uncounted (fail open), as the other limits do. */
  readonly onStoreFailure: (error: unknown) => void;
  /** An address has just used up its allowance (once per window per instance): worth a log line. */
  readonly onBlocked: (source: string, until: Date) => void;
}

export interface Blocked {
  readonly until: Date;
  readonly retryAfterSeconds: number;
  readonly maxFailures: number;
}

/** Blocked addresses remembered at most; an evicted one is learnt again from the count at its next failure. */
const MAX_BLOCKED = 10_000;

/**
 * What is counted: an IPv4 address (also when written IPv4-mapped), or an IPv6 address's
 * /64: one IPv6 host usually holds a whole /64 and could otherwise take a fresh address per
 * attempt. Text that is no address at all is counted as it is.
 */
export function attemptSource(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  if (parsed.version === 4) return [24n, 16n, 8n, 0n].map((shift) => String((parsed.bits >> shift) & 0xffn)).join('.');
  const network = (parsed.bits >> 64n).toString(16).padStart(16, '0');
  return `${[0, 4, 8, 12].map((at) => network.slice(at, at + 4)).join(':')}::/64`;
}

export class FailedAttemptThrottle {
  /** Source to the end of its blocked window (epoch ms), oldest insertion first. */
  readonly #blocked = new Map<string, number>();

  constructor(private readonly deps: FailedAttemptThrottleDeps) {}

  /** Whether attempts from this address are refused now; no store round trip. */
  blocked(address: string): Blocked | undefined {
    const source = attemptSource(address);
    const until = this.#blocked.get(source);
    if (until === undefined) return undefined;
    const now = this.deps.clock.now().getTime();
    if (until <= now) {
      this.#blocked.delete(source);
      return undefined;
    }
    return { until: new Date(until), retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)), maxFailures: this.deps.maxFailures };
  }

  /** Counts one failure; the failure that uses up the allowance blocks the address for the rest of the window. */
  async recordFailure(address: string): Promise<void> {
    const source = attemptSource(address);
    let decision;
    try {
      decision = await this.deps.limiter.hit(`failed:${this.deps.scope}:${source}`, this.deps.maxFailures, this.deps.windowMs);
    } catch (error) {
      this.deps.onStoreFailure(error);
      return;
    }
    if (decision.allowed && decision.remaining > 0) return;
    const until = decision.resetAt.getTime();
    if (this.#blocked.get(source) !== until) this.deps.onBlocked(source, decision.resetAt);
    this.#block(source, until);
  }

  #block(source: string, until: number): void {
    this.#blocked.delete(source);
    if (this.#blocked.size >= MAX_BLOCKED) {
      const now = this.deps.clock.now().getTime();
      for (const [other, end] of this.#blocked) if (end <= now) this.#blocked.delete(other);
      const oldest = this.#blocked.keys().next();
      if (this.#blocked.size >= MAX_BLOCKED && !oldest.done) this.#blocked.delete(oldest.value);
    }
    this.#blocked.set(source, until);
  }
}
