/**
 * Gives the event loop back during long synchronous work: stepped work (domain/steps.ts)
 * runs until a slice of `sliceMs` has gone by, then waits for a turn of the loop (timers,
 * sockets and other requests' callbacks run) and goes on. The slice is measured with the
 * monotonic `performance.now()`, a timer for scheduling, never a business time.
 *
 * Turns are handed out one at a time, process-wide: several checks slicing at once (the
 * five items a batch screens together) would otherwise all wake in the same turn and run
 * their slices back to back, holding the loop for five slices. Each waiter is woken in a
 * turn of its own, after the one before it.
 */
import { setImmediate } from 'node:timers/promises';
import type { Steps } from '../domain/steps.ts';

/** Work between two turns given back: well under the event-loop hold the service allows itself (50 ms). */
export const SLICE_MS = 10;

/** The last waiter's turn: the next waiter's turn comes one loop iteration after it. */
let lastTurn: Promise<void> = Promise.resolve();

/** Resolves in a turn of the event loop that no other waiter of this module runs in. */
function nextTurn(): Promise<void> {
  const turn = lastTurn.then(() => setImmediate());
  lastTurn = turn;
  return turn;
}

export class TimeSlicer {
  /** No slice has begun: the first step waits for a turn of its own. */
  #since = -Infinity;

  constructor(private readonly sliceMs: number = SLICE_MS) {}

  /** Waits for a turn of the event loop when this slice has run its time. */
  async pause(): Promise<void> {
    if (performance.now() - this.#since < this.sliceMs) return;
    await nextTurn();
    this.#since = performance.now();
  }

  /** Runs `steps` to the end, each step in the current slice or, once it has run out, the next. */
  async run<T>(steps: Steps<T>): Promise<T> {
    for (;;) {
      await this.pause();
      const step = steps.next();
      if (step.done) return step.value;
    }
  }
}
