/**
 * An idempotency record: one per (API key, Idempotency-Key). The first call starts it; a
 * success completes it with the response to replay for 24 hours; an error abandons it so
 * the same key may run again.
 *
 * A call in flight holds a lease its instance renews while the call runs. When the lease
 * lapses (the instance died), a retry with the same request takes the call over: it runs
 * again under the same call id, the id every priced effect (a charge, a hold, a run) is
 * keyed by, so whatever the dead holder already did is found rather than done twice. A
 * retry with another body is refused as a reused key, never given the dead call's id.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** How long an in-flight call's lease runs unrenewed: a retry after its holder died resolves within it. */
export const IDEMPOTENCY_LEASE_MS = 15_000;

/**
 * Records started before leases carry no lease: they keep the old bound, the longest a
 * call can run (a consolidated analysis waits out its whole deadline) plus a margin for
 * its last writes, since their holder does not renew and may still be running.
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
  | {
      type: 'IdempotentCallStarted';
      /** `callId` and `leaseUntil` are absent on records started before leases: the call id is then `requestId`. */
      data: { fingerprint: string; requestId: string; startedAt: string; callId?: string; leaseUntil?: string };
    }
  | { type: 'IdempotentCallLeaseRenewed'; data: { requestId: string; leaseUntil: string } }
  | { type: 'IdempotentCallCompleted'; data: { requestId: string; completedAt: string; response: StoredResponse } }
  | { type: 'IdempotentCallAbandoned'; data: { requestId: string; abandonedAt: string } };

export type IdempotencyCommand =
  /**
   * `leaseMs`: how long the call holds the record before renewing. `legacyTakeoverAfterMs`:
   * the bound for a record started before leases (see `inFlightTakeoverMs`).
   */
  | { type: 'Begin'; fingerprint: string; requestId: string; now: string; leaseMs: number; legacyTakeoverAfterMs: number }
  | { type: 'Renew'; requestId: string; now: string; leaseMs: number }
  | { type: 'Complete'; requestId: string; now: string; response: StoredResponse }
  | { type: 'Abandon'; requestId: string; now: string };

export type IdempotencyState =
  | { status: 'none' }
  | {
      status: 'in-flight';
      fingerprint: string;
      /** The request holding the lease now. */
      requestId: string;
      /** The call's id since its first start: kept across takeovers. */
      callId: string;
      startedAt: string;
      /** null: started before leases, taken over by `legacyTakeoverAfterMs` from `startedAt`. */
      leaseUntil: string | null;
    }
  | { status: 'completed'; fingerprint: string; startedAt: string; response: StoredResponse }
  | { status: 'abandoned'; fingerprint: string };

/** `callId`: the id the call's priced effects are keyed by (this request's own, or the call it takes over). */
export type IdempotencyOutcome = { kind: 'proceed'; callId: string } | { kind: 'replay'; response: StoredResponse };

export type IdempotencyError = { tag: 'InProgress' } | { tag: 'KeyReused' } | { tag: 'NotOwner' };

export const initialIdempotency: IdempotencyState = { status: 'none' };

const elapsed = (from: string, to: string) => Date.parse(to) - Date.parse(from);
const plus = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

function leaseLapsed(state: Extract<IdempotencyState, { status: 'in-flight' }>, now: string, legacyTakeoverAfterMs: number): boolean {
  if (state.leaseUntil === null) return elapsed(state.startedAt, now) >= legacyTakeoverAfterMs;
  return Date.parse(now) >= Date.parse(state.leaseUntil);
}

/** What a new call with this key may do, given the record (pure; no events). */
export function admit(
  state: IdempotencyState,
  fingerprint: string,
  requestId: string,
  now: string,
  legacyTakeoverAfterMs: number,
): IdempotencyOutcome | IdempotencyError {
  switch (state.status) {
    case 'none':
    case 'abandoned':
      return { kind: 'proceed', callId: requestId };
    case 'in-flight':
      if (state.fingerprint !== fingerprint) {
        // A day on, the key is free again even if its call never ended.
        return elapsed(state.startedAt, now) >= IDEMPOTENCY_WINDOW_MS ? { kind: 'proceed', callId: requestId } : { tag: 'KeyReused' };
      }
      return leaseLapsed(state, now, legacyTakeoverAfterMs) ? { kind: 'proceed', callId: state.callId } : { tag: 'InProgress' };
    case 'completed':
      if (elapsed(state.startedAt, now) >= IDEMPOTENCY_WINDOW_MS) return { kind: 'proceed', callId: requestId };
      return state.fingerprint === fingerprint ? { kind: 'replay', response: state.response } : { tag: 'KeyReused' };
    default:
      return assertNever(state);
  }
}

const holds = (state: IdempotencyState, requestId: string) => state.status === 'in-flight' && state.requestId === requestId;

export function decideIdempotency(command: IdempotencyCommand, state: IdempotencyState): Decision<IdempotencyEvent, IdempotencyError> {
  switch (command.type) {
    case 'Begin': {
      const verdict = admit(state, command.fingerprint, command.requestId, command.now, command.legacyTakeoverAfterMs);
      if ('tag' in verdict) return refuse(verdict);
      if (verdict.kind === 'replay') return accept();
      return accept({
        type: 'IdempotentCallStarted',
        data: {
          fingerprint: command.fingerprint,
          requestId: command.requestId,
          startedAt: command.now,
          callId: verdict.callId,
          leaseUntil: plus(command.now, command.leaseMs),
        },
      });
    }
    case 'Renew':
      if (!holds(state, command.requestId)) return refuse({ tag: 'NotOwner' });
      return accept({
        type: 'IdempotentCallLeaseRenewed',
        data: { requestId: command.requestId, leaseUntil: plus(command.now, command.leaseMs) },
      });
    case 'Complete':
      if (!holds(state, command.requestId)) return refuse({ tag: 'NotOwner' });
      return accept({
        type: 'IdempotentCallCompleted',
        data: { requestId: command.requestId, completedAt: command.now, response: command.response },
      });
    case 'Abandon':
      if (!holds(state, command.requestId)) return refuse({ tag: 'NotOwner' });
      return accept({ type: 'IdempotentCallAbandoned', data: { requestId: command.requestId, abandonedAt: command.now } });
    default:
      return assertNever(command);
  }
}

export function evolveIdempotency(state: IdempotencyState, event: IdempotencyEvent): IdempotencyState {
  switch (event.type) {
    case 'IdempotentCallStarted':
      return {
        status: 'in-flight',
        fingerprint: event.data.fingerprint,
        requestId: event.data.requestId,
        callId: event.data.callId ?? event.data.requestId,
        startedAt: event.data.startedAt,
        leaseUntil: event.data.leaseUntil ?? null,
      };
    case 'IdempotentCallLeaseRenewed':
      return state.status === 'in-flight' && state.requestId === event.data.requestId
        ? { ...state, leaseUntil: event.data.leaseUntil }
        : state;
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
