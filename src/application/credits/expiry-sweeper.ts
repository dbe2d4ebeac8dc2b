/**
 * Runs `CreditsService.expireAllDue` every `intervalMs`, so credits past their expiry leave
 * the ledger (as `CreditsExpired` events) even on accounts no command touches: the balance
 * rows, finance exports and reconciliation then agree with what is spendable. Commands
 * expire lazily anyway, so a missed sweep delays the record, never lets expired credits
 * be spent. One sweep at a time; `stop` waits for the one running.
 */
import { PeriodicTask } from '../periodic-task.ts';
import type { CreditsService } from './credits-service.ts';

export interface ExpirySweeperOptions {
  readonly intervalMs: number;
  readonly onSwept?: (result: { accounts: number; expired: number }) => void;
  readonly onError: (error: unknown) => void;
}

export class CreditExpirySweeper {
  readonly #task: PeriodicTask;

  constructor(
    private readonly credits: Pick<CreditsService, 'expireAllDue'>,
    private readonly options: ExpirySweeperOptions,
  ) {
    this.#task = new PeriodicTask(() => this.sweep(), { intervalMs: options.intervalMs, onError: options.onError });
  }

  start(): void {
    this.#task.start();
  }

  stop(): Promise<void> {
    return this.#task.stop();
  }

  /** One sweep now; what the timer runs. */
  async sweep(): Promise<{ accounts: number; expired: number }> {
    const result = await this.credits.expireAllDue();
    if (result.accounts > 0) this.options.onSwept?.(result);
    return result;
  }
}
