/**
 * The key a screened name is counted under for the distinct-names caps: HMAC-SHA256 with
 * a server secret over the name as the party reader normalises it (honorifics and company
 * forms gone, spellings made canonical, words sorted), so "Shri Mohd. Iqbal" and "Iqbal
 * Mohammad" count once. Keyed, so the counter store never holds anything from which the
 * name could be recovered by hashing a list of likely names without the secret. Web
 * Crypto only, so it runs under Node and Deno alike.
 */
import type { EntityType } from '../../domain/screening/features.ts';
import { parseScreenedName } from '../../domain/screening/names.ts';
import { normalisePartyName } from '../../domain/search/party-name.ts';

export type ScreenedNameKey = (name: string, entityType: EntityType) => Promise<string>;

/** The comparable form of a name: canonical words, sorted; '' when nothing is left. */
export function comparableName(name: string, entityType: EntityType): string {
  const tokens = parseScreenedName(name, entityType)[0] ?? [];
  const words = tokens.filter((t) => !t.form).map((t) => t.canon);
  const chosen = words.length > 0 ? words : normalisePartyName(name).split(' ').filter(Boolean);
  return [...chosen].sort().join(' ');
}

export function screenedNameKey(secret: string): ScreenedNameKey {
  if (secret.length === 0) throw new Error('the screened-name secret must not be empty');
  const key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return async (name, entityType) => {
    const message = new TextEncoder().encode(`screened-name:${entityType}:${comparableName(name, entityType)}`);
    const digest = await crypto.subtle.sign('HMAC', await key, message);
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  };
}
