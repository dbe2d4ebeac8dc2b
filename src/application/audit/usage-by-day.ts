/**
 * Calls and credits per endpoint per UTC day, from the audit trail in ClickHouse, for the
 * dashboard's usage chart. Scoped to one user or one organisation (the caller decides which
 * its viewer may see); values are bound as typed placeholders and read through FINAL, as
 * every audit read is.
 */
import type { AnalyticsStore } from '../../ports/analytics.ts';

export type UsageScope = { readonly userId: string } | { readonly organizationId: string };

export interface DailyEndpointUsage {
  /** UTC day, YYYY-MM-DD. */
  readonly day: string;
  readonly endpoint: string;
  readonly calls: number;
  readonly credits: number;
}

export class UsageByDay {
  constructor(private readonly store: AnalyticsStore) {}

  /** Days with at least one call in [from, to), oldest first. */
  async read(scope: UsageScope, from: Date, to: Date): Promise<DailyEndpointUsage[]> {
    const byUser = 'userId' in scope;
    const rows = await this.store.query<{ day: string; endpoint: string; calls: string; credits: string }>(
      `SELECT toString(toDate(occurred_at)) AS day, endpoint, count() AS calls, sum(credits_deducted) AS credits
       FROM audit_events FINAL
       WHERE ${byUser ? 'user_id = {scope:String}' : 'organization_id = {scope:String}'}
         AND occurred_at >= {from:DateTime64(3, 'UTC')} AND occurred_at < {to:DateTime64(3, 'UTC')}
       GROUP BY day, endpoint ORDER BY day, endpoint`,
      { scope: byUser ? scope.userId : scope.organizationId, from, to },
    );
    return rows.map((r) => ({ day: r.day, endpoint: r.endpoint, calls: Number(r.calls), credits: Number(r.credits) }));
  }
}
