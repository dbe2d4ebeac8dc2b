/**
 * Search cursors: a cursor is the payload and its HMAC-SHA256, so it verifies on any
 * instance with the same secret, and one signed before the codec moved from Web Crypto to
 * node:crypto still decodes (the reference here is built with Web Crypto).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchCursorCodec } from '../../src/adapters/crypto/search-cursor-codec.ts';
import { canonicalJson } from '../../src/domain/canonical-json.ts';

const SECRET = 'cursor-test-secret-of-at-least-32-chars';
const scope = { query: 'union of india', filters: { court: ['Supreme Court of India'] }, sort: 'relevance' };
const encoder = new TextEncoder();
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

async function webCryptoCursor(offset: number, cursorScope: unknown): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(cursorScope))));
  const payload = encoder.encode(JSON.stringify({ v: 1, o: offset, s: b64url(digest.slice(0, 12)) }));
  const key = await crypto.subtle.importKey('raw', encoder.encode(`search-cursor:${SECRET}`), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return `${b64url(payload)}.${b64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, payload)))}`;
}

describe('search cursor codec', () => {
  const codec = new SearchCursorCodec(SECRET);

  it('signs exactly as the Web Crypto codec did, and decodes what another instance signed', async () => {
    assert.equal(await codec.encode({ offset: 40 }, scope), await webCryptoCursor(40, scope));
    assert.deepEqual(await new SearchCursorCodec(SECRET).decode(await webCryptoCursor(120, scope), scope), { offset: 120 });
  });

  it('refuses a forged position, another secret, another scope and malformed text', async () => {
    const cursor = await codec.encode({ offset: 20 }, scope);
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = b64url(encoder.encode(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), o: 0 })));
    assert.equal(await codec.decode(`${forged}.${mac}`, scope), null);
    assert.equal(await codec.decode(`${payload}.${mac.slice(0, -2)}`, scope), null, 'a shortened MAC');
    assert.equal(await new SearchCursorCodec(`${SECRET}-other`).decode(cursor, scope), null);
    assert.equal(await codec.decode(cursor, { ...scope, sort: 'date' }), null);
    for (const bad of ['', '.', 'a.b.c', `${payload}.`, `${payload}.!!`]) assert.equal(await codec.decode(bad, scope), null, bad);
    assert.deepEqual(await codec.decode(cursor, scope), { offset: 20 });
  });
});
