/**
 * The per-account read quotas of the case routes, over the distinct-counter port (Redis
 * in production, in-process on embedded defaults): distinct case details per UTC day
 * (re-reading a case already read today is free of the cap) and PDF links per UTC
 * calendar month. A call admitted here but failing later (e.g. a 402) hands its slot back
 * with `undo`, so only calls that answered count.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';

export type QuotaDecision =
  { readonly admitted: true; readonly undo: () => Promise<void> } | { readonly admitted: false; readonly retryAfterSeconds: number };

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
    const { size, isNew } = await this.deps.counter.add(set, member, ttlSeconds);
    const undo = isNew ? () => this.deps.counter.remove(set, member) : NOTHING_TO_UNDO;
    if (isNew && size > cap) {
      await undo();
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
    }
    return { admitted: true, undo };
  }
}
