/**
 * Session and CSRF tokens: 32 bytes from the CSPRNG, base64url (cookie- and header-safe),
 * and the SHA-256 under which a session token is stored. A plain digest is enough here,
 * unlike passwords: the token has 256 bits of entropy, so there is nothing to guess.
 * Web Crypto only, so the same code runs on Node and Deno.
 */
const encoder = new TextEncoder();

export const TOKEN_BYTES = 32;

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary)
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/(?<!=)=+$/, '');
}

/** A fresh unguessable token: 43 characters of A-Z, a-z, 0-9, '-' and '_'. */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
}

/** Lower-case hex SHA-256 of the token's UTF-8 bytes. */
export async function sha256Hex(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}
