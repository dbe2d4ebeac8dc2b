/**
 * What the audit trail records of each keyed request: who (key, user, organisation), what
 * (route pattern, method, status, time taken, credits), from where (address, user agent).
 * Never a body, query string or screened name: the route pattern keeps ids out too.
 */
export interface ApiRequestRecorded {
  readonly eventId: string;
  readonly occurredAt: string;
  readonly requestId: string;
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
}

export const AUDIT_EVENT_TYPE = 'ApiRequestRecorded';

/** User agents are caller-controlled text: bounded so one request cannot bloat the trail. */
export const MAX_USER_AGENT_LENGTH = 512;
