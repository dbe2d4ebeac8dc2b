/**
 * Keeps this instance's access caches honest: polls the event store for account events
 * committed by any instance (never skipping a late commit) and drops what they touch.
 * Starts at the current head: a fresh cache has nothing older to forget.
 */
import type { Trx } from '../../db/database.ts';
import type { Checkpoint, EventStore } from '../../ports/event-store.ts';
import { PeriodicTask } from '../../scheduling/periodic-task.ts';
import { ACCOUNT_EVENT_TYPES } from '../accounts/read-model.ts';
import type { AllowlistCache } from './allowlist-cache.ts';
import type { KeyAuthenticator } from './key-authenticator.ts';

export class AccountCacheInvalidator {
  #checkpoint: Checkpoint | undefined;
  readonly #task: PeriodicTask;

  constructor(
    private readonly store: EventStore<Trx>,
    private readonly keys: KeyAuthenticator,
    private readonly allowlists: AllowlistCache,
    options: { pollMs: number; onError: (error: unknown) => void },
  ) {
    this.#task = new PeriodicTask(
      async () => {
        while (this.#task.active && (await this.poll()) > 0);
      },
      { intervalMs: options.pollMs, onError: options.onError },
    );
  }

  /** Reads what committed since the last poll and invalidates; returns events seen. */
  async poll(): Promise<number> {
    this.#checkpoint ??= await this.store.committedHead();
    // Only account events are read out: under load nearly every event is a charge or an audit row.
    const { events, through, scanned } = await this.store.readCommittedOfTypes(this.#checkpoint, 1000, ACCOUNT_EVENT_TYPES);
    for (const event of events) {
      this.keys.invalidateAll();
      const organizationId = (event.data as { organizationId?: unknown }).organizationId;
      if (typeof organizationId === 'string') this.allowlists.invalidate(organizationId);
    }
    if (through) this.#checkpoint = through;
    return scanned;
  }

  start(): void {
    this.#task.start();
  }

  stop(): Promise<void> {
    return this.#task.stop();
  }
}
