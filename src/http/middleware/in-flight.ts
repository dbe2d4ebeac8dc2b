/**
 * Counts the requests in flight, so a stopping process can let them finish before it
 * closes what they use (a call stopped half-way could hold credits it never settles).
 * While draining, every answer says `Connection: close`, so keep-alive clients move to
 * another instance instead of sending more work to this one.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';

export class InFlightRequests {
  #count = 0;
  #draining = false;
  #idle: (() => void)[] = [];

  readonly middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    this.#count += 1;
    try {
      await next();
    } finally {
      if (this.#draining) c.res.headers.set('Connection', 'close');
      this.#count -= 1;
      if (this.#count === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  };

  get count(): number {
    return this.#count;
  }

  /** Starts draining; resolves true once no request is in flight, false if `timeoutMs` passes first. */
  drain(timeoutMs: number): Promise<boolean> {
    this.#draining = true;
    if (this.#count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
