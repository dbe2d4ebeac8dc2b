/**
 * Runs `CreditsService.expireAllDue` every `intervalMs`, so credits past their expiry leave
 * the ledger (as `CreditsExpired` events) even on accounts no command touches: the balance
 * rows, finance exports and reconciliation then agree with what is spendable. Commands
 * expire lazily anyway, so a missed sweep delays the record, never lets expired credits
 * be spent. One sweep at a time; `stop` waits for the one running.
 */
import type { CreditsService } from './credits-service.ts';

export interface ExpirySweeperOptions {
  readonly intervalMs: number;
  readonly onSwept?: (result: { accounts: number; expired: number }) => void;
  readonly onError: (error: unknown) => void;
}

export class CreditExpirySweeper {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(
    private readonly credits: Pick<CreditsService, 'expireAllDue'>,
    private readonly options: ExpirySweeperOptions,
  ) {}

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One sweep now; what the timer runs. */
  async sweep(): Promise<{ accounts: number; expired: number }> {
    const result = await this.credits.expireAllDue();
    if (result.accounts > 0) this.options.onSwept?.(result);
    return result;
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#running = this.sweep()
        .then(() => undefined)
        .catch(this.options.onError)
        .finally(() => {
          this.#running = undefined;
          if (!this.#stopped) this.#schedule(this.options.intervalMs);
        });
    }, delayMs);
    this.#timer.unref();
  }
}
