/** The key format: shape, checksum, display form, keyed hashing. Web Crypto only, no IO. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';

const codec = new HmacApiKeyCodec(['crk_live', 'crk_test'], 'unit-test-secret-of-at-least-32-characters');

describe('API key codec', () => {
  it('mints keys of the spec shape with a display form of prefix, ellipsis, last four', async () => {
    const minted = await codec.mint();
    assert.match(minted.plaintext, /^crk_live-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/);
    assert.equal(minted.displayKey, `crk_live...${minted.plaintext.slice(-4)}`);
    assert.equal(await codec.wellFormed(minted.plaintext), 'ok');
  });

  it('never mints the same key twice in a thousand', async () => {
    const keys = await Promise.all(Array.from({ length: 1000 }, () => codec.mint()));
    assert.equal(new Set(keys.map((k) => k.plaintext)).size, 1000);
  });

  it('refuses bad shapes before any lookup, and tells a mistyped key by its checksum', async () => {
    const { plaintext } = await codec.mint();
    assert.equal(await codec.wellFormed('crk_prod-' + plaintext.slice(9)), 'bad-shape');
    assert.equal(await codec.wellFormed(plaintext.slice(0, -1)), 'bad-shape');
    const body = plaintext.slice(9, 41);
    const typo = `crk_live-${body[0] === 'a' ? 'b' : 'a'}${body.slice(1)}-${plaintext.slice(-4)}`;
    assert.equal(await codec.wellFormed(typo), 'bad-checksum');
  });

  it('hashes with the server secret: same key same hash, another secret another hash', async () => {
    const { plaintext, keyHash } = await codec.mint();
    assert.equal(await codec.hash(plaintext), keyHash);
    assert.notEqual(
      await new HmacApiKeyCodec(['crk_live', 'crk_test'], 'another-secret-of-at-least-32-characters!!').hash(plaintext),
      keyHash,
    );
    assert.doesNotMatch(keyHash, new RegExp(plaintext.slice(9, 41)));
  });
});
