/**
 * An idempotency record: one per (API key, Idempotency-Key). The first call starts it; a
 * success completes it with the response to replay for 24 hours; an error abandons it so
 * the same key may run again. A call that started and never finished (a crash) may be
 * taken over after a bounded time instead of blocking the key for a day.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How long a call may stay in flight before a retry with its key may take it over: the
 * longest a call can run (a consolidated analysis waits out its whole deadline) plus a
 * margin for its last writes, so a slow call still running is never run a second time.
 */
export function inFlightTakeoverMs(longestCallMs: number): number {
  return longestCallMs + 10 * 60_000;
}

export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type IdempotencyEvent =
  | { type: 'IdempotentCallStarted'; data: { fingerprint: string; requestId: string; startedAt: string } }
  | { type: 'IdempotentCallCompleted'; data: { requestId: string; completedAt: string; response: StoredResponse } }
  | { type: 'IdempotentCallAbandoned'; data: { requestId: string; abandonedAt: string } };

export type IdempotencyCommand =
  /**
   * `takeoverAfterMs`: how long a call may stay in flight before another with the key may
   * take it over (it crashed). It must exceed the longest a call can run, or a slow call
   * still running would be run twice.
   */
  | { type: 'Begin'; fingerprint: string; requestId: string; now: string; takeoverAfterMs: number }
  | { type: 'Complete'; requestId: string; now: string; response: StoredResponse }
  | { type: 'Abandon'; requestId: string; now: string };

export type IdempotencyState =
  | { status: 'none' }
  | { status: 'in-flight'; fingerprint: string; requestId: string; startedAt: string }
  | { status: 'completed'; fingerprint: string; startedAt: string; response: StoredResponse }
  | { status: 'abandoned'; fingerprint: string };

export type IdempotencyOutcome = { kind: 'proceed' } | { kind: 'replay'; response: StoredResponse };

export type IdempotencyError = { tag: 'InProgress' } | { tag: 'KeyReused' } | { tag: 'NotOwner' };

export const initialIdempotency: IdempotencyState = { status: 'none' };

const elapsed = (from: string, to: string) => Date.parse(to) - Date.parse(from);

/** What a new call with this key may do, given the record (pure; no events). */
export function admit(
  state: IdempotencyState,
  fingerprint: string,
  now: string,
  takeoverAfterMs: number,
): IdempotencyOutcome | IdempotencyError {
  switch (state.status) {
    case 'none':
    case 'abandoned':
      return { kind: 'proceed' };
    case 'in-flight':
      if (elapsed(state.startedAt, now) >= takeoverAfterMs) return { kind: 'proceed' };
      return state.fingerprint === fingerprint ? { tag: 'InProgress' } : { tag: 'KeyReused' };
    case 'completed':
      if (elapsed(state.startedAt, now) >= IDEMPOTENCY_WINDOW_MS) return { kind: 'proceed' };
      return state.fingerprint === fingerprint ? { kind: 'replay', response: state.response } : { tag: 'KeyReused' };
    default:
      return assertNever(state);
  }
}

export function decideIdempotency(command: IdempotencyCommand, state: IdempotencyState): Decision<IdempotencyEvent, IdempotencyError> {
  switch (command.type) {
    case 'Begin': {
      const verdict = admit(state, command.fingerprint, command.now, command.takeoverAfterMs);
      if ('tag' in verdict) return refuse(verdict);
      if (verdict.kind === 'replay') return accept();
      return accept({
        type: 'IdempotentCallStarted',
        data: { fingerprint: command.fingerprint, requestId: command.requestId, startedAt: command.now },
      });
    }
    case 'Complete':
      if (state.status !== 'in-flight' || state.requestId !== command.requestId) return refuse({ tag: 'NotOwner' });
      return accept({
        type: 'IdempotentCallCompleted',
        data: { requestId: command.requestId, completedAt: command.now, response: command.response },
      });
    case 'Abandon':
      if (state.status !== 'in-flight' || state.requestId !== command.requestId) return refuse({ tag: 'NotOwner' });
      return accept({ type: 'IdempotentCallAbandoned', data: { requestId: command.requestId, abandonedAt: command.now } });
    default:
      return assertNever(command);
  }
}

export function evolveIdempotency(state: IdempotencyState, event: IdempotencyEvent): IdempotencyState {
  switch (event.type) {
    case 'IdempotentCallStarted':
      return { status: 'in-flight', fingerprint: event.data.fingerprint, requestId: event.data.requestId, startedAt: event.data.startedAt };
    case 'IdempotentCallCompleted':
      return state.status === 'in-flight'
        ? { status: 'completed', fingerprint: state.fingerprint, startedAt: state.startedAt, response: event.data.response }
        : state;
    case 'IdempotentCallAbandoned':
      return state.status === 'in-flight' ? { status: 'abandoned', fingerprint: state.fingerprint } : state;
    default:
      return assertNever(event);
  }
}

/** The header's rule: 1 to 128 of A-Z, a-z, 0-9, underscore, period, hyphen. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
