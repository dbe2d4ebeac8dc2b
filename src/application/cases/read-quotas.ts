/**
 * The per-account read quotas of the case routes, over the distinct-counter port (Redis
 * in production, in-process on embedded defaults): distinct case details per UTC day
 * (re-reading a case already read today is free of the cap) and PDF links per UTC
 * calendar month. A call admitted here but failing later (e.g. a 402) hands its slot back
 * with `undo`, so only calls that answered count.
 *
 * The caps fail closed: when the store cannot answer, the call is refused before anything
 * is charged (`StoreUnavailable`), since a cap that lapses whenever the store is down is
 * no cap on bulk harvesting of the corpus. Handing a slot back is best effort: a slot the
 * store cannot take back stays used until the window ends, and the call's own answer is
 * what matters then.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';

export type QuotaDecision =
  | { readonly admitted: true; readonly undo: () => Promise<void> }
  | { readonly admitted: false; readonly refusal: 'CapReached'; readonly retryAfterSeconds: number }
  /** `cause` is for the log only. */
  | { readonly admitted: false; readonly refusal: 'StoreUnavailable'; readonly cause: unknown };

const DAY_MS = 86_400_000;
const NOTHING_TO_UNDO = async () => undefined;

export class ReadQuotas {
  constructor(private readonly deps: { readonly counter: DistinctCounter; readonly clock: Clock }) {}

  /** `cap` null is unlimited. */
  async admitCaseDetail(accountId: string, caseId: string, cap: number | null): Promise<QuotaDecision> {
    const now = this.deps.clock.now();
    const day = now.toISOString().slice(0, 10);
    const resetAt = Date.parse(`${day}T00:00:00Z`) + DAY_MS;
    return this.#admit(`case-details:${accountId}:${day}`, caseId, cap, now.getTime(), resetAt);
  }

  async admitPdfLink(accountId: string, requestId: string, cap: number | null): Promise<QuotaDecision> {
    const now = this.deps.clock.now();
    const month = now.toISOString().slice(0, 7);
    const resetAt = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    return this.#admit(`pdf-links:${accountId}:${month}`, requestId, cap, now.getTime(), resetAt);
  }

  async #admit(set: string, member: string, cap: number | null, now: number, resetAt: number): Promise<QuotaDecision> {
    if (cap === null) return { admitted: true, undo: NOTHING_TO_UNDO };
    const ttlSeconds = Math.ceil((resetAt - now) / 1000) + 3600;
    let counted;
    try {
      counted = await this.deps.counter.add(set, member, ttlSeconds);
    } catch (cause) {
      return { admitted: false, refusal: 'StoreUnavailable', cause };
    }
    const undo = counted.isNew ? () => this.deps.counter.remove(set, member).catch(() => undefined) : NOTHING_TO_UNDO;
    if (counted.isNew && counted.size > cap) {
      await undo();
      return { admitted: false, refusal: 'CapReached', retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    }
    return { admitted: true, undo };
  }
}
