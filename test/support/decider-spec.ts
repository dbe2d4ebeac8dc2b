/**
 * Given events, when a command, then events or a tagged refusal: the one shape every
 * decider test takes, after Emmett's `DeciderSpecification`. Our deciders never throw on a
 * command they refuse; they return `{ ok: false, error }` with a tagged error, so a refusal
 * is asserted as a value (`thenRefuses`), not as an exception. The rules that decide from
 * facts alone (access, audit scope, match bands) return a refusal or null, or a verdict:
 * `rule(fn).when(...args)` states those in the same words.
 */
import assert from 'node:assert/strict';
import { fold, type Decision } from '../../src/domain/decider.ts';

/** An event-sourced aggregate as the application layer runs it: decide, evolve, and where a stream starts. */
export interface Decider<C, E, S, Err> {
  readonly decide: (command: C, state: S) => Decision<E, Err>;
  readonly evolve: (state: S, event: E) => S;
  readonly initialState: S;
}

export interface DeciderThen<E, S, Err> {
  /** Accepted with exactly these events, in order (`[]`: a repeat that records nothing). */
  then(expected: readonly E[]): void;
  /** Accepted with no events: an idempotent repeat. */
  thenNothing(): void;
  /** Refused with exactly this tagged error. */
  thenRefuses(expected: Err): void;
  /** Accepted; the events, for a test that reads only some of their fields or folds them on. */
  thenEvents(): E[];
  /** Accepted; the state after folding the decided events onto the given ones. */
  thenState(): S;
}

export interface DeciderSpec<C, E, S, Err> {
  given(events: readonly E[]): { when(command: C): DeciderThen<E, S, Err> };
}

export function spec<C, E, S, Err>(decider: Decider<C, E, S, Err>): DeciderSpec<C, E, S, Err> {
  return {
    given: (events) => ({
      when: (command) => {
        const state = fold(decider.evolve, decider.initialState, events);
        const decision = decider.decide(command, state);
        const accepted = (): E[] => {
          assert.ok(decision.ok, `expected the command to be accepted, got ${JSON.stringify(decision)}`);
          return decision.events;
        };
        return {
          then: (expected) => assert.deepEqual(decision, { ok: true, events: expected }),
          thenNothing: () => assert.deepEqual(decision, { ok: true, events: [] }),
          thenRefuses: (expected) => assert.deepEqual(decision, { ok: false, error: expected }),
          thenEvents: accepted,
          thenState: () => fold(decider.evolve, state, accepted()),
        };
      },
    }),
  };
}

export interface RuleThen<R> {
  /** Decides exactly this. */
  then(expected: R): void;
  /** Lets the subject through (the rule returns null). */
  thenAdmits(): void;
  /** Refuses with exactly this refusal. */
  thenRefuses(expected: Exclude<R, null>): void;
}

/** A rule that decides from facts alone: no stream, so no `given`; its arguments are the facts. */
export function rule<A extends unknown[], R>(decide: (...args: A) => R): { when(...args: A): RuleThen<R> } {
  return {
    when: (...args) => {
      const decided = decide(...args);
      return {
        then: (expected) => assert.deepEqual(decided, expected),
        thenAdmits: () => assert.equal(decided, null, `expected no refusal, got ${JSON.stringify(decided)}`),
        thenRefuses: (expected) => assert.deepEqual(decided, expected),
      };
    },
  };
}
