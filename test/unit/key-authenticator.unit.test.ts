/**
 * The key cache, with a counting stand-in for the database lookup (the lookup is a port;
 * the real one runs in the integration tests): one lookup per key however many calls,
 * unknown keys cached too, invalidation honoured even when it races a lookup.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import type { KeyRecord } from '../../src/adapters/postgres/key-lookup.ts';
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
    const { plaintext } = await codec.mint();
    const { calls, lookup } = countingLookup(() => record('active'));
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock });
    for (let i = 0; i < 100; i += 1) assert.equal((await auth.authenticate(plaintext)).ok, true);
    assert.equal(calls.n, 1);
  });

  it('caches unknown keys, and never looks up a malformed or mistyped one', async () => {
    const { plaintext } = await codec.mint();
    const { calls, lookup } = countingLookup(() => undefined);
    const auth = new KeyAuthenticator({ codec, lookup, policy: { entitledTiers: ['enterprise'] }, clock });
    for (let i = 0; i < 10; i += 1) assert.deepEqual(await auth.authenticate(plaintext), { ok: false, refusal: 'UnknownKey' });
    assert.deepEqual(await auth.authenticate('crk_live-short'), { ok: false, refusal: 'InvalidFormat' });
    assert.deepEqual(await auth.authenticate(`${plaintext.slice(0, -4)}AAAA`), { ok: false, refusal: 'UnknownKey' });
    assert.equal(calls.n, 1);
  });

  it('drops what it knew on invalidation, and does not cache a lookup that raced one', async () => {
    const { plaintext } = await codec.mint();
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
    const { plaintext } = await codec.mint();
    const auth = new KeyAuthenticator({
      codec,
      lookup: () => Promise.reject(new Error('connection refused')),
      policy: { entitledTiers: ['enterprise'] },
      clock,
    });
    assert.deepEqual(await auth.authenticate(plaintext), { ok: false, refusal: 'StandingUnavailable' });
  });
});
