/**
 * Bounds the password hashes in flight. A scrypt hash holds one of libuv's few pool threads
 * (4 by default, shared with file and DNS work) for 0.1 to 0.2 seconds, so a flood of logins
 * could otherwise occupy them all. At most `concurrency` hashes run and at most `queue` wait;
 * a login beyond that is refused at once (the caller answers 503 with Retry-After), so
 * waiting work never grows without bound.
 */

export interface HashGateOptions {
  readonly concurrency: number;
  readonly queue: number;
}

export type Gated<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

export class HashGate {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly options: HashGateOptions) {}

  async run<T>(work: () => Promise<T>): Promise<Gated<T>> {
    if (this.#running >= this.options.concurrency) {
      if (this.#waiting.length >= this.options.queue) return { ok: false };
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return { ok: true, value: await work() };
    } finally {
      // The slot passes straight to the next waiter, so the running count never dips between them.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }
}
