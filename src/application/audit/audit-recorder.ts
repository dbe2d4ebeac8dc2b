/**
 * Records each keyed request as an event in the Postgres event store before the response
 * leaves, so the audit trail survives a crash or a ClickHouse outage; a projector carries
 * the events to ClickHouse afterwards. Writes are group-committed with no gathering delay:
 * one commit is in flight at a time and every event recorded meanwhile goes into the next,
 * so an idle service commits at once and a loaded one carries as many requests per commit
 * as arrived during the last (two or four commits in flight measured no faster). Each
 * commit is one statement (the store's `recordFacts`); each request waits for the commit that
 * holds its event. One stream per event: no contention.
 *
 * A fact that must not outlive nor be outlived by another write (a charged call's row, with
 * the reply stored for its retries) is instead appended in that write's transaction (`recordIn`).
 */
import { AUDIT_EVENT_TYPE, MAX_USER_AGENT_LENGTH, type ApiRequestRecorded, type AuditEntry } from '../../domain/audit/audit.ts';
import type { IdGenerator } from '../../ports/clock.ts';
import type { Trx } from '../../db/database.ts';
import type { EventStore } from '../../ports/event-store.ts';

const MAX_BATCH = 500;
const STREAM_TYPE = 'audit';

function fact(data: ApiRequestRecorded) {
  return {
    streamId: `audit-${data.eventId}`,
    event: { type: AUDIT_EVENT_TYPE, data },
    metadata: { occurredAt: data.occurredAt, requestId: data.requestId, actor: `key:${data.keyId}` },
  };
}

interface Pending {
  readonly data: ApiRequestRecorded;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class AuditRecorder {
  #pending: Pending[] = [];
  #writing = false;

  constructor(private readonly deps: { store: EventStore<Trx>; ids: IdGenerator }) {}

  #event(entry: AuditEntry): ApiRequestRecorded {
    return { ...entry, eventId: this.deps.ids.next(), userAgent: entry.userAgent.slice(0, MAX_USER_AGENT_LENGTH) };
  }

  /** Resolves once the event is committed (or rejects if its batch failed). */
  record(entry: AuditEntry): Promise<void> {
    const data = this.#event(entry);
    return new Promise((resolve, reject) => {
      this.#pending.push({ data, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  /** Commits batches until nothing is waiting; one commit in flight at a time. */
  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#pending.length > 0) await this.#commit(this.#pending.splice(0, MAX_BATCH));
    } finally {
      this.#writing = false;
    }
  }

  /** Appends the event in the caller's transaction: committed with it, or not at all. */
  async recordIn(trx: Trx, entry: AuditEntry): Promise<void> {
    const { streamId, event, metadata } = fact(this.#event(entry));
    await this.deps.store.append(streamId, 0, [event], { streamType: STREAM_TYPE, metadata, trx });
  }

  async #commit(batch: readonly Pending[]): Promise<void> {
    try {
      await this.deps.store.recordFacts(
        batch.map(({ data }) => fact(data)),
        STREAM_TYPE,
      );
      for (const item of batch) item.resolve();
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
