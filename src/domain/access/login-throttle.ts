/**
 * How long a password login must wait after failures, decided from the number of failures
 * counted in the current window. A few failures cost nothing (people mistype); past them each
 * further failure doubles the wait before the next attempt, up to a ceiling; at the lock
 * threshold attempts are refused outright for the lock period. Accounts and address blocks
 * are counted apart with policies of their own: an address block is shared by everyone behind
 * a NAT, so it gets more room than one account.
 */

export interface LoginThrottlePolicy {
  /** Failures in a window that add no wait. */
  readonly freeFailures: number;
  /** The wait after the first failure past the free ones; each later failure doubles it. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** The failure count at which attempts are refused for `lockMs`. */
  readonly lockAfter: number;
  readonly lockMs: number;
}

export type LoginWait =
  { readonly kind: 'none' } | { readonly kind: 'delay'; readonly ms: number } | { readonly kind: 'lock'; readonly ms: number };

export const ACCOUNT_LOGIN_POLICY: LoginThrottlePolicy = {
  freeFailures: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  lockAfter: 10,
  lockMs: 15 * 60_000,
};

export const ADDRESS_LOGIN_POLICY: LoginThrottlePolicy = {
  freeFailures: 10,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  lockAfter: 50,
  lockMs: 15 * 60_000,
};

/** The wait the `failures`-th failure imposes on the next attempt. */
export function waitAfterFailures(failures: number, policy: LoginThrottlePolicy): LoginWait {
  if (failures >= policy.lockAfter) return { kind: 'lock', ms: policy.lockMs };
  if (failures <= policy.freeFailures) return { kind: 'none' };
  const doublings = Math.min(failures - policy.freeFailures - 1, 30);
  return { kind: 'delay', ms: Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** doublings) };
}
