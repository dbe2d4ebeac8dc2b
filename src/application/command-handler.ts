/**
 * Runs one command against one aggregate: read its stream, fold, decide, append at the
 * version read. A concurrent writer makes the append conflict; the command is then
 * retried once against the fresher state, so a lost race is re-decided, never overwritten.
 */
import { VersionConflictError, type EventMetadata, type EventStore } from '../ports/event-store.ts';
import type { Trx } from '../db/database.ts';
import type { Decision } from '../domain/decider.ts';

export interface Aggregate<C, E extends { type: string; data: unknown }, S, Err> {
  readonly streamType: string;
  readonly initial: S;
  decide(command: C, state: S): Decision<E, Err>;
  evolve(state: S, event: E): S;
}

export type Handled<E, Err> = { ok: true; events: E[] } | { ok: false; error: Err };

export async function handleCommand<C, E extends { type: string; data: unknown }, S, Err>(
  store: EventStore<Trx>,
  aggregate: Aggregate<C, E, S, Err>,
  streamId: string,
  command: C,
  metadata: EventMetadata,
  trx?: Trx,
): Promise<Handled<E, Err>> {
  for (let attempt = 0; ; attempt += 1) {
    const { events, version } = await store.readStream(streamId, 1, trx);
    const state = events.reduce((s, e) => aggregate.evolve(s, { type: e.type, data: e.data } as E), aggregate.initial);
    const decision = aggregate.decide(command, state);
    if (!decision.ok || decision.events.length === 0) return decision;
    try {
      await store.append(streamId, version, decision.events, { streamType: aggregate.streamType, metadata, ...(trx ? { trx } : {}) });
      return decision;
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt > 0 || trx) throw error;
    }
  }
}
