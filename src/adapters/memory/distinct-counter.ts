/**
 * In-process distinct counter, the embedded default. Memory is bounded: sets past their
 * expiry are dropped (swept at most once a minute of clock time, and whenever the bound is
 * reached), and at `maxMembers` members in all the sets least recently added to are
 * evicted. An evicted set counts from zero again, so the bound is set well above what the
 * caps it serves ever hold; it only stops a flood of new addresses from growing the map.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';

const SWEEP_EVERY_MS = 60_000;
export const DEFAULT_MAX_MEMBERS = 200_000;

export class MemoryDistinctCounter implements DistinctCounter {
  /** In order of last addition (re-inserted on each add), so the first entries are the least recently used. */
  readonly #sets = new Map<string, { members: Set<string>; expiresAt: number }>();
  #members = 0;
  #nextSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxMembers = DEFAULT_MAX_MEMBERS,
  ) {}

  /** Sets held now, expired or not; for tests and metrics. */
  get sets(): number {
    return this.#sets.size;
  }

  /** Members held in all sets now. */
  get members(): number {
    return this.#members;
  }

  async add(set: string, member: string, ttlSeconds: number): Promise<{ size: number; isNew: boolean }> {
    const now = this.clock.now().getTime();
    if (now >= this.#nextSweep) this.#sweep(now);
    let entry = this.#sets.get(set);
    if (entry && entry.expiresAt <= now) {
      this.#drop(set);
      entry = undefined;
    }
    entry ??= { members: new Set(), expiresAt: now + ttlSeconds * 1000 };
    this.#sets.delete(set);
    this.#sets.set(set, entry);
    const isNew = !entry.members.has(member);
    if (isNew) {
      entry.members.add(member);
      this.#members += 1;
      if (this.#members > this.maxMembers) this.#shrink(now, set);
    }
    return { size: entry.members.size, isNew };
  }

  async remove(set: string, member: string): Promise<void> {
    if (this.#sets.get(set)?.members.delete(member)) this.#members -= 1;
  }

  #drop(set: string): void {
    const entry = this.#sets.get(set);
    if (!entry) return;
    this.#members -= entry.members.size;
    this.#sets.delete(set);
  }

  #sweep(now: number): void {
    for (const [set, entry] of this.#sets) if (entry.expiresAt <= now) this.#drop(set);
    this.#nextSweep = now + SWEEP_EVERY_MS;
  }

  /** Expired sets first, then the least recently added to, sparing the set just added to. */
  #shrink(now: number, current: string): void {
    this.#sweep(now);
    for (const set of this.#sets.keys()) {
      if (this.#members <= this.maxMembers) return;
      if (set !== current) this.#drop(set);
    }
  }
}
