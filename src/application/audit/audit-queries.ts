/**
 * Reads the audit trail and usage figures from ClickHouse. Every read goes through FINAL,
 * which collapses replayed events (see migrations/clickhouse), and binds values as typed
 * placeholders: only the shape of the WHERE clause varies with the request.
 */
import type { AuditDetail } from '../../domain/audit/audit.ts';
import type { AnalyticsParam, AnalyticsStore } from '../../ports/analytics.ts';

export interface AuditFilter {
  readonly organizationId?: string | undefined;
  readonly userId?: string | undefined;
  readonly keyId?: string | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}

export interface AuditRow {
  readonly occurredAt: string;
  readonly requestId: string;
  readonly keyId: string;
  readonly userId: string;
  readonly endpoint: string;
  readonly method: string;
  readonly statusCode: number;
  readonly responseTimeMs: number;
  readonly creditsDeducted: number;
  readonly settlement: number;
  readonly clientAddress: string;
  readonly userAgent: string;
  /** The route's non-personal detail of the call, or null when it attached none. */
  readonly detail: AuditDetail | null;
}

export interface EndpointUsage {
  readonly endpoint: string;
  readonly calls: number;
  readonly credits: number;
}

interface RawRow {
  occurred_at: string;
  request_id: string;
  key_id: string;
  user_id: string;
  endpoint: string;
  method: string;
  status: number;
  response_ms: number;
  credits_deducted: number;
  client_address: string;
  user_agent: string;
  detail: string;
}

/** ClickHouse renders DateTime64 in UTC as 'YYYY-MM-DD hh:mm:ss.sss'. */
const isoFromClickHouse = (text: string) => `${text.replace(' ', 'T')}Z`;

function where(filter: AuditFilter): { sql: string; params: Record<string, AnalyticsParam> } {
  const clauses: string[] = [];
  const params: Record<string, AnalyticsParam> = {};
  if (filter.organizationId !== undefined) {
    clauses.push('organization_id = {organizationId:String}');
    params.organizationId = filter.organizationId;
  }
  if (filter.userId !== undefined) {
    clauses.push('user_id = {userId:String}');
    params.userId = filter.userId;
  }
  if (filter.keyId !== undefined) {
    clauses.push('key_id = {keyId:String}');
    params.keyId = filter.keyId;
  }
  if (filter.from !== undefined) {
    clauses.push("occurred_at >= {from:DateTime64(3, 'UTC')}");
    params.from = filter.from;
  }
  if (filter.to !== undefined) {
    clauses.push("occurred_at <= {to:DateTime64(3, 'UTC')}");
    params.to = filter.to;
  }
  return { sql: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export class AuditQueries {
  /** `table`: audit_events, or test mode's own (AUDIT_TABLES in audit-to-clickhouse.ts). */
  constructor(
    private readonly store: AnalyticsStore,
    private readonly table: string = 'audit_events',
  ) {}

  async page(filter: AuditFilter, limit: number, offset: number): Promise<AuditRow[]> {
    const { sql, params } = where(filter);
    const rows = await this.store.query<RawRow>(
      `SELECT occurred_at, request_id, key_id, user_id, endpoint, method, status, response_ms, credits_deducted, client_address, user_agent, detail
       FROM ${this.table} FINAL ${sql}
       ORDER BY occurred_at DESC, event_id
       LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      { ...params, limit, offset },
    );
    return rows.map((r) => ({
      occurredAt: isoFromClickHouse(r.occurred_at),
      requestId: r.request_id,
      keyId: r.key_id,
      userId: r.user_id,
      endpoint: r.endpoint,
      method: r.method,
      statusCode: r.status,
      responseTimeMs: r.response_ms,
      creditsDeducted: r.credits_deducted,
      // Settlement of credits is not in force yet: the spec says it reads zero on every row.
      settlement: 0,
      clientAddress: r.client_address,
      userAgent: r.user_agent,
      detail: r.detail === '' ? null : (JSON.parse(r.detail) as AuditDetail),
    }));
  }

  async summary(filter: AuditFilter) {
    const { sql, params } = where(filter);
    const [row] = await this.store.query<{ requests: string; credits: string; errors: string; average_ms: number | null }>(
      `SELECT count() AS requests, sum(credits_deducted) AS credits, countIf(status >= 400) AS errors, avg(response_ms) AS average_ms
       FROM ${this.table} FINAL ${sql}`,
      params,
    );
    const requests = Number(row?.requests ?? 0);
    return {
      totalRequests: requests,
      totalCreditsDeducted: Number(row?.credits ?? 0),
      errorCount: Number(row?.errors ?? 0),
      averageResponseTimeMs: requests === 0 ? 0 : Math.round(row?.average_ms ?? 0),
    };
  }

  async byEndpoint(filter: AuditFilter, limit: number): Promise<EndpointUsage[]> {
    const { sql, params } = where(filter);
    const rows = await this.store.query<{ endpoint: string; calls: string; credits: string }>(
      `SELECT endpoint, count() AS calls, sum(credits_deducted) AS credits
       FROM ${this.table} FINAL ${sql}
       GROUP BY endpoint ORDER BY calls DESC, endpoint LIMIT {top:UInt32}`,
      { ...params, top: limit },
    );
    return rows.map((r) => ({ endpoint: r.endpoint, calls: Number(r.calls), credits: Number(r.credits) }));
  }
}
