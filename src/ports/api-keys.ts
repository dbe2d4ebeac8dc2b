/**
 * Minting and hashing API keys. The plaintext exists only in the response that shows it
 * once; what is stored is a keyed hash (so a leaked table cannot be tested against
 * guesses without the server's secret) and the display form.
 */
import type { LimitOverrides, Tier } from '../domain/access/tiers.ts';
import type { KeyMode } from '../domain/api-key/api-key.ts';
import type { Role, Standing } from '../domain/user/user.ts';

export interface MintedKey {
  readonly plaintext: string;
  readonly keyHash: string;
  readonly displayKey: string;
}

export interface ApiKeyCodec {
  mint(mode: KeyMode): Promise<MintedKey>;
  /** The mode a key's plaintext or display form names by its prefix; undefined for neither prefix. */
  modeOf(keyOrDisplay: string): KeyMode | undefined;
  /** Shape and checksum, with no lookup: false means the text cannot be one of our keys. */
  wellFormed(text: string): Promise<'ok' | 'bad-shape' | 'bad-checksum'>;
  hash(plaintext: string): Promise<string>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

/** Everything the access check needs about a presented key: the key, its user and organisation. */
export interface KeyRecord {
  readonly keyId: string;
  readonly status: 'active' | 'rotated' | 'revoked';
  readonly graceEndsAt: string | null;
  readonly user: {
    readonly userId: string;
    readonly email: string;
    readonly name: string;
    readonly role: Role;
    readonly tier: Tier;
    readonly trial: boolean;
    readonly apiAccess: boolean;
    readonly standing: Standing;
    readonly limitOverrides: LimitOverrides;
  } | null;
  readonly organization: { readonly organizationId: string; readonly status: 'active' | 'deactivated' } | null;
}
