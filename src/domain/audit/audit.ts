/**
 * What the audit trail records of each keyed request: who (key, user, organisation), what
 * (route pattern, method, status, time taken, credits), from where (address, user agent).
 * Never a body, query string or screened name: the route pattern keeps ids out too.
 */
export interface ApiRequestRecorded {
  readonly eventId: string;
  readonly occurredAt: string;
  readonly requestId: string;
  /**
   * Present when the request took over a call its instance died holding (an Idempotency-Key
   * retried): the id that call's charges name, so they are matched to this row.
   */
  readonly callId?: string;
  readonly keyId: string;
  readonly userId: string;
  readonly organizationId: string | null;
  readonly endpoint: string;
  readonly method: string;
  readonly status: number;
  readonly responseMs: number;
  readonly creditsDeducted: number;
  readonly clientAddress: string;
  readonly userAgent: string;
  /** What the route added about the call (absent on most routes and on older events); see AuditDetail. */
  readonly detail?: AuditDetail;
}

/** A row as the caller describes it; the recorder gives it its event id. */
export type AuditEntry = Omit<ApiRequestRecorded, 'eventId'>;

/**
 * Non-personal facts a route attaches to its own row, such as a litigation check's
 * purpose, entity type, and the lengths and counts of what was sent. Flat scalars only, and
 * never anything the caller searched for: the route that sets it answers for that.
 */
export type AuditDetail = Readonly<Record<string, string | number | boolean>>;

export const AUDIT_EVENT_TYPE = 'ApiRequestRecorded';

/** User agents are caller-controlled text: bounded so one request cannot bloat the trail. */
export const MAX_USER_AGENT_LENGTH = 512;
