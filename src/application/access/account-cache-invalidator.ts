/**
 * Keeps this instance's access caches honest: polls the event store for account events
 * committed by any instance (never skipping a late commit) and drops what they touch.
 * Starts at the current head: a fresh cache has nothing older to forget.
 */
import { committedHead, readCommittedAfter, type Checkpoint } from '../../adapters/postgres/committed-events.ts';
import type { Db } from '../../db/database.ts';
import { ACCOUNT_EVENT_TYPES } from '../accounts/read-model.ts';
import type { AllowlistCache } from './allowlist-cache.ts';
import type { KeyAuthenticator } from './key-authenticator.ts';

export class AccountCacheInvalidator {
  #checkpoint: Checkpoint | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  #running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly keys: KeyAuthenticator,
    private readonly allowlists: AllowlistCache,
    private readonly options: { pollMs: number; onError: (error: unknown) => void },
  ) {}

  /** Reads what committed since the last poll and invalidates; returns events seen. */
  async poll(): Promise<number> {
    this.#checkpoint ??= await committedHead(this.db);
    const events = await readCommittedAfter(this.db, this.#checkpoint, 1000);
    const last = events[events.length - 1];
    if (!last) return 0;
    for (const event of events) {
      if (!ACCOUNT_EVENT_TYPES.includes(event.type as (typeof ACCOUNT_EVENT_TYPES)[number])) continue;
      this.keys.invalidateAll();
      const organizationId = (event.data as { organizationId?: unknown }).organizationId;
      if (typeof organizationId === 'string') this.allowlists.invalidate(organizationId);
    }
    this.#checkpoint = { transactionId: last.transactionId, globalPosition: last.globalPosition };
    return events.length;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    const tick = async (): Promise<void> => {
      try {
        while ((await this.poll()) > 0);
      } catch (error) {
        this.options.onError(error);
      }
      if (!this.#stopped) this.#timer = setTimeout(() => void (this.#running = tick()), this.options.pollMs);
    };
    this.#running = tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}
