/**
 * Work done in steps: a generator that pauses (`yield`) between pieces of a long
 * computation and returns its result, so the caller may give the event loop back between
 * pieces (the application's TimeSlicer) or run it through at once (`finish`). The steps
 * only split the work; the result is the same either way. Pure.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end in one go. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
