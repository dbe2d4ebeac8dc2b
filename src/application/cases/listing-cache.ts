/**
 * Search listings kept per process, each with the version of the case row it was read
 * from (the row's change position, new on every write). A kept listing is handed out only
 * for the version the caller has just read from the store, so it can never be older than
 * the row: an edit or a restriction made by any instance changes the version, and the next
 * read misses and loads the row again. Bounded by entries; the least recently used go first.
 */
export class ListingCache<T> {
  readonly #kept = new Map<string, { readonly version: number; readonly value: T }>();

  constructor(private readonly maxEntries: number) {}

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
    this.#kept.delete(id);
    this.#kept.set(id, { version, value });
    if (this.#kept.size > this.maxEntries) this.#kept.delete(this.#kept.keys().next().value!);
  }
}
