/**
 * The organisation aggregate: name, active or deactivated, and the IP allowlist (off when
 * empty; strict mode fails closed on a lookup error). Every change is an event.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';
import { parseCidr } from '../access/cidr.ts';

export type OrganizationEvent =
  | { type: 'OrganizationCreated'; data: { organizationId: string; name: string; allowlist: string[]; strictAllowlist: boolean } }
  | { type: 'OrganizationDeactivated'; data: { organizationId: string } }
  | { type: 'OrganizationAllowlistSet'; data: { organizationId: string; allowlist: string[]; strictAllowlist: boolean } };

export type OrganizationCommand =
  | { type: 'CreateOrganization'; organizationId: string; name: string; allowlist: string[]; strictAllowlist: boolean }
  | { type: 'DeactivateOrganization'; organizationId: string }
  | { type: 'SetAllowlist'; organizationId: string; allowlist: string[]; strictAllowlist: boolean };

export type OrganizationState =
  { status: 'none' } | { status: 'active' | 'deactivated'; name: string; allowlist: string[]; strictAllowlist: boolean };

export type OrganizationError =
  | { tag: 'OrganizationExists' }
  | { tag: 'OrganizationNotFound' }
  | { tag: 'OrganizationDeactivated' }
  | { tag: 'InvalidName' }
  | { tag: 'InvalidCidr'; value: string };

export const initialOrganization: OrganizationState = { status: 'none' };

function checkAllowlist(allowlist: readonly string[]): OrganizationError | undefined {
  const bad = allowlist.find((entry) => parseCidr(entry) === undefined);
  return bad === undefined ? undefined : { tag: 'InvalidCidr', value: bad };
}

export function decideOrganization(command: OrganizationCommand, state: OrganizationState): Decision<OrganizationEvent, OrganizationError> {
  switch (command.type) {
    case 'CreateOrganization': {
      if (state.status !== 'none') return refuse({ tag: 'OrganizationExists' });
      const name = command.name.trim();
      if (name.length === 0 || name.length > 200) return refuse({ tag: 'InvalidName' });
      const invalid = checkAllowlist(command.allowlist);
      if (invalid) return refuse(invalid);
      return accept({
        type: 'OrganizationCreated',
        data: { organizationId: command.organizationId, name, allowlist: command.allowlist, strictAllowlist: command.strictAllowlist },
      });
    }
    case 'DeactivateOrganization':
      if (state.status === 'none') return refuse({ tag: 'OrganizationNotFound' });
      // Deactivating twice changes nothing, so it records nothing.
      return state.status === 'deactivated'
        ? accept()
        : accept({ type: 'OrganizationDeactivated', data: { organizationId: command.organizationId } });
    case 'SetAllowlist': {
      if (state.status === 'none') return refuse({ tag: 'OrganizationNotFound' });
      if (state.status === 'deactivated') return refuse({ tag: 'OrganizationDeactivated' });
      const invalid = checkAllowlist(command.allowlist);
      if (invalid) return refuse(invalid);
      return accept({
        type: 'OrganizationAllowlistSet',
        data: { organizationId: command.organizationId, allowlist: command.allowlist, strictAllowlist: command.strictAllowlist },
      });
    }
    default:
      return assertNever(command);
  }
}

export function evolveOrganization(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case 'OrganizationCreated':
      return { status: 'active', name: event.data.name, allowlist: event.data.allowlist, strictAllowlist: event.data.strictAllowlist };
    case 'OrganizationDeactivated':
      return state.status === 'none' ? state : { ...state, status: 'deactivated' };
    case 'OrganizationAllowlistSet':
      return state.status === 'none' ? state : { ...state, allowlist: event.data.allowlist, strictAllowlist: event.data.strictAllowlist };
    default:
      return assertNever(event);
  }
}
