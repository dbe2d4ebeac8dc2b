/**
 * Group commit across keys: items submitted while earlier ones are being written wait, and
 * are then handed over together, grouped by key, so N callers cost one flush, not N
 * transactions. A key is never in two flushes at once (a key's items are decided on what
 * every earlier flush of that key left); different keys share a flush, and up to
 * `maxInFlight` flushes run at a time. No timer: the first item on an idle batcher is
 * flushed at once, and flushes grow only as far as the writes are slower than arrivals.
 *
 * A flush answers once it no longer needs its slot, with each key's results, or a promise of
 * them for a key it handed on to slower work of its own (a row another transaction holds):
 * such a key stays busy until its promise settles, without holding the others back.
 */
export type GroupFlush<I, R> = (groups: ReadonlyMap<string, readonly I[]>) => Promise<ReadonlyMap<string, R[] | Promise<R[]>>>;

interface Pending<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export interface BatchLimits {
  /** Items in one flush at most; the next flush takes the rest. */
  readonly maxItems: number;
  /** Flushes running at once at most. */
  readonly maxInFlight: number;
}

export class KeyedBatcher<I, R> {
  /** Waiting items by key, oldest key first (a key re-enters at the back once emptied). */
  readonly #queues = new Map<string, Pending<I, R>[]>();
  readonly #busy = new Set<string>();
  #inFlight = 0;

  constructor(
    private readonly flush: GroupFlush<I, R>,
    private readonly limits: BatchLimits,
  ) {}

  submit(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.#queues.get(key);
      if (queue) queue.push({ item, resolve, reject });
      else this.#queues.set(key, [{ item, resolve, reject }]);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.limits.maxInFlight) {
      const groups = this.#take();
      if (groups.size === 0) return;
      this.#inFlight += 1;
      void this.#run(groups);
    }
  }

  /** The waiting items of keys not in a flush, oldest key first, up to `maxItems`. */
  #take(): Map<string, Pending<I, R>[]> {
    const groups = new Map<string, Pending<I, R>[]>();
    let room = this.limits.maxItems;
    for (const [key, queue] of this.#queues) {
      if (room === 0) break;
      if (this.#busy.has(key)) continue;
      const taken = queue.splice(0, room);
      if (queue.length === 0) this.#queues.delete(key);
      groups.set(key, taken);
      this.#busy.add(key);
      room -= taken.length;
    }
    return groups;
  }

  async #run(groups: Map<string, Pending<I, R>[]>): Promise<void> {
    let outcomes: ReadonlyMap<string, R[] | Promise<R[]>> | undefined;
    let failure: unknown;
    try {
      outcomes = await this.flush(new Map([...groups].map(([key, pending]) => [key, pending.map((p) => p.item)])));
    } catch (error) {
      failure = error;
    }
    const later: Promise<void>[] = [];
    for (const [key, pending] of groups) {
      const outcome = outcomes?.get(key);
      if (outcome instanceof Promise) {
        later.push(this.#answer(key, pending, outcome));
        continue;
      }
      const error = outcomes === undefined ? failure : new Error(`a flush gave no outcome for key ${key}`);
      pending.forEach((p, i) => (outcome ? p.resolve(outcome[i] as R) : p.reject(error)));
      // Freed before the slot is reused, so the next flush can take this key's waiting items.
      this.#busy.delete(key);
    }
    this.#inFlight -= 1;
    this.#pump();
    await Promise.all(later);
  }

  async #answer(key: string, pending: readonly Pending<I, R>[], outcome: Promise<R[]>): Promise<void> {
    try {
      const results = await outcome;
      pending.forEach((p, i) => p.resolve(results[i] as R));
    } catch (error) {
      for (const p of pending) p.reject(error);
    } finally {
      this.#busy.delete(key);
      this.#pump();
    }
  }
}
