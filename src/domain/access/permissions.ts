/**
 * The one permission table: what a person may do, by their role and their standing. The API
 * (a key's standing), the dashboard pages and the /api/settings routes all ask it, so a rule
 * lives in one place. Roles: a PERSONAL account (no organisation) owns everything it has; in an
 * organisation a MEMBER manages their own keys and an ORG_ADMIN the organisation's keys, its
 * webhook endpoints (which receive every member's events) and its ledger. Standing joins the user's and
 * the organisation's: a suspended user or a deactivated organisation may do nothing and loses
 * its sessions; billing_inactive keeps a session (to see usage, pay, revoke) but may not mint
 * or reveal a secret, nor call the API.
 */
import type { Role, Standing } from '../user/user.ts';

export const PERMISSION_ACTIONS = [
  'session.view',
  'session.end',
  'dashboard.view',
  'ledger.view',
  'keys.list',
  'keys.create',
  'keys.rotate',
  'keys.revoke',
  'keys.manageOrganization',
  'webhooks.list',
  'webhooks.deliveries',
  'webhooks.create',
  'webhooks.rotateSecret',
  'webhooks.enable',
  'webhooks.remove',
  'webhooks.sendTest',
  'webhooks.resend',
  'api.call',
] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

export const PERMISSION_ROLES = ['PERSONAL', 'MEMBER', 'ORG_ADMIN'] as const;
export type PermissionRole = (typeof PERMISSION_ROLES)[number];

export const ACCOUNT_STANDINGS = ['active', 'billing_inactive', 'suspended', 'organization_deactivated'] as const;
export type AccountStanding = (typeof ACCOUNT_STANDINGS)[number];

/** Who is asking, as the table sees them. */
export interface PermissionSubject {
  readonly role: PermissionRole;
  readonly standing: AccountStanding;
}

export type PermissionRefusal = 'AccountSuspended' | 'OrganizationDeactivated' | 'BillingInactive' | 'OrgAdminRequired';
export type PermissionDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: PermissionRefusal };

interface Rule {
  readonly roles: readonly PermissionRole[];
  readonly standings: readonly AccountStanding[];
}

const EVERYONE: readonly PermissionRole[] = PERMISSION_ROLES;
const OWNERS: readonly PermissionRole[] = ['PERSONAL', 'ORG_ADMIN'];
const ADMINS: readonly PermissionRole[] = ['ORG_ADMIN'];
const ACTIVE: readonly AccountStanding[] = ['active'];
const IN_GOOD_OR_BILLING: readonly AccountStanding[] = ['active', 'billing_inactive'];

/** Minting or revealing a secret needs active standing; reading and giving up access does not. */
const TABLE: Record<PermissionAction, Rule> = {
  'session.view': { roles: EVERYONE, standings: IN_GOOD_OR_BILLING },
  // Logging out is always allowed: it only gives something up.
  'session.end': { roles: EVERYONE, standings: ACCOUNT_STANDINGS },
  'dashboard.view': { roles: EVERYONE, standings: IN_GOOD_OR_BILLING },
  // The organisation's ledger is its admins'; a member sees the shared balance on the billing page.
  'ledger.view': { roles: OWNERS, standings: IN_GOOD_OR_BILLING },
  'keys.list': { roles: EVERYONE, standings: IN_GOOD_OR_BILLING },
  'keys.create': { roles: EVERYONE, standings: ACTIVE },
  'keys.rotate': { roles: EVERYONE, standings: ACTIVE },
  'keys.revoke': { roles: EVERYONE, standings: IN_GOOD_OR_BILLING },
  'keys.manageOrganization': { roles: ADMINS, standings: IN_GOOD_OR_BILLING },
  'webhooks.list': { roles: OWNERS, standings: IN_GOOD_OR_BILLING },
  'webhooks.deliveries': { roles: OWNERS, standings: IN_GOOD_OR_BILLING },
  'webhooks.create': { roles: OWNERS, standings: ACTIVE },
  'webhooks.rotateSecret': { roles: OWNERS, standings: ACTIVE },
  // Enabling a disabled endpoint starts sending to its URL again, as registering it does.
  'webhooks.enable': { roles: OWNERS, standings: ACTIVE },
  'webhooks.remove': { roles: OWNERS, standings: IN_GOOD_OR_BILLING },
  // Both send to the endpoint's URL, as registering it does.
  'webhooks.sendTest': { roles: OWNERS, standings: ACTIVE },
  'webhooks.resend': { roles: OWNERS, standings: ACTIVE },
  'api.call': { roles: EVERYONE, standings: ACTIVE },
};

export type StandingRefusal = Exclude<PermissionRefusal, 'OrgAdminRequired'>;

/** Every rule admits active standing, so only the others can be why a rule refuses. */
const STANDING_REFUSAL: Record<AccountStanding, StandingRefusal | null> = {
  active: null,
  billing_inactive: 'BillingInactive',
  suspended: 'AccountSuspended',
  organization_deactivated: 'OrganizationDeactivated',
};

/** The standing half of the table alone: what the API asks of a key's owner, for whom every role may call. */
export function standingRefusal(action: PermissionAction, standing: AccountStanding): StandingRefusal | null {
  const refusal = STANDING_REFUSAL[standing];
  return refusal !== null && !TABLE[action].standings.includes(standing) ? refusal : null;
}

/** Standing is checked before role: a suspended admin is told they are suspended, not that they are an admin. */
export function decidePermission(action: PermissionAction, subject: PermissionSubject): PermissionDecision {
  const refusal = standingRefusal(action, subject.standing);
  if (refusal !== null) return { allowed: false, reason: refusal };
  if (!TABLE[action].roles.includes(subject.role)) return { allowed: false, reason: 'OrgAdminRequired' };
  return { allowed: true };
}

/** A standing under which no session may live: existing ones end at their next request. */
export function endsSessions(standing: AccountStanding): boolean {
  return standing === 'suspended' || standing === 'organization_deactivated';
}

/** The organisation's state outranks the user's: a deactivated organisation's members are all out. */
export function accountStanding(user: Standing, organization: 'active' | 'deactivated' | null): AccountStanding {
  return organization === 'deactivated' ? 'organization_deactivated' : user;
}

export function permissionRole(role: Role, organizationId: string | null): PermissionRole {
  if (organizationId === null) return 'PERSONAL';
  return role;
}
