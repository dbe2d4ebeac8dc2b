/** Hono context variables every route may read: only per-request facts, never services. */
import type { Principal } from '../application/access/key-authenticator.ts';
import type { AuditDetail } from '../domain/audit/audit.ts';

export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the API-key middleware on keyed routes only. */
    principal?: Principal;
    /** Set by a charging route once its charge commits; the audit trail records it. */
    creditsDeducted?: number;
    /** Set by a keyed route that records non-personal facts of the call in its audit row. */
    auditDetail?: AuditDetail;
  };
}
