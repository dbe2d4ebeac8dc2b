/**
 * Keeps one long-running unit (a workflow worker) running: it is created and run, and when
 * it cannot be created, or its run ends without being asked to (a fatal error, the engine
 * lost), it is created again after a backoff. The process stays up meanwhile; `up` says
 * whether the unit runs now, so the health check and the metrics report it down honestly.
 */
import { endsWithin } from './ends-within.ts';

/** A created unit: `run` resolves or rejects when it ends; `shutdown` asks it to end. */
export interface SupervisedUnit {
  run(): Promise<unknown>;
  shutdown(): void;
}

export interface SupervisorOptions {
  /** Waits before the n-th consecutive restart (the last repeats). */
  readonly backoffMs: readonly number[];
  /** A unit up at least this long has recovered: the next failure waits the first backoff again. */
  readonly healthyAfterMs: number;
  readonly now: () => number;
  readonly onUp: (restarts: number) => void;
  readonly onDown: (error: unknown, retryInMs: number) => void;
}

export class Supervisor {
  #stopped = false;
  #unit: SupervisedUnit | undefined;
  #loop: Promise<void> = Promise.resolve();
  #wake: () => void = () => undefined;
  #lastError: unknown;

  constructor(
    private readonly create: () => Promise<SupervisedUnit>,
    private readonly options: SupervisorOptions,
  ) {}

  /** The unit runs now. */
  get up(): boolean {
    return this.#unit !== undefined;
  }

  /** Why it last went down (undefined before the first failure). */
  get lastError(): unknown {
    return this.#lastError;
  }

  start(): void {
    this.#loop = this.#supervise();
  }

  /** Asks the unit to end and waits for it at most `boundMs`; false when it had not ended by then. */
  stop(boundMs: number): Promise<boolean> {
    this.#stopped = true;
    this.#wake();
    this.#unit?.shutdown();
    return endsWithin(this.#loop, boundMs);
  }

  /** Read afresh after each await (a stop may have come meanwhile). */
  #stopping(): boolean {
    return this.#stopped;
  }

  async #supervise(): Promise<void> {
    let failures = 0;
    let restarts = 0;
    while (!this.#stopped) {
      let upSince: number | undefined;
      try {
        const unit = await this.create();
        // A unit created as the stop came is never run: it would poll a connection being closed.
        if (this.#stopping()) return;
        this.#unit = unit;
        upSince = this.options.now();
        this.options.onUp(restarts);
        await unit.run();
        if (this.#stopping()) return;
        this.#lastError = new Error('the unit ended without being stopped');
      } catch (error) {
        if (this.#stopping()) return;
        this.#lastError = error;
      } finally {
        this.#unit = undefined;
      }
      if (upSince !== undefined && this.options.now() - upSince >= this.options.healthyAfterMs) failures = 0;
      const { backoffMs } = this.options;
      const wait = backoffMs[Math.min(failures, backoffMs.length - 1)] ?? 0;
      failures += 1;
      restarts += 1;
      this.options.onDown(this.#lastError, wait);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
