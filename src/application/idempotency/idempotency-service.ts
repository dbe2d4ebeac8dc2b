/**
 * Idempotency records in the event store, one stream per (API key, Idempotency-Key), so a
 * record survives a crash mid-call. Two concurrent first calls race on the stream version:
 * one starts the call, the other re-reads and sees it in progress.
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
      clock: Clock;
      sealer?: IdempotencyRecordSealer;
      /** How long a call may stay in flight before a retry with its key may take over: past the longest call. */
      takeoverAfterMs: number;
    },
  ) {}

  async #state(streamId: string): Promise<{ state: IdempotencyState; version: number }> {
    const { events, version } = await this.deps.store.readStream(streamId);
    const state = events.reduce((s, e) => evolveIdempotency(s, { type: e.type, data: e.data } as IdempotencyEvent), initialIdempotency);
    return { state, version };
  }

  async #run(
    streamId: string,
    command: IdempotencyCommand,
    requestId: string,
  ): Promise<{ ok: true; state: IdempotencyState; appended: boolean } | { ok: false; error: IdempotencyError }> {
    for (let attempt = 0; ; attempt += 1) {
      const { state, version } = await this.#state(streamId);
      const decision = decideIdempotency(command, state);
      if (!decision.ok) return decision;
      if (decision.events.length === 0) return { ok: true, state, appended: false };
      try {
        await this.deps.store.append(streamId, version, decision.events, {
          streamType: 'idempotency',
          metadata: { occurredAt: this.deps.clock.now().toISOString(), requestId },
        });
        return { ok: true, state: decision.events.reduce(evolveIdempotency, state), appended: true };
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt > 0) throw error;
      }
    }
  }

  /** Starts the call, or says to replay the stored response, or refuses (in progress, reused). */
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
      { type: 'Begin', fingerprint: print, requestId, now, takeoverAfterMs: this.deps.takeoverAfterMs },
      requestId,
    );
    if (!result.ok) return result.error;
    if (result.appended) return { kind: 'proceed' };
    // Nothing recorded and nothing refused: the record holds a response to replay.
    if (result.state.status !== 'completed') return { kind: 'proceed' };
    const { response } = result.state;
    return {
      kind: 'replay',
      response: this.deps.sealer ? { ...response, body: await this.deps.sealer.open(response.body, streamId) } : response,
    };
  }

  async complete(keyId: string, idempotencyKey: string, requestId: string, response: StoredResponse): Promise<void> {
    const streamId = idempotencyStream(keyId, idempotencyKey);
    const stored = this.deps.sealer ? { ...response, body: await this.deps.sealer.seal(response.body, streamId) } : response;
    await this.#run(streamId, { type: 'Complete', requestId, now: this.deps.clock.now().toISOString(), response: stored }, requestId);
  }

  async abandon(keyId: string, idempotencyKey: string, requestId: string): Promise<void> {
    await this.#run(
      idempotencyStream(keyId, idempotencyKey),
      { type: 'Abandon', requestId, now: this.deps.clock.now().toISOString() },
      requestId,
    );
  }
}
