/**
 * The key cache, with a counting stand-in for the database lookup (the lookup is a port;
 * the real one runs in the integration tests): one lookup per key however many calls,
 * unknown keys never cached (a flood of them cannot evict a real key), least recently used
 * eviction, invalidation honoured even when it races a lookup, and lookups withheld from
 * keys never seen to exist when the caller asks for known keys only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import type { KeyRecord } from '../../src/ports/api-keys.ts';
import { KeyAuthenticator } from '../../src/application/access/key-authenticator.ts';

const codec = new HmacApiKeyCodec(['crk_live', 'crk_test'], 'unit-test-secret-of-at-least-32-characters');
const clock = { now: () => new Date('2026-11-26T10:00:00Z') };

function record(status: KeyRecord['status']): KeyRecord {
  return {
    keyId: 'key_1',
    status,
    graceEndsAt: null,
    user: {
      userId: 'usr_1',
      email: 'a@b.example',
      name: 'A',
      role: 'MEMBER',
      tier: 'enterprise',
      trial: false,
      apiAccess: true,
      standing: 'active',
      limitOverrides: {},
    },
    organization: null,
  };
}

/** A lookup that knows some hashes and counts calls per hash. */
function directory(known: Map<string, KeyRecord>) {
  const calls = new Map<string, number>();
  const lookup = async (hash: string) => {
    calls.set(hash, (calls.get(hash) ?? 0) + 1);
    return known.get(hash);
  };
  return { lookup, callsFor: (hash: string) => calls.get(hash) ?? 0, total: () => [...calls.values()].reduce((a, b) => a + b, 0) };
}

function countingLookup(answer: () => KeyRecord | undefined, gate?: Promise<void>) {
  const calls = { n: 0 };
  const lookup = async () => {
    calls.n += 1;
    await gate;
    return answer();
  };
  return { calls, lookup };
}

describe('key authenticator cache', () => {
  it('looks a key up once for a hundred calls', async () => {
    const { plaintext } = await codec.mint('live');
    const { calls, lookup } = countingLookup(() => record('active'));
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock });
    for (let i = 0; i < 100; i += 1) assert.equal((await auth.authenticate(plaintext)).ok, true);
    assert.equal(calls.n, 1);
  });

  it('never caches an unknown key, and never looks up a malformed or mistyped one', async () => {
    const { plaintext } = await codec.mint('live');
    const { calls, lookup } = countingLookup(() => undefined);
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock });
    for (let i = 0; i < 10; i += 1) assert.deepEqual(await auth.authenticate(plaintext), { ok: false, refusal: 'UnknownKey' });
    assert.deepEqual(await auth.authenticate('crk_live-short'), { ok: false, refusal: 'InvalidFormat' });
    assert.deepEqual(await auth.authenticate(`${plaintext.slice(0, -4)}AAAA`), { ok: false, refusal: 'UnknownKey' });
    assert.equal(calls.n, 10);
  });

  it('keeps a valid key cached through a flood of unknown keys many times its capacity', async () => {
    const valid = await codec.mint('live');
    const { lookup, callsFor, total } = directory(new Map([[valid.keyHash, record('active')]]));
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock, maxEntries: 10 });
    assert.equal((await auth.authenticate(valid.plaintext)).ok, true);
    const flood = await Promise.all(Array.from({ length: 500 }, () => codec.mint('live')));
    for (const guess of flood) assert.deepEqual(await auth.authenticate(guess.plaintext), { ok: false, refusal: 'UnknownKey' });
    assert.equal((await auth.authenticate(valid.plaintext)).ok, true);
    assert.equal(callsFor(valid.keyHash), 1, 'the valid key was answered from the cache after the flood');
    assert.equal(total(), 501);
  });

  it('evicts the least recently used key when full, not every key', async () => {
    const [a, b, c] = await Promise.all([codec.mint('live'), codec.mint('live'), codec.mint('live')]);
    const { lookup, callsFor } = directory(new Map([a, b, c].map((k) => [k.keyHash, record('active')])));
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock, maxEntries: 2 });
    for (const key of [a, b, a, c, a, c, b]) assert.equal((await auth.authenticate(key.plaintext)).ok, true);
    // a and c stayed; b, the least recently used when c arrived, was dropped and looked up again.
    assert.deepEqual([callsFor(a.keyHash), callsFor(b.keyHash), callsFor(c.keyHash)], [1, 2, 1]);
  });

  it('with knownKeysOnly, withholds lookups of keys never seen to exist, and still serves and re-checks known ones', async () => {
    const known = await codec.mint('live');
    const stranger = await codec.mint('live');
    const records = new Map([
      [known.keyHash, record('active')],
      [stranger.keyHash, record('active')],
    ]);
    const { lookup, callsFor } = directory(records);
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock });
    const knownOnly = { knownKeysOnly: true };
    assert.equal((await auth.authenticate(known.plaintext)).ok, true);
    assert.equal((await auth.authenticate(known.plaintext, knownOnly)).ok, true);
    assert.equal(callsFor(known.keyHash), 1, 'answered from the cache');
    // A key this instance never saw, even a real one, and a mistyped one: refused without a lookup.
    assert.deepEqual(await auth.authenticate(stranger.plaintext, knownOnly), { ok: false, refusal: 'LookupWithheld' });
    assert.deepEqual(await auth.authenticate(`${known.plaintext.slice(0, -4)}AAAA`, knownOnly), { ok: false, refusal: 'LookupWithheld' });
    assert.deepEqual(await auth.authenticate('crk_live-short', knownOnly), { ok: false, refusal: 'InvalidFormat' });
    assert.equal(callsFor(stranger.keyHash), 0);
    // After an invalidation the known key is looked up again, so a revocation still lands.
    auth.invalidateAll();
    records.set(known.keyHash, record('revoked'));
    assert.deepEqual(await auth.authenticate(known.plaintext, knownOnly), { ok: false, refusal: 'KeyRevoked' });
    assert.equal(callsFor(known.keyHash), 2);
  });

  it('drops what it knew on invalidation, and does not cache a lookup that raced one', async () => {
    const { plaintext } = await codec.mint('live');
    let current = record('active');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { calls, lookup } = countingLookup(() => current, gate);
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock });
    const inFlight = auth.authenticate(plaintext);
    await new Promise((r) => setTimeout(r, 10));
    // The key is revoked while the first lookup is still out; its stale answer must not stick.
    auth.invalidateAll();
    release();
    assert.equal((await inFlight).ok, true);
    current = record('revoked');
    assert.deepEqual(await auth.authenticate(plaintext), { ok: false, refusal: 'KeyRevoked' });
    assert.equal(calls.n, 2);
  });

  it('fails closed when the identity store cannot be read', async () => {
    const { plaintext } = await codec.mint('live');
    const auth = new KeyAuthenticator({
      codec,
      lookup: () => Promise.reject(new Error('connection refused')),
      policy: { entitledTiers: ['enterprise'] },
      clock,
    });
    assert.deepEqual(await auth.authenticate(plaintext), { ok: false, refusal: 'StandingUnavailable' });
  });
});
