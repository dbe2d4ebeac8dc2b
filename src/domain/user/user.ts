/**
 * The user aggregate: identity, tier, role in the organisation, trial and email
 * verification, API-access provisioning and standing. The password arrives already hashed
 * (hashing is IO-heavy and lives in an adapter). Erasure is final: the profile's personal
 * fields are sealed under the user's own key in the log, and erasing shreds that key, so
 * the erased state keeps only the id.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';
import type { LimitOverrides, Tier } from '../access/tiers.ts';

export type Role = 'MEMBER' | 'ORG_ADMIN';
export type Standing = 'active' | 'suspended' | 'billing_inactive';

export interface UserProfile {
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly tier: Tier;
  readonly organizationId: string | null;
  readonly role: Role;
  readonly trial: boolean;
  readonly emailVerified: boolean;
  readonly apiAccess: boolean;
  readonly passwordHash: string | null;
  readonly limitOverrides: LimitOverrides;
}

export type UserEvent =
  | { type: 'UserRegistered'; data: UserProfile }
  | { type: 'UserStandingChanged'; data: { userId: string; standing: Standing } }
  | { type: 'UserErased'; data: { userId: string; erasedAt: string } };

export type UserCommand =
  | { type: 'RegisterUser'; profile: UserProfile; organization: 'active' | 'deactivated' | 'none' }
  | { type: 'SetStanding'; userId: string; standing: Standing }
  | { type: 'EraseUser'; userId: string; at: string };

export type UserState =
  { status: 'none' } | { status: 'registered'; profile: UserProfile; standing: Standing } | { status: 'erased'; userId: string };

export type UserError =
  | { tag: 'UserExists' }
  | { tag: 'UserNotFound' }
  | { tag: 'InvalidEmail' }
  | { tag: 'InvalidName' }
  | { tag: 'OrganizationNotFound' }
  | { tag: 'OrganizationDeactivated' }
  | { tag: 'AdminNeedsOrganization' };

export const initialUser: UserState = { status: 'none' };

/** A dot after the domain's first character: the domain's first dot from there decides, so nothing rescans. */
const EMAIL = /^[^\s@]+@[^\s@][^\s@.]*\.[^\s@]+$/;

export function decideUser(command: UserCommand, state: UserState): Decision<UserEvent, UserError> {
  switch (command.type) {
    case 'RegisterUser': {
      const { profile } = command;
      if (state.status !== 'none') return refuse({ tag: 'UserExists' });
      if (!EMAIL.test(profile.email) || profile.email.length > 254) return refuse({ tag: 'InvalidEmail' });
      if (profile.name.trim().length === 0 || profile.name.length > 200) return refuse({ tag: 'InvalidName' });
      if (profile.organizationId === null && profile.role === 'ORG_ADMIN') return refuse({ tag: 'AdminNeedsOrganization' });
      if (profile.organizationId !== null && command.organization === 'none') return refuse({ tag: 'OrganizationNotFound' });
      if (profile.organizationId !== null && command.organization === 'deactivated') return refuse({ tag: 'OrganizationDeactivated' });
      return accept({ type: 'UserRegistered', data: { ...profile, email: profile.email.toLowerCase(), name: profile.name.trim() } });
    }
    case 'SetStanding':
      if (state.status !== 'registered') return refuse({ tag: 'UserNotFound' });
      return state.standing === command.standing
        ? accept()
        : accept({ type: 'UserStandingChanged', data: { userId: command.userId, standing: command.standing } });
    case 'EraseUser':
      // Erasing an erased user records nothing: the key is gone already.
      if (state.status === 'none') return refuse({ tag: 'UserNotFound' });
      return state.status === 'erased' ? accept() : accept({ type: 'UserErased', data: { userId: command.userId, erasedAt: command.at } });
    default:
      return assertNever(command);
  }
}

export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return { status: 'registered', profile: event.data, standing: 'active' };
    case 'UserStandingChanged':
      return state.status === 'registered' ? { ...state, standing: event.data.standing } : state;
    case 'UserErased':
      return { status: 'erased', userId: event.data.userId };
    default:
      return assertNever(event);
  }
}
