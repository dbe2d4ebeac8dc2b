/** In-process cache, the embedded default: values are cloned so callers cannot mutate them. */
import type { Cache } from '../../ports/cache.ts';
import type { Clock } from '../../ports/clock.ts';

export class MemoryCache implements Cache {
  readonly #entries = new Map<string, { json: string; expiresAt: number }>();

  constructor(private readonly clock: Clock) {}

  async get<T>(key: string): Promise<T | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.#entries.delete(key);
      return undefined;
    }
    return JSON.parse(entry.json) as T;
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    this.#entries.set(key, { json: JSON.stringify(value), expiresAt: this.clock.now().getTime() + ttlSeconds * 1000 });
  }

  async ping(): Promise<void> {}
}
