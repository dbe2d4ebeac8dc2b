/**
 * The shape every aggregate follows: `decide` turns a command and the current state into
 * events or a tagged domain error; `evolve` folds one event into the state. Both pure.
 */
export type Decision<E, Err> = { ok: true; events: E[] } | { ok: false; error: Err };

export const accept = <E>(...events: E[]): { ok: true; events: E[] } => ({ ok: true, events });
export const refuse = <Err>(error: Err): { ok: false; error: Err } => ({ ok: false, error });

export function fold<S, E>(evolve: (state: S, event: E) => S, initial: S, events: readonly E[]): S {
  return events.reduce(evolve, initial);
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
