/**
 * Records each keyed request as an event in the Postgres event store before the response
 * leaves, so the audit trail survives a crash or a ClickHouse outage; a projector carries
 * the events to ClickHouse afterwards. One stream per event: appends never contend.
 */
import type { PostgresEventStore } from '../../adapters/postgres/event-store.ts';
import { AUDIT_EVENT_TYPE, MAX_USER_AGENT_LENGTH, type ApiRequestRecorded } from '../../domain/audit/audit.ts';
import type { IdGenerator } from '../../ports/clock.ts';

export class AuditRecorder {
  constructor(private readonly deps: { store: PostgresEventStore; ids: IdGenerator }) {}

  async record(entry: Omit<ApiRequestRecorded, 'eventId'>): Promise<void> {
    const eventId = this.deps.ids.next();
    const data: ApiRequestRecorded = { ...entry, eventId, userAgent: entry.userAgent.slice(0, MAX_USER_AGENT_LENGTH) };
    await this.deps.store.append(`audit-${eventId}`, 0, [{ type: AUDIT_EVENT_TYPE, data }], {
      streamType: 'audit',
      metadata: { occurredAt: entry.occurredAt, requestId: entry.requestId, actor: `key:${entry.keyId}` },
    });
  }
}
