/**
 * The screening limits, over the shared rate-limit and distinct-counter stores (Redis in
 * production, in process on embedded defaults):
 *
 * - a per-endpoint requests-per-minute window per key (the spec's Free 2, Pay As You Go
 *   10, Scale 30, Enterprise 60), a batch counting as one request;
 * - litigation checks per UTC calendar month per billing account (Free 10), one check per
 *   screened item, a batch admitted whole or not at all;
 * - distinct screened names per UTC day and per minute per billing account. Members are
 *   keyed hashes of the normalised names (see screened-name-key.ts), never the names. A
 *   name already screened today is free of both caps. The per-minute cap is ours (the
 *   spec names one without a figure): a tenth of the daily cap, never below the eight
 *   names one check may carry, so a single check always fits.
 *
 * Unlike the general rate limit, these fail closed: a store that cannot answer refuses
 * the call (`AllowanceStoreUnavailable`), since the caps are what stands between the API
 * and bulk harvesting of who is in litigation. Whatever a call was admitted for is handed
 * back with `undo` when the call then fails, so only calls that answered count.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.ts';

/** Name plus aliases: the most names one check screens. */
export const MAX_NAMES_PER_CHECK = 8;

export type ScreeningEndpoint = 'screen' | 'batch';

export type Undo = () => Promise<void>;

export type ChecksAdmission =
  /** `undo(n)` hands back n of the checks (all when n is left out), e.g. for items that failed. */
  { readonly admitted: true; readonly undo: (count?: number) => Promise<void> } | { readonly admitted: false; readonly remaining: number };

export interface NamesAdmission {
  /** Per item, in order: whether its names fit under the caps. */
  readonly admitted: readonly boolean[];
  /** Which cap turned an item away first, if any did. */
  readonly refusedBy: 'minute' | 'day' | null;
  /** Seconds until the cap that refused resets (0 when nothing was refused). */
  readonly retryAfterSeconds: number;
  /** Hands back the names one admitted item newly counted (e.g. its screening failed). */
  readonly undoItem: (index: number) => Promise<void>;
  readonly undo: Undo;
}

export class AllowanceStoreUnavailable extends Error {
  override readonly name = 'AllowanceStoreUnavailable';
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const NOTHING = async (): Promise<void> => undefined;

export function distinctNamesPerMinute(perDay: number | null): number | null {
  return perDay === null ? null : Math.min(perDay, Math.max(MAX_NAMES_PER_CHECK, Math.ceil(perDay / 10)));
}

export class ScreeningAllowances {
  constructor(private readonly deps: { readonly limiter: RateLimiter; readonly counter: DistinctCounter; readonly clock: Clock }) {}

  async hitRate(keyId: string, endpoint: ScreeningEndpoint, perMinute: number): Promise<RateLimitDecision> {
    return this.#guard(() => this.deps.limiter.hit(`screening-${endpoint}:${keyId}`, perMinute, MINUTE_MS));
  }

  /** Admits `count` checks this month (all or none); `cap` null is unlimited. */
  async admitChecks(accountId: string, requestId: string, count: number, cap: number | null): Promise<ChecksAdmission> {
    if (cap === null || count === 0) return { admitted: true, undo: NOTHING };
    const now = this.deps.clock.now();
    const month = now.toISOString().slice(0, 7);
    const resetAt = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const set = `screening-checks:${accountId}:${month}`;
    const ttl = Math.ceil((resetAt - now.getTime()) / 1000) + 3600;
    const added: string[] = [];
    const undo = (n = added.length) =>
      this.#guard(async () => {
        await Promise.all(added.splice(Math.max(0, added.length - n)).map((m) => this.deps.counter.remove(set, m)));
      });
    let size = 0;
    for (let i = 0; i < count; i += 1) {
      const member = `${requestId}:${i}`;
      const result = await this.#guard(() => this.deps.counter.add(set, member, ttl));
      if (result.isNew) added.push(member);
      size = result.size;
    }
    if (size > cap) {
      const remaining = Math.max(0, cap - (size - added.length));
      await undo();
      return { admitted: false, remaining };
    }
    return { admitted: true, undo };
  }

  /**
   * Admits each item's name keys in order under the day and minute caps. An item whose
   * new names would pass a cap is turned away whole (its names handed back); later items
   * are still tried, since one re-screening today's names costs nothing.
   */
  async admitNames(accountId: string, items: readonly (readonly string[])[], perDay: number | null): Promise<NamesAdmission> {
    const perMinute = distinctNamesPerMinute(perDay);
    if (perDay === null || perMinute === null)
      return { admitted: items.map(() => true), refusedBy: null, retryAfterSeconds: 0, undoItem: NOTHING, undo: NOTHING };
    const now = this.deps.clock.now();
    const day = now.toISOString().slice(0, 10);
    const dayEnds = Date.parse(`${day}T00:00:00Z`) + DAY_MS;
    const minuteStarts = now.getTime() - (now.getTime() % MINUTE_MS);
    const daySet = `screening-names:${accountId}:${day}`;
    const minuteSet = `screening-names-minute:${accountId}:${minuteStarts}`;
    const dayTtl = Math.ceil((dayEnds - now.getTime()) / 1000) + 3600;
    const added: [string, string][][] = [];
    const remove = (entries: readonly [string, string][]) =>
      this.#guard(async () => {
        await Promise.all(entries.map(([set, member]) => this.deps.counter.remove(set, member)));
      });
    const admitted: boolean[] = [];
    let refusedBy: 'minute' | 'day' | null = null;
    for (const keys of items) {
      const mine: [string, string][] = [];
      let refused: 'minute' | 'day' | null = null;
      for (const key of new Set(keys)) {
        const today = await this.#guard(() => this.deps.counter.add(daySet, key, dayTtl));
        if (!today.isNew) continue;
        mine.push([daySet, key]);
        if (today.size > perDay) {
          refused = 'day';
          break;
        }
        const minute = await this.#guard(() => this.deps.counter.add(minuteSet, key, 120));
        if (minute.isNew) mine.push([minuteSet, key]);
        if (minute.size > perMinute) {
          refused = 'minute';
          break;
        }
      }
      if (refused === null) {
        added.push(mine);
        admitted.push(true);
      } else {
        await remove(mine);
        added.push([]);
        admitted.push(false);
        refusedBy ??= refused;
      }
    }
    const resetAt = refusedBy === 'minute' ? minuteStarts + MINUTE_MS : dayEnds;
    return {
      admitted,
      refusedBy,
      retryAfterSeconds: refusedBy === null ? 0 : Math.max(1, Math.ceil((resetAt - now.getTime()) / 1000)),
      undoItem: (index) => remove(added[index]?.splice(0) ?? []),
      undo: () => remove(added.flatMap((entries) => entries.splice(0))),
    };
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new AllowanceStoreUnavailable('the screening allowance store did not answer', { cause: error });
    }
  }
}
