/**
 * Opaque keyword-search cursors (searchAfter): the position of the next result, bound to
 * the query, the applied filters and the sort it was issued for, signed with HMAC-SHA256
 * so a caller can neither forge a position nor reuse a cursor for another search.
 * node:crypto (on Node and Deno) rather than Web Crypto: every keyword search signs a cursor,
 * and Web Crypto's digest and sign each hand a few bytes to the thread pool and back, where
 * these run in microseconds on the calling thread. Format: base64url(JSON payload) "." base64url(MAC).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
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
  readonly #key: Uint8Array;

  constructor(secret: string) {
    this.#key = encoder.encode(`search-cursor:${secret}`);
  }

  #mac(payload: Uint8Array): Uint8Array {
    return createHmac('sha256', this.#key).update(payload).digest();
  }

  async encode(position: CursorPosition, scope: unknown): Promise<string> {
    const payload = encoder.encode(JSON.stringify({ v: VERSION, o: position.offset, s: this.#scopeDigest(scope) }));
    return `${base64url(payload)}.${base64url(this.#mac(payload))}`;
  }

  /** The position, or null when the cursor is malformed, forged, or issued for another scope. */
  async decode(cursor: string, scope: unknown): Promise<CursorPosition | null> {
    const [payloadText, macText, ...rest] = cursor.split('.');
    if (payloadText === undefined || macText === undefined || rest.length > 0) return null;
    const payload = fromBase64url(payloadText);
    const mac = fromBase64url(macText);
    if (!payload || !mac || !this.#authentic(payload, mac)) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(payload));
    } catch {
      return null;
    }
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { v, o, s } = parsed as Record<string, unknown>;
    if (v !== VERSION || typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) return null;
    return s === this.#scopeDigest(scope) ? { offset: o } : null;
  }

  #authentic(payload: Uint8Array, mac: Uint8Array): boolean {
    const expected = this.#mac(payload);
    return mac.length === expected.length && timingSafeEqual(mac, expected);
  }

  #scopeDigest(scope: unknown): string {
    return base64url(createHash('sha256').update(canonicalJson(scope)).digest().subarray(0, 12));
  }
}
