/**
 * Carries audit events from the event store into ClickHouse's audit_events table. Delivery
 * is at least once (the checkpoint commits after the insert); the table collapses replays
 * by event_id, so a redelivered batch never double counts. A store one process holds for
 * itself (a replica) gets a projection, and so a checkpoint, of its own: it receives every
 * event whichever instance recorded it.
 */
import { AUDIT_EVENT_TYPE, type ApiRequestRecorded } from '../domain/audit/audit.ts';
import type { AnalyticsStore } from '../ports/analytics.ts';
import type { AsyncProjection } from './projector.ts';

/** The live audit table, and test mode's (migrations/clickhouse/0003). */
export const AUDIT_TABLES = { live: 'audit_events', test: 'test_mode_audit_events' } as const;

export function auditToClickHouse(
  store: AnalyticsStore,
  table: (typeof AUDIT_TABLES)[keyof typeof AUDIT_TABLES] = AUDIT_TABLES.live,
): AsyncProjection {
  return {
    name: store.replica === undefined ? 'audit-to-clickhouse' : `audit-to-clickhouse:${store.replica}`,
    handles: [AUDIT_EVENT_TYPE],
    apply: async (events) => {
      const rows = events.map((e) => {
        const d = e.data as ApiRequestRecorded;
        return {
          event_id: d.eventId,
          occurred_at: new Date(d.occurredAt),
          request_id: d.requestId,
          key_id: d.keyId,
          user_id: d.userId,
          organization_id: d.organizationId,
          endpoint: d.endpoint,
          method: d.method,
          status: d.status,
          response_ms: d.responseMs,
          credits_deducted: d.creditsDeducted,
          client_address: d.clientAddress,
          user_agent: d.userAgent,
          // JSON of the route's non-personal detail; '' when the route attached none.
          detail: d.detail === undefined ? '' : JSON.stringify(d.detail),
        };
      });
      const first = events[0];
      const last = events[events.length - 1];
      await store.insert(table, rows, first && last ? { dedupToken: `audit-${first.globalPosition}-${last.globalPosition}` } : {});
    },
    reset: async () => {
      await store.command(`TRUNCATE TABLE ${table}`);
    },
  };
}
