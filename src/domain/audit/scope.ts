/**
 * Who may read whose audit trail (spec, GET /audit): an organisation's trail to its own
 * members; a user's trail to that user, or to an ORG_ADMIN of the user's organisation.
 */
export interface AuditCaller {
  readonly userId: string;
  readonly role: 'MEMBER' | 'ORG_ADMIN';
  readonly organizationId: string | null;
}

export type AuditScopeRefusal =
  { tag: 'ScopeMissing' } | { tag: 'ForeignOrganization'; callerOrganizationId: string | null } | { tag: 'ForeignUser' };

/** `targetUserOrganizationId` is the organisation of the requested user (undefined: no such user). */
export function decideAuditScope(
  caller: AuditCaller,
  request: { organizationId?: string | undefined; userId?: string | undefined },
  targetUserOrganizationId: string | null | undefined,
): AuditScopeRefusal | null {
  if (request.organizationId === undefined && request.userId === undefined) return { tag: 'ScopeMissing' };
  if (request.organizationId !== undefined && request.organizationId !== caller.organizationId) {
    return { tag: 'ForeignOrganization', callerOrganizationId: caller.organizationId };
  }
  if (request.userId !== undefined && request.userId !== caller.userId) {
    const sameOrganization = caller.organizationId !== null && targetUserOrganizationId === caller.organizationId;
    if (caller.role !== 'ORG_ADMIN' || !sameOrganization) return { tag: 'ForeignUser' };
  }
  return null;
}
