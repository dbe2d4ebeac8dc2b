/**
 * Idempotency records in the event store, one stream per (API key, Idempotency-Key), so a
 * record survives a crash mid-call. Two concurrent first calls race on the stream version:
 * one starts the call, the other re-reads and sees it in progress. The caller renews the
 * lease of a call it holds (`renew`) until the call ends; see the domain for takeover.
 */
import type { Trx } from '../../db/database.ts';
import { VersionConflictError, type EventStore } from '../../ports/event-store.ts';
import {
  decideIdempotency,
  evolveIdempotency,
  initialIdempotency,
  type IdempotencyCommand,
  type IdempotencyError,
  type IdempotencyEvent,
  type IdempotencyOutcome,
  type IdempotencyState,
  type StoredResponse,
} from '../../domain/idempotency/idempotency.ts';
import type { Clock } from '../../ports/clock.ts';
import type { IdempotencyRecordSealer } from './record-sealer.ts';

export const idempotencyStream = (keyId: string, idempotencyKey: string) => `idempotency-${keyId}-${idempotencyKey}`;

export class IdempotencyService {
  /**
   * With a `sealer`, records keep a keyed fingerprint and a sealed response body (see
   * record-sealer.ts); without one, both are stored as they come.
   */
  constructor(
    private readonly deps: {
      store: EventStore<Trx>;
      /** Runs work in one database transaction (a completion and what must commit with it). */
      transaction: <T>(work: (trx: Trx) => Promise<T>) => Promise<T>;
      clock: Clock;
      sealer?: IdempotencyRecordSealer;
      /** How long a call holds its record between renewals. */
      leaseMs: number;
      /** The takeover bound of a record started before leases: past the longest call (see the domain). */
      legacyTakeoverAfterMs: number;
    },
  ) {}

  /** Three renewals per lease, so one slow or lost renewal does not give a live call away. */
  get renewEveryMs(): number {
    return this.deps.leaseMs / 3;
  }

  async #state(streamId: string, trx?: Trx): Promise<{ state: IdempotencyState; version: number }> {
    const { events, version } = await this.deps.store.readStream(streamId, 1, trx);
    const state = events.reduce((s, e) => evolveIdempotency(s, { type: e.type, data: e.data } as IdempotencyEvent), initialIdempotency);
    return { state, version };
  }

  async #run(
    streamId: string,
    command: IdempotencyCommand,
    requestId: string,
    trx?: Trx,
  ): Promise<{ ok: true; state: IdempotencyState } | { ok: false; error: IdempotencyError }> {
    for (let attempt = 0; ; attempt += 1) {
      const { state, version } = await this.#state(streamId, trx);
      const decision = decideIdempotency(command, state);
      if (!decision.ok) return decision;
      if (decision.events.length === 0) return { ok: true, state };
      try {
        await this.deps.store.append(streamId, version, decision.events, {
          streamType: 'idempotency',
          metadata: { occurredAt: this.deps.clock.now().toISOString(), requestId },
          ...(trx ? { trx } : {}),
        });
        return { ok: true, state: decision.events.reduce(evolveIdempotency, state) };
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt > 0) throw error;
      }
    }
  }

  /**
   * Starts the call, or says to replay the stored response, or refuses (in progress, reused).
   * A call that proceeds is told its call id: this request's id, or the id of the call it takes over.
   */
  async begin(
    keyId: string,
    idempotencyKey: string,
    fingerprint: string,
    requestId: string,
  ): Promise<IdempotencyOutcome | IdempotencyError> {
    const now = this.deps.clock.now().toISOString();
    const streamId = idempotencyStream(keyId, idempotencyKey);
    const print = this.deps.sealer ? await this.deps.sealer.fingerprint(fingerprint) : fingerprint;
    const result = await this.#run(
      streamId,
      {
        type: 'Begin',
        fingerprint: print,
        requestId,
        now,
        leaseMs: this.deps.leaseMs,
        legacyTakeoverAfterMs: this.deps.legacyTakeoverAfterMs,
      },
      requestId,
    );
    if (!result.ok) return result.error;
    if (result.state.status === 'in-flight') return { kind: 'proceed', callId: result.state.callId };
    // Nothing recorded and nothing refused: the record holds a response to replay.
    if (result.state.status !== 'completed') throw new Error(`an idempotency record neither started nor completed: ${result.state.status}`);
    const { response } = result.state;
    return {
      kind: 'replay',
      response: this.deps.sealer ? { ...response, body: await this.deps.sealer.open(response.body, streamId) } : response,
    };
  }

  /** Extends the lease of a call this request holds; false once another has taken it over (or it ended). */
  async renew(keyId: string, idempotencyKey: string, requestId: string): Promise<boolean> {
    const now = this.deps.clock.now().toISOString();
    const result = await this.#run(
      idempotencyStream(keyId, idempotencyKey),
      { type: 'Renew', requestId, now, leaseMs: this.deps.leaseMs },
      requestId,
    );
    return result.ok;
  }

  /**
   * Stores the reply for retries. `alongside` writes in the same transaction what must exist
   * exactly when the reply does (the call's audit row: a retry answered from the record is
   * never the call that recorded the charge). True when the reply was stored and `alongside`
   * ran; false when the call was no longer this request's (taken over), and nothing was written.
   */
  async complete(
    keyId: string,
    idempotencyKey: string,
    requestId: string,
    response: StoredResponse,
    alongside?: (trx: Trx) => Promise<void>,
  ): Promise<boolean> {
    const streamId = idempotencyStream(keyId, idempotencyKey);
    const stored = this.deps.sealer ? { ...response, body: await this.deps.sealer.seal(response.body, streamId) } : response;
    const command = { type: 'Complete', requestId, now: this.deps.clock.now().toISOString(), response: stored } as const;
    return this.deps.transaction(async (trx) => {
      const result = await this.#run(streamId, command, requestId, trx);
      if (!result.ok) return false;
      await alongside?.(trx);
      return true;
    });
  }

  async abandon(keyId: string, idempotencyKey: string, requestId: string): Promise<void> {
    await this.#run(
      idempotencyStream(keyId, idempotencyKey),
      { type: 'Abandon', requestId, now: this.deps.clock.now().toISOString() },
      requestId,
    );
  }
}
