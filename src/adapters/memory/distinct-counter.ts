/** In-process distinct counter, the embedded default. */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';

export class MemoryDistinctCounter implements DistinctCounter {
  readonly #sets = new Map<string, { members: Set<string>; expiresAt: number }>();

  constructor(private readonly clock: Clock) {}

  async add(set: string, member: string, ttlSeconds: number): Promise<{ size: number; isNew: boolean }> {
    const now = this.clock.now().getTime();
    let entry = this.#sets.get(set);
    if (!entry || entry.expiresAt <= now) {
      entry = { members: new Set(), expiresAt: now + ttlSeconds * 1000 };
      this.#sets.set(set, entry);
    }
    const isNew = !entry.members.has(member);
    entry.members.add(member);
    return { size: entry.members.size, isNew };
  }

  async remove(set: string, member: string): Promise<void> {
    this.#sets.get(set)?.members.delete(member);
  }
}
