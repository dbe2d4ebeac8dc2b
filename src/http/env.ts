/** Hono context variables every route may read: only per-request facts, never services. */
import type { Principal } from '../application/access/key-authenticator.ts';
import type { AuditDetail, AuditEntry } from '../domain/audit/audit.ts';
import type { ErrorCode } from './error-codes.ts';

export interface AppEnv {
  Variables: {
    /** The server's own id of this request: the only request id the ledger, audit and logs key on. */
    requestId: string;
    /**
     * The id a priced call's effects (charges, holds, runs) are keyed by: the request id, or,
     * for a retry that takes over a call its dead holder left in flight, that call's id.
     */
    callId: string;
    /** The caller's own X-Request-Id, when well-formed: for correlation in logs only. */
    clientRequestId?: string;
    /** Set by the API-key middleware on keyed routes only. */
    principal?: Principal;
    /** Set by a charging route once its charge commits; the audit trail records it. */
    creditsDeducted?: number;
    /** Set by a keyed route that records non-personal facts of the call in its audit row. */
    auditDetail?: AuditDetail;
    /** Set by the API-key middleware: this request's audit row as it stands, answered with `status`. */
    auditEntry?: (status: number) => AuditEntry;
    /** Set once the request's audit row is committed with its stored reply (idempotency middleware). */
    audited?: true;
    /** Set on a public route that shows the operator more (deep health) when the caller presented ADMIN_TOKEN. */
    operator?: boolean;
    /** Set by renderError: the code the request was answered with, for the refusal count. */
    errorCode?: ErrorCode;
  };
}
