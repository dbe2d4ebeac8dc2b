/** A key-value cache with expiry: in process by default, Redis when REDIS_URL is set. */
export interface Cache {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  ping(signal: AbortSignal): Promise<void>;
}
