/**
 * The personal-field envelope: a sealed field opens only under its subject's key and in
 * its own place (event type, field, subject), and is plain JSON with nothing readable in it.
 * Real AES-256-GCM through WebCrypto; no IO.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openField, sealField } from '../../src/adapters/crypto/personal-data-sealer.ts';
import { associatedData, isSealed, personalSubject } from '../../src/domain/personal-data/personal-fields.ts';

const importKey = (fill: number) => crypto.subtle.importKey('raw', new Uint8Array(32).fill(fill), 'AES-GCM', false, ['encrypt', 'decrypt']);

describe('personal field envelope', () => {
  it('round-trips strings, null and objects, and shows neither the value nor the key', async () => {
    const key = await importKey(7);
    const aad = associatedData('UserRegistered', 'email', 'usr_1');
    for (const value of ['meera@example.in', null, { sealed: 'abc', hint: 'whsec_…abcd' }]) {
      const sealed = await sealField(key, 'usr_1', aad, value);
      assert.ok(isSealed(sealed));
      assert.equal(sealed.sub, 'usr_1');
      assert.ok(!JSON.stringify(sealed).includes('meera'));
      assert.deepEqual(await openField(key, sealed, aad), value);
    }
  });

  it('refuses another key, another place and a changed ciphertext', async () => {
    const key = await importKey(7);
    const aad = associatedData('UserRegistered', 'email', 'usr_1');
    const sealed = await sealField(key, 'usr_1', aad, 'meera@example.in');
    await assert.rejects(openField(await importKey(8), sealed, aad), /does not authenticate/);
    await assert.rejects(openField(key, sealed, associatedData('UserRegistered', 'name', 'usr_1')), /does not authenticate/);
    await assert.rejects(openField(key, sealed, associatedData('UserRegistered', 'email', 'usr_2')), /does not authenticate/);
    const bytes = Buffer.from(sealed.ct, 'base64');
    bytes[0] = bytes[0]! ^ 1;
    await assert.rejects(openField(key, { ...sealed, ct: bytes.toString('base64') }, aad), /does not authenticate/);
  });

  it('names the subject of each personal event, and none for other events', () => {
    assert.equal(personalSubject('UserRegistered', { userId: 'usr_1', email: 'x' }), 'usr_1');
    assert.equal(personalSubject('WebhookEndpointRegistered', { accountId: 'org_1', url: 'https://x' }), 'org_1');
    assert.equal(personalSubject('CreditsGranted', { accountId: 'usr_1' }), undefined);
  });
});
