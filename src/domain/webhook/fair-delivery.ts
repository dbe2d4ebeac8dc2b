/**
 * The fairness policy of webhook delivery, as pure decisions over counts the store reads:
 * which waiting deliveries start next, whether a new fact may still queue a delivery, and
 * when an endpoint that keeps failing is disabled. Attempt slots are shared by every
 * account; without these bounds one account aiming many deliveries at a receiver that never
 * answers would hold them all and delay everyone else's.
 */

export interface FairDeliveryLimits {
  /** Deliveries of one account whose workflows run at once (attempting or waiting out a backoff). */
  readonly perAccountInFlight: number;
  /** Pending deliveries one account may have; a fact beyond it is recorded as dropped. */
  readonly pendingCap: number;
}

export interface WaitingDelivery {
  readonly deliveryId: string;
  readonly accountId: string;
}

/**
 * The deliveries to start, taken round-robin across accounts (one from each account in
 * turn, each account's oldest first) so an account's backlog never goes ahead of another
 * account's first delivery; no account beyond its in-flight limit; at most `budget` in all.
 * `waiting` is in the order of creation; `inFlight` counts each account's running ones.
 */
export function planStarts(
  waiting: readonly WaitingDelivery[],
  inFlight: ReadonlyMap<string, number>,
  perAccountInFlight: number,
  budget: number,
): WaitingDelivery[] {
  const queues = new Map<string, WaitingDelivery[]>();
  for (const delivery of waiting) {
    const queue = queues.get(delivery.accountId);
    if (queue) queue.push(delivery);
    else queues.set(delivery.accountId, [delivery]);
  }
  const room = new Map<string, number>();
  for (const accountId of queues.keys()) room.set(accountId, Math.max(0, perAccountInFlight - (inFlight.get(accountId) ?? 0)));
  const planned: WaitingDelivery[] = [];
  for (let progressed = true; progressed && planned.length < budget;) {
    progressed = false;
    for (const [accountId, queue] of queues) {
      if (planned.length >= budget) break;
      const left = room.get(accountId) ?? 0;
      const next = queue.shift();
      if (left === 0 || next === undefined) continue;
      planned.push(next);
      room.set(accountId, left - 1);
      progressed = true;
    }
  }
  return planned;
}

/** Whether a new fact may queue one more delivery for an account with `pending` already. */
export function admitsDelivery(pending: number, pendingCap: number): boolean {
  return pending < pendingCap;
}

/** Stripe's practice: an endpoint failing for days is switched off, not retried for ever (defaults in config.ts). */
export interface EndpointDisabling {
  /** Consecutive failed attempts (no answer, a non-2xx answer, a refused address) before it is disabled... */
  readonly afterFailures: number;
  /** ...and failing continuously for at least this long (the first of those failures to the last). */
  readonly afterMs: number;
}

export interface EndpointFailures {
  /** Consecutive failures, the one just recorded included. */
  readonly consecutive: number;
  /** When the first of them happened. */
  readonly since: Date;
}

/** The reason to disable an endpoint after this run of failures, or null to keep it. */
export function disablingReason(failures: EndpointFailures, now: Date, policy: EndpointDisabling): string | null {
  const failingMs = now.getTime() - failures.since.getTime();
  if (failures.consecutive < policy.afterFailures || failingMs < policy.afterMs) return null;
  const hours = Math.floor(failingMs / 3_600_000);
  return `${String(failures.consecutive)} consecutive failed attempts over ${hours >= 1 ? `${String(hours)} h` : 'less than an hour'}`;
}
