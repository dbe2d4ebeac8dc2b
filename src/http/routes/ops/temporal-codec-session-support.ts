/**
 * The Temporal codec session's cookie and its signer, and the gate the codec routes share:
 * a live session cookie, or else the admin bearer token (see temporal-codec-session.ts).
 * Web Crypto only, so it runs unchanged under Node and Deno.
 */
import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Clock } from '../../../ports/clock.ts';
import type { AppEnv } from '../../env.ts';
import { requireAdminToken, type AdminTokenAttempts } from '../admin/admin-token-support.ts';

export const CODEC_SESSION_COOKIE = 'temporal_codec_session';
export const CODEC_SESSION_SECONDS = 8 * 60 * 60;

const encoder = new TextEncoder();

function base64Url(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/(?<!=)=+$/, '');
}

/** Compares in time independent of where the strings first differ. */
function sameText(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

async function hmacKey(secret: BufferSource): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function hmac(key: CryptoKey, text: string): Promise<string> {
  return base64Url(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
}

/** Issues and checks `<expiresAtSeconds>.<base64url HMAC-SHA256 of the expiry>`. */
export interface CodecSessionSigner {
  issue(): Promise<{ value: string; expiresAt: Date }>;
  isValid(value: string | undefined): Promise<boolean>;
  /** Whether a pasted token is ADMIN_TOKEN, compared through the session key. */
  isAdminToken(token: string): Promise<boolean>;
}

const SESSION_VALUE = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export function codecSessionSigner(adminToken: string, clock: Clock): CodecSessionSigner {
  // Its own label, so a session signature is never a value the token signs for anything else.
  const key = hmacKey(encoder.encode(adminToken)).then(async (tokenKey) =>
    hmacKey(await crypto.subtle.sign('HMAC', tokenKey, encoder.encode('temporal-codec-session'))),
  );
  const expected = key.then(async (k) => hmac(k, adminToken));
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
  return {
    async issue() {
      const expiresAt = nowSeconds() + CODEC_SESSION_SECONDS;
      return { value: `${String(expiresAt)}.${await hmac(await key, String(expiresAt))}`, expiresAt: new Date(expiresAt * 1000) };
    },
    async isValid(value) {
      const [, expiresAt, signature] = SESSION_VALUE.exec(value ?? '') ?? [];
      if (expiresAt === undefined || signature === undefined) return false;
      const signedRight = sameText(signature, await hmac(await key, expiresAt));
      return signedRight && Number(expiresAt) > nowSeconds();
    },
    async isAdminToken(token) {
      return sameText(await hmac(await key, token), await expected);
    },
  };
}

/** The codec routes' gate: a live session cookie, or else the admin bearer token. */
export function codecAccess(adminToken: string, signer: CodecSessionSigner, attempts: AdminTokenAttempts): MiddlewareHandler<AppEnv> {
  const bearer = requireAdminToken(adminToken, attempts);
  return async (c, next) => {
    if (await signer.isValid(getCookie(c, CODEC_SESSION_COOKIE))) return next();
    return bearer(c, next);
  };
}
