/**
 * Whether a found key may call the API, checked in the spec's order: the key itself
 * (revoked, expired), the organisation, the account's standing, then the plan
 * entitlement. Shape and existence are checked before this; the IP allowlist after.
 */
import { keyStanding } from '../api-key/api-key.ts';
import type { Standing } from '../user/user.ts';
import { accountStanding, standingRefusal } from './permissions.ts';
import type { Tier } from './tiers.ts';

export interface AccessSubject {
  readonly key: { readonly status: 'active' | 'rotated' | 'revoked'; readonly graceEndsAt: string | null };
  readonly user: { readonly standing: Standing; readonly tier: Tier; readonly trial: boolean; readonly apiAccess: boolean } | null;
  readonly organization: { readonly status: 'active' | 'deactivated' } | null;
}

export interface AccessPolicy {
  /** Plans that may call the API; the spec's default is Enterprise only. */
  readonly entitledTiers: readonly Tier[];
}

export type AccessRefusal =
  | 'KeyRevoked'
  | 'KeyExpired'
  | 'OrganizationDeactivated'
  | 'AccountNotFound'
  | 'AccountSuspended'
  | 'BillingInactive'
  | 'TrialAccount'
  | 'PlanNotEntitled'
  | 'ApiAccessNotProvisioned';

export function decideAccess(subject: AccessSubject, policy: AccessPolicy, now: string): AccessRefusal | null {
  const standing = keyStanding(subject.key.status, subject.key.graceEndsAt, now);
  if (standing === 'revoked') return 'KeyRevoked';
  if (standing === 'expired') return 'KeyExpired';
  if (subject.organization?.status === 'deactivated') return 'OrganizationDeactivated';
  const { user } = subject;
  if (!user) return 'AccountNotFound';
  const refusal = standingRefusal('api.call', accountStanding(user.standing, subject.organization?.status ?? null));
  if (refusal !== null) return refusal;
  if (user.trial) return 'TrialAccount';
  if (!policy.entitledTiers.includes(user.tier)) return 'PlanNotEntitled';
  if (!user.apiAccess) return 'ApiAccessNotProvisioned';
  return null;
}
