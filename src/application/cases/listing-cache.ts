/**
 * Values read from case rows (search listings, judgment texts) kept per process, each with
 * the version of the row it was read from (the row's change position, new on every write).
 * A kept value is handed out only for the version the caller has just read from the store,
 * so it can never be older than the row: an edit or a restriction made by any instance
 * changes the version, and the next read misses and loads the row again. Bounded by a
 * budget of weight (one per entry unless `weigh` says otherwise); the least recently used go first.
 */
export class ListingCache<T> {
  readonly #kept = new Map<string, { readonly version: number; readonly value: T; readonly weight: number }>();
  #weight = 0;

  constructor(
    private readonly budget: number,
    private readonly weigh: (value: T) => number = () => 1,
  ) {}

  /** The version kept for `id`, if any: the caller asks the store for the row only if it moved on. */
  versionOf(id: string): number | undefined {
    return this.#kept.get(id)?.version;
  }

  /** The value kept for `id` at exactly `version`, else undefined. */
  get(id: string, version: number): T | undefined {
    const entry = this.#kept.get(id);
    if (entry === undefined || entry.version !== version) return undefined;
    // Re-inserted: a Map iterates in insertion order, so the oldest entry is the least recently used.
    this.#kept.delete(id);
    this.#kept.set(id, entry);
    return entry.value;
  }

  set(id: string, version: number, value: T): void {
    this.#drop(id);
    const weight = this.weigh(value);
    // A value heavier than the whole budget is not kept: it would push every other out.
    if (weight > this.budget) return;
    this.#kept.set(id, { version, value, weight });
    this.#weight += weight;
    while (this.#weight > this.budget) this.#drop(this.#kept.keys().next().value!);
  }

  #drop(id: string): void {
    const entry = this.#kept.get(id);
    if (entry === undefined) return;
    this.#kept.delete(id);
    this.#weight -= entry.weight;
  }
}
