/**
 * Auto-pagination: `for await (const hit of client.search.casesAutoPaginate({ query }))`
 * yields every item of every page, fetching the next page only when the loop reaches the
 * end of the one it holds, so a `break` stops the spending. Each page is its own call (with
 * its own Idempotency-Key, and charged as a page is).
 */
import type { RequestOptions } from './client.ts';

/** The per-call options of every page; a key per page is generated, so none can be given. */
export type AutoPaginateOptions = Omit<RequestOptions, 'idempotencyKey'>;

export interface AutoPaginated<T> extends AsyncIterable<T> {
  /** The first `limit` items (every item when no limit) in an array. */
  toArray(options?: { readonly limit?: number }): Promise<T[]>;
}

/**
 * `first` fetches the first page; `following` says how to fetch the page after one
 * (undefined on the last); `itemsOf` reads a page's items.
 */
export function autoPaginate<P, T>(
  first: () => Promise<P>,
  following: (page: P) => (() => Promise<P>) | undefined,
  itemsOf: (page: P) => readonly T[],
): AutoPaginated<T> {
  async function* items(): AsyncGenerator<T> {
    let fetchPage: (() => Promise<P>) | undefined = first;
    while (fetchPage !== undefined) {
      const page: P = await fetchPage();
      yield* itemsOf(page);
      fetchPage = following(page);
    }
  }
  return {
    [Symbol.asyncIterator]: items,
    toArray: async ({ limit = Number.POSITIVE_INFINITY } = {}) => {
      const collected: T[] = [];
      if (limit <= 0) return collected;
      for await (const item of items()) {
        collected.push(item);
        if (collected.length >= limit) break;
      }
      return collected;
    },
  };
}
