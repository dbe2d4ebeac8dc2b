/**
 * Slows password guessing: failed logins are counted per account (the normalised email,
 * whether or not it exists, so the answer never reveals which do) and per address block
 * (IPv4 /32, IPv6 /64) in the shared rate-limit store, Redis when configured, in process
 * otherwise. Each count decides, through the pure policy, how long the next attempt must
 * wait; that wait is remembered in process, so checking before an attempt costs no store
 * round trip. Another instance learns it at its own next failure from the shared count: with
 * k instances a guesser gets at most k attempts per wait, never a fresh allowance.
 *
 * A burst of guesses sent at once would all pass the check before the first failure is
 * counted, so an account is also checked one login at a time per instance: an attempt while
 * another for the same account is being checked is refused (`begin`).
 */
import { waitAfterFailures, type LoginThrottlePolicy } from '../../domain/access/login-throttle.ts';
import type { Clock } from '../../ports/clock.ts';
import type { RateLimiter } from '../../ports/rate-limiter.ts';
import { attemptSource } from '../access/failed-attempt-throttle.ts';

export interface LoginThrottleDeps {
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly account: LoginThrottlePolicy;
  readonly address: LoginThrottlePolicy;
  /** The store is down: the failure goes uncounted (fail open), as the other limits do. */
  readonly onStoreFailure: (error: unknown) => void;
  /** An account or block has just been locked: worth a log line. */
  readonly onLocked: (scope: 'account' | 'address', source: string, until: Date) => void;
}

export interface LoginRefusal {
  /** Locked (the lock period) or only delayed (the growing wait). */
  readonly locked: boolean;
  readonly scope: 'account' | 'address';
  readonly until: Date;
  readonly retryAfterSeconds: number;
}

/** Waits remembered at most, per scope; past it the oldest is dropped and learnt again at its next failure. */
const MAX_REMEMBERED = 10_000;

interface Wait {
  readonly until: number;
  readonly locked: boolean;
}

export class LoginThrottle {
  readonly #waits = { account: new Map<string, Wait>(), address: new Map<string, Wait>() };
  /** Accounts with a login being checked on this instance now; bounded by the logins in flight. */
  readonly #inFlight = new Set<string>();

  constructor(private readonly deps: LoginThrottleDeps) {}

  /** Whether an attempt for this email from this address must be refused now; the longer wait wins. */
  check(email: string, address: string): LoginRefusal | undefined {
    const now = this.deps.clock.now().getTime();
    const refusals = [this.#current('account', accountKey(email), now), this.#current('address', attemptSource(address), now)];
    const found = refusals.filter((r): r is LoginRefusal => r !== undefined);
    return found.sort((a, b) => b.until.getTime() - a.until.getTime())[0];
  }

  /**
   * Claims the account for one login check: a release to call once the attempt is decided,
   * or a refusal when another attempt for the account is being checked now.
   */
  begin(email: string): { release: () => void } | { refusal: LoginRefusal } {
    const account = accountKey(email);
    if (this.#inFlight.has(account)) {
      const until = new Date(this.deps.clock.now().getTime() + 1000);
      return { refusal: { locked: false, scope: 'account', until, retryAfterSeconds: 1 } };
    }
    this.#inFlight.add(account);
    return { release: () => this.#inFlight.delete(account) };
  }

  /** Counts one failure against the account and the address block. */
  async recordFailure(email: string, address: string): Promise<void> {
    await Promise.all([
      this.#count('account', accountKey(email), this.deps.account),
      this.#count('address', attemptSource(address), this.deps.address),
    ]);
  }

  #current(scope: 'account' | 'address', source: string, now: number): LoginRefusal | undefined {
    const wait = this.#waits[scope].get(source);
    if (wait === undefined) return undefined;
    if (wait.until <= now) {
      this.#waits[scope].delete(source);
      return undefined;
    }
    return {
      locked: wait.locked,
      scope,
      until: new Date(wait.until),
      retryAfterSeconds: Math.max(1, Math.ceil((wait.until - now) / 1000)),
    };
  }

  async #count(scope: 'account' | 'address', source: string, policy: LoginThrottlePolicy): Promise<void> {
    let failures: number;
    try {
      // The lock period is also the counting window: failures older than it are forgotten.
      const decision = await this.deps.limiter.hit(`failed:login-${scope}:${source}`, policy.lockAfter, policy.lockMs);
      // Past the limit remaining stays 0, so this reads as lockAfter: enough to lock.
      failures = decision.limit - decision.remaining;
    } catch (error) {
      this.deps.onStoreFailure(error);
      return;
    }
    const wait = waitAfterFailures(failures, policy);
    if (wait.kind === 'none') return;
    const until = this.deps.clock.now().getTime() + wait.ms;
    const waits = this.#waits[scope];
    const previous = waits.get(source);
    // A lock is not shortened by a later, smaller wait.
    if (previous !== undefined && previous.until >= until) return;
    if (wait.kind === 'lock' && !previous?.locked) this.deps.onLocked(scope, source, new Date(until));
    waits.delete(source);
    if (waits.size >= MAX_REMEMBERED) waits.delete(waits.keys().next().value!);
    waits.set(source, { until, locked: wait.kind === 'lock' });
  }
}

function accountKey(email: string): string {
  return email.trim().toLowerCase();
}
