/**
 * Records each keyed request as an event in the Postgres event store before the response
 * leaves, so the audit trail survives a crash or a ClickHouse outage; a projector carries
 * the events to ClickHouse afterwards. Writes are group-committed: requests arriving within
 * a couple of milliseconds share one transaction, and each waits for that commit, so the
 * trail stays durable without a commit per request. One stream per event: no contention.
 */
import type { PostgresEventStore } from '../../adapters/postgres/event-store.ts';
import type { Db } from '../../db/database.ts';
import { AUDIT_EVENT_TYPE, MAX_USER_AGENT_LENGTH, type ApiRequestRecorded } from '../../domain/audit/audit.ts';
import type { IdGenerator } from '../../ports/clock.ts';

const MAX_BATCH = 200;
const GATHER_MS = 2;

interface Pending {
  readonly data: ApiRequestRecorded;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class AuditRecorder {
  #pending: Pending[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: { db: Db; store: PostgresEventStore; ids: IdGenerator }) {}

  /** Resolves once the event is committed (or rejects if its batch failed). */
  record(entry: Omit<ApiRequestRecorded, 'eventId'>): Promise<void> {
    const data: ApiRequestRecorded = {
      ...entry,
      eventId: this.deps.ids.next(),
      userAgent: entry.userAgent.slice(0, MAX_USER_AGENT_LENGTH),
    };
    return new Promise((resolve, reject) => {
      this.#pending.push({ data, resolve, reject });
      if (this.#pending.length >= MAX_BATCH) void this.#flush();
      else this.#timer ??= setTimeout(() => void this.#flush(), GATHER_MS);
    });
  }

  async #flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    try {
      await this.deps.db.transaction().execute((trx) =>
        this.deps.store.startStreams(
          batch.map(({ data }) => ({
            streamId: `audit-${data.eventId}`,
            event: { type: AUDIT_EVENT_TYPE, data },
            metadata: { occurredAt: data.occurredAt, requestId: data.requestId, actor: `key:${data.keyId}` },
          })),
          'audit',
          trx,
        ),
      );
      for (const item of batch) item.resolve();
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
}
