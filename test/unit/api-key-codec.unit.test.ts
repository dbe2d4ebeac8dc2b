/** The key format: shape, checksum, display form, keyed hashing. Web Crypto only, no IO. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';

const codec = new HmacApiKeyCodec(['crk_live', 'crk_test'], 'unit-test-secret-of-at-least-32-characters');

describe('API key codec', () => {
  it('mints keys of the spec shape with a display form of prefix, ellipsis, last four', async () => {
    const minted = await codec.mint('live');
    assert.match(minted.plaintext, /^crk_live-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/);
    assert.equal(minted.displayKey, `crk_live...${minted.plaintext.slice(-4)}`);
    assert.equal(await codec.wellFormed(minted.plaintext), 'ok');
  });

  it('mints test keys under the test prefix, and reads the mode back from a key or its display form', async () => {
    const test = await codec.mint('test');
    assert.match(test.plaintext, /^crk_test-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/);
    assert.equal(await codec.wellFormed(test.plaintext), 'ok');
    const live = await codec.mint('live');
    assert.deepEqual(
      [test.plaintext, test.displayKey, live.plaintext, live.displayKey].map((k) => codec.modeOf(k)),
      ['test', 'test', 'live', 'live'],
    );
    for (const other of ['crk_prod-abc', 'crk_testing-abc', 'xcrk_test-abc', '', 'crk_live'])
      assert.equal(codec.modeOf(other), undefined, other);
  });

  it('never mints the same key twice in a thousand', async () => {
    const keys = await Promise.all(Array.from({ length: 1000 }, () => codec.mint('live')));
    assert.equal(new Set(keys.map((k) => k.plaintext)).size, 1000);
  });

  it('refuses bad shapes before any lookup, and tells a mistyped key by its checksum', async () => {
    const { plaintext } = await codec.mint('live');
    assert.equal(await codec.wellFormed('crk_prod-' + plaintext.slice(9)), 'bad-shape');
    assert.equal(await codec.wellFormed(plaintext.slice(0, -1)), 'bad-shape');
    const body = plaintext.slice(9, 41);
    const typo = `crk_live-${body[0] === 'a' ? 'b' : 'a'}${body.slice(1)}-${plaintext.slice(-4)}`;
    assert.equal(await codec.wellFormed(typo), 'bad-checksum');
  });

  it('hashes with the server secret: same key same hash, another secret another hash', async () => {
    const { plaintext, keyHash } = await codec.mint('live');
    assert.equal(await codec.hash(plaintext), keyHash);
    assert.notEqual(
      await new HmacApiKeyCodec(['crk_live', 'crk_test'], 'another-secret-of-at-least-32-characters!!').hash(plaintext),
      keyHash,
    );
    assert.doesNotMatch(keyHash, new RegExp(plaintext.slice(9, 41)));
  });
});
