/**
 * Opaque keyword-search cursors (searchAfter): the position of the next result, bound to
 * the query, the applied filters and the sort it was issued for, signed with HMAC-SHA256
 * so a caller can neither forge a position nor reuse a cursor for another search. Web
 * Crypto only: runs on Node and Deno. Format: base64url(JSON payload) "." base64url(MAC).
 */
import { canonicalJson } from '../../domain/canonical-json.ts';
import type { CursorPosition, SearchCursors } from '../../ports/search-cursors.ts';

const encoder = new TextEncoder();
const VERSION = 1;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/(?<!=)=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

export class SearchCursorCodec implements SearchCursors {
  readonly #key: Promise<CryptoKey>;

  constructor(secret: string) {
    this.#key = crypto.subtle.importKey('raw', encoder.encode(`search-cursor:${secret}`), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
  }

  async encode(position: CursorPosition, scope: unknown): Promise<string> {
    const payload = encoder.encode(JSON.stringify({ v: VERSION, o: position.offset, s: await this.#scopeDigest(scope) }));
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, payload));
    return `${base64url(payload)}.${base64url(mac)}`;
  }

  /** The position, or null when the cursor is malformed, forged, or issued for another scope. */
  async decode(cursor: string, scope: unknown): Promise<CursorPosition | null> {
    const [payloadText, macText, ...rest] = cursor.split('.');
    if (payloadText === undefined || macText === undefined || rest.length > 0) return null;
    const payload = fromBase64url(payloadText);
    const mac = fromBase64url(macText);
    if (!payload || !mac || !(await crypto.subtle.verify('HMAC', await this.#key, mac, payload))) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(payload));
    } catch {
      return null;
    }
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { v, o, s } = parsed as Record<string, unknown>;
    if (v !== VERSION || typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) return null;
    return s === (await this.#scopeDigest(scope)) ? { offset: o } : null;
  }

  async #scopeDigest(scope: unknown): Promise<string> {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(scope))));
    return base64url(digest.slice(0, 12));
  }
}
