/**
 * Runs work over items with at most `size` in flight, each starting as soon as one ends:
 * batch items and adjudication calls share one account's connection pool and a remote
 * model's rate limits, so neither runs unbounded.
 */
export async function forEachBounded<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
