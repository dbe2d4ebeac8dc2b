/**
 * Runs one async job every `intervalMs` after the previous run ends (the first at once),
 * one at a time; `stop` waits for the run in progress, and a job that loops (a projector
 * catching up batch by batch) checks `active` between steps so a stop is not held by a
 * long backlog. The timer does not keep the process alive.
 */
export class PeriodicTask {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;

  constructor(
    private readonly job: () => Promise<unknown>,
    private readonly options: { readonly intervalMs: number; readonly onError: (error: unknown) => void },
  ) {}

  /** Started and not stopped since. */
  get active(): boolean {
    return !this.#stopped;
  }

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

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#running = this.job()
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
