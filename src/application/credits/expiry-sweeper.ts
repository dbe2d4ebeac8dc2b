/**
 * Runs the ledger's two expiries every `intervalMs`:
 * - `CreditsService.expireAllDue`: credits past their expiry leave the ledger (as
 *   `CreditsExpired` events) even on accounts no command touches, so the balance rows,
 *   finance exports and reconciliation agree with what is spendable. Commands expire lazily
 *   anyway, so a missed sweep delays the record, never lets expired credits be spent.
 * - `CreditsService.releaseLapsedHolds`: a hold its owner never settled or released (the
 *   process stopped mid-call) goes back to the account once it lapses.
 * One sweep at a time, across instances too: every API instance runs a sweeper, and
 * `oneAtATime` (a session advisory lock in the composition) lets one of them sweep while the
 * others skip their turn. Each expiry and release is decided on the account's locked row and
 * records nothing when already done, so the lock spares the work, not the correctness; a
 * sweeper killed mid-sweep loses the lock with its connection, and the next instance's turn
 * (within `intervalMs`) carries on. `stop` waits for the sweep running.
 */
import { PeriodicTask } from '../../scheduling/periodic-task.ts';
import type { CreditsService } from './credits-service.ts';

export interface SweepReport {
  readonly accounts: number;
  readonly expired: number;
  readonly lapsedHolds: number;
  readonly released: number;
}

export interface ExpirySweeperOptions {
  readonly intervalMs: number;
  /** Runs the sweep unless another instance is sweeping (then 'busy'). */
  readonly oneAtATime: (sweep: () => Promise<SweepReport>) => Promise<SweepReport | 'busy'>;
  readonly onSwept?: (result: SweepReport) => void;
  readonly onError: (error: unknown) => void;
}

export class CreditExpirySweeper {
  readonly #task: PeriodicTask;

  constructor(
    private readonly credits: Pick<CreditsService, 'expireAllDue' | 'releaseLapsedHolds'>,
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

  /** One sweep now, unless another instance is sweeping; what the timer runs. */
  sweep(): Promise<SweepReport | 'busy'> {
    return this.options.oneAtATime(() => this.#sweep());
  }

  async #sweep(): Promise<SweepReport> {
    const { accounts, expired } = await this.credits.expireAllDue();
    const { holds: lapsedHolds, released } = await this.credits.releaseLapsedHolds();
    const result = { accounts, expired, lapsedHolds, released };
    if (accounts > 0 || lapsedHolds > 0) this.options.onSwept?.(result);
    return result;
  }
}
