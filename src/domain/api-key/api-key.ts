/**
 * The API key aggregate. A key is created active; rotation puts it in a 24-hour grace
 * window (it still authenticates) after which it is expired; revocation is a soft delete
 * that stops it at once. Only a keyed hash and display parts of the secret are recorded.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';

export const ROTATION_GRACE_SECONDS = 24 * 60 * 60;

/**
 * Live keys spend credits on the live corpus; test keys reach the same routes in test mode,
 * apart from every live record and never charged. The mode is the key's prefix, so a key
 * keeps it for life and a rotation hands it on.
 */
export type KeyMode = 'live' | 'test';
export const KEY_MODES: readonly KeyMode[] = ['live', 'test'];

/** Longest key name a key may carry. */
export const MAX_KEY_NAME_LENGTH = 120;
const ROTATED_SUFFIX = ' (rotated)';

/**
 * The spec's name of a rotated replacement: the old name suffixed ' (rotated)'. A name that
 * would outgrow the cap (a key rotated again and again) loses the end of its old name
 * instead, so a rotation never fails for its name.
 */
export function rotatedName(name: string): string {
  const room = MAX_KEY_NAME_LENGTH - ROTATED_SUFFIX.length;
  return `${name.length > room ? name.slice(0, room).trimEnd() : name}${ROTATED_SUFFIX}`;
}

export interface KeyIdentity {
  readonly keyId: string;
  readonly userId: string;
  readonly organizationId: string | null;
  readonly name: string;
  readonly keyHash: string;
  readonly displayKey: string;
}

export type ApiKeyEvent =
  | { type: 'ApiKeyCreated'; data: KeyIdentity & { createdAt: string; rotatedFrom: string | null } }
  | { type: 'ApiKeyRotated'; data: { keyId: string; replacedBy: string; rotatedAt: string; graceEndsAt: string } }
  | { type: 'ApiKeyRevoked'; data: { keyId: string; revokedAt: string; revokedBy: string } };

export type ApiKeyCommand =
  | { type: 'CreateApiKey'; key: KeyIdentity; at: string; rotatedFrom: string | null }
  | { type: 'RotateApiKey'; keyId: string; replacedBy: string; at: string }
  | { type: 'RevokeApiKey'; keyId: string; by: string; at: string };

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active'; key: KeyIdentity }
  | { status: 'rotated'; key: KeyIdentity; graceEndsAt: string }
  | { status: 'revoked'; key: KeyIdentity };

export type ApiKeyError = { tag: 'KeyExists' } | { tag: 'KeyNotFound' } | { tag: 'KeyNotActive' } | { tag: 'InvalidName' };

export const initialApiKey: ApiKeyState = { status: 'none' };

function graceEnd(at: string): string {
  return new Date(Date.parse(at) + ROTATION_GRACE_SECONDS * 1000).toISOString();
}

export function decideApiKey(command: ApiKeyCommand, state: ApiKeyState): Decision<ApiKeyEvent, ApiKeyError> {
  switch (command.type) {
    case 'CreateApiKey':
      if (state.status !== 'none') return refuse({ tag: 'KeyExists' });
      if (command.key.name.trim().length === 0 || command.key.name.length > MAX_KEY_NAME_LENGTH) return refuse({ tag: 'InvalidName' });
      return accept({
        type: 'ApiKeyCreated',
        data: { ...command.key, name: command.key.name.trim(), createdAt: command.at, rotatedFrom: command.rotatedFrom },
      });
    case 'RotateApiKey':
      if (state.status === 'none') return refuse({ tag: 'KeyNotFound' });
      if (state.status !== 'active') return refuse({ tag: 'KeyNotActive' });
      return accept({
        type: 'ApiKeyRotated',
        data: { keyId: command.keyId, replacedBy: command.replacedBy, rotatedAt: command.at, graceEndsAt: graceEnd(command.at) },
      });
    case 'RevokeApiKey':
      if (state.status === 'none') return refuse({ tag: 'KeyNotFound' });
      if (state.status === 'revoked') return accept();
      return accept({ type: 'ApiKeyRevoked', data: { keyId: command.keyId, revokedAt: command.at, revokedBy: command.by } });
    default:
      return assertNever(command);
  }
}

export function evolveApiKey(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyCreated': {
      const { createdAt: _createdAt, rotatedFrom: _rotatedFrom, ...key } = event.data;
      return { status: 'active', key };
    }
    case 'ApiKeyRotated':
      return state.status === 'none' ? state : { status: 'rotated', key: state.key, graceEndsAt: event.data.graceEndsAt };
    case 'ApiKeyRevoked':
      return state.status === 'none' ? state : { status: 'revoked', key: state.key };
    default:
      return assertNever(event);
  }
}

/** Whether a key authenticates at `now`: revoked and past-grace keys do not. */
export type KeyStanding = 'active' | 'grace' | 'expired' | 'revoked';

export function keyStanding(status: 'active' | 'rotated' | 'revoked', graceEndsAt: string | null, now: string): KeyStanding {
  if (status === 'revoked') return 'revoked';
  if (status === 'active') return 'active';
  return graceEndsAt !== null && now < graceEndsAt ? 'grace' : 'expired';
}
