/**
 * The analytics store when none could be opened at start (ClickHouse unreachable, or the
 * embedded engine unable to load its native library). Every use fails: /audit and /usage
 * answer 502, and audit events wait, durable in Postgres, for a start with a working store
 * to project them.
 */
import { AnalyticsError, type AnalyticsStore } from '../../ports/analytics.ts';

export function unavailableAnalyticsStore(reason: string): AnalyticsStore {
  const fail = () => Promise.reject(new AnalyticsError(`analytics store unavailable: ${reason}`, undefined, undefined));
  return { command: fail, insert: fail, query: fail, ping: fail, close: async () => undefined };
}
