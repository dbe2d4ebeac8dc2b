/**
 * Group commit per key: items submitted for one key while that key's previous batch is
 * being written wait, and are then written together as the next batch, so N callers on
 * one hot account cost one transaction, not N transactions queued on one row lock. A key
 * never has two batches in flight (the decision of a batch sees every earlier batch's
 * outcome); different keys flush concurrently. No timer: an idle key's first item is
 * written at once, and batches grow only as far as the writes are slower than arrivals.
 */
export type Flush<I, R> = (key: string, items: readonly I[]) => Promise<R[]>;

interface Pending<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export class KeyedBatcher<I, R> {
  readonly #queues = new Map<string, Pending<I, R>[]>();
  readonly #flushing = new Set<string>();

  constructor(
    private readonly flush: Flush<I, R>,
    private readonly maxBatch: number,
  ) {}

  submit(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.#queues.get(key);
      if (queue) queue.push({ item, resolve, reject });
      else this.#queues.set(key, [{ item, resolve, reject }]);
      if (!this.#flushing.has(key)) void this.#drain(key);
    });
  }

  async #drain(key: string): Promise<void> {
    this.#flushing.add(key);
    try {
      for (;;) {
        const queue = this.#queues.get(key);
        if (!queue || queue.length === 0) {
          this.#queues.delete(key);
          return;
        }
        const batch = queue.splice(0, this.maxBatch);
        try {
          const results = await this.flush(
            key,
            batch.map((p) => p.item),
          );
          batch.forEach((p, i) => p.resolve(results[i] as R));
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.#flushing.delete(key);
    }
  }
}
