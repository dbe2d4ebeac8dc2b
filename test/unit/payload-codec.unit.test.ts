/**
 * The Temporal payload codec on its own: sealed payloads round-trip and hide their bytes,
 * rotation keeps old payloads readable, anything altered, relabelled or sealed with an
 * unknown key is refused, payloads never encrypted pass through, and the keyring parser
 * and the embedded default's key derivation accept and refuse what they document.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  createPayloadCodec,
  dataConverterFor,
  deriveDevKeyring,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  parseCodecKeyring,
} from '../../src/adapters/temporal/payload-codec.ts';
import { PayloadCodecError } from '../../src/ports/payload-codec.ts';

const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());
const keyOf = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const K1 = `k1:${keyOf(1)}`;
const K2 = `k2:${keyOf(2)}`;

const input = { caseId: 'hc-DLHC010012342019', partyName: 'Test Petitioner Kavya Example' };
const plain = (): Payload => defaultPayloadConverter.toPayload(input);

function contains(haystack: Uint8Array | null | undefined, needle: string): boolean {
  return Buffer.from(haystack ?? new Uint8Array()).includes(Buffer.from(needle, 'utf8'));
}

function flipByte(payload: Payload, index: number): Payload {
  const data = new Uint8Array(payload.data!);
  data[index] = data[index]! ^ 0x01;
  return { ...payload, data };
}

async function rejectsWith(promise: Promise<unknown>, reason: PayloadCodecError['reason'], pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PayloadCodecError, String(error));
    assert.equal(error.reason, reason);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('payload codec', () => {
  it('seals every payload as binary/encrypted under the current key id, without the plaintext, and opens it again', async () => {
    const codec = createPayloadCodec(parseCodecKeyring(`${K2},${K1}`));
    const [sealed, sealedEmpty] = await codec.encode([plain(), defaultPayloadConverter.toPayload(undefined)]);
    assert.equal(text(sealed!.metadata!.encoding), ENCRYPTED_ENCODING);
    assert.equal(text(sealed!.metadata![KEY_ID_METADATA]), 'k2');
    assert.deepEqual(Object.keys(sealed!.metadata!).sort(), ['encoding', KEY_ID_METADATA].sort());
    assert.ok(!contains(sealed!.data, 'Kavya'), 'ciphertext must not contain the name');
    assert.ok(!contains(sealed!.data, 'json/plain'), 'the inner encoding is sealed too');

    const [opened, openedEmpty] = await codec.decode([sealed!, sealedEmpty!]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(opened!), input);
    assert.equal(text(opened!.metadata!.encoding), 'json/plain');
    assert.equal(defaultPayloadConverter.fromPayload(openedEmpty!), undefined);
  });

  it('uses a fresh IV per payload: the same input seals differently each time', async () => {
    const codec = createPayloadCodec(parseCodecKeyring(K1));
    const [a, b] = await codec.encode([plain(), plain()]);
    assert.notDeepEqual(Buffer.from(a!.data!), Buffer.from(b!.data!));
    assert.ok(!Buffer.from(a!.data!.subarray(0, 12)).equals(b!.data!.subarray(0, 12)), 'IVs must differ');
  });

  it('rotates: a keyring with a new current key still opens payloads sealed with the old one and seals with the new', async () => {
    const before = createPayloadCodec(parseCodecKeyring(K1));
    const [old] = await before.encode([plain()]);
    const after = createPayloadCodec(parseCodecKeyring(`${K2},${K1}`));
    assert.deepEqual(defaultPayloadConverter.fromPayload((await after.decode([old!]))[0]!), input);
    const [fresh] = await after.encode([plain()]);
    assert.equal(text(fresh!.metadata![KEY_ID_METADATA]), 'k2');
    await rejectsWith(before.decode([fresh!]), 'unknown-key', /"k2"/);
  });

  it('refuses a payload sealed with a key id the keyring does not hold, naming the id', async () => {
    const [sealed] = await createPayloadCodec(parseCodecKeyring(K1)).encode([plain()]);
    await rejectsWith(createPayloadCodec(parseCodecKeyring(K2)).decode([sealed!]), 'unknown-key', /no key with id "k1"/);
  });

  it('refuses altered ciphertext, an altered IV, an altered tag and a truncated payload', async () => {
    const codec = createPayloadCodec(parseCodecKeyring(K1));
    const [sealed] = await codec.encode([plain()]);
    const length = sealed!.data!.length;
    for (const index of [0, 11, 12, 20, length - 1]) {
      await rejectsWith(codec.decode([flipByte(sealed!, index)]), 'not-authentic', /failed authentication/);
    }
    await rejectsWith(codec.decode([{ ...sealed!, data: sealed!.data!.subarray(0, 27) }]), 'malformed', /too short/);
  });

  it('refuses a payload relabelled with another key id the keyring holds (the id is authenticated)', async () => {
    const [sealed] = await createPayloadCodec(parseCodecKeyring(K1)).encode([plain()]);
    // The same key under two ids: only the authenticated id can tell the labels apart.
    const twin = createPayloadCodec(parseCodecKeyring(`k1:${keyOf(1)},k1b:${keyOf(1)}`));
    assert.deepEqual(defaultPayloadConverter.fromPayload((await twin.decode([sealed!]))[0]!), input);
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: new TextEncoder().encode('k1b') } };
    await rejectsWith(twin.decode([relabelled]), 'not-authentic', /"k1b"/);
  });

  it('refuses an encrypted payload without a key id', async () => {
    const codec = createPayloadCodec(parseCodecKeyring(K1));
    const [sealed] = await codec.encode([plain()]);
    await rejectsWith(
      codec.decode([{ ...sealed!, metadata: { encoding: sealed!.metadata!.encoding! } }]),
      'malformed',
      /encryption-key-id/,
    );
  });

  it('passes payloads that were never encrypted through decode unchanged', async () => {
    const codec = createPayloadCodec(parseCodecKeyring(K1));
    const unencrypted = plain();
    const [out] = await codec.decode([unencrypted]);
    assert.equal(out, unencrypted);
    assert.deepEqual(defaultPayloadConverter.fromPayload(out), input);
  });

  it('gives Client and Worker a data converter holding exactly this codec', () => {
    const codec = createPayloadCodec(parseCodecKeyring(K1));
    assert.deepEqual(dataConverterFor(codec), { payloadCodecs: [codec] });
  });

  it('refuses a keyring whose current key it does not hold or whose keys are not 32 bytes', () => {
    assert.throws(() => createPayloadCodec({ currentKeyId: 'k9', keys: new Map([['k1', new Uint8Array(32)]]) }), /"k9"/);
    assert.throws(() => createPayloadCodec({ currentKeyId: 'k1', keys: new Map([['k1', new Uint8Array(16)]]) }), /32 bytes/);
  });
});

describe('parseCodecKeyring', () => {
  it('reads id:base64key pairs in order, the first being current, ignoring spaces and empty entries', () => {
    const ring = parseCodecKeyring(` ${K2} , ${K1},`);
    assert.equal(ring.currentKeyId, 'k2');
    assert.deepEqual([...ring.keys.keys()], ['k2', 'k1']);
    assert.deepEqual(Buffer.from(ring.keys.get('k1')!), Buffer.alloc(32, 1));
  });

  it('refuses empty input, a missing or bad id, duplicate ids and keys that are not 32 bytes of base64, without echoing key material', () => {
    const secretLooking = Buffer.alloc(16, 7).toString('base64');
    const cases: [string, RegExp][] = [
      ['', /no keys/],
      [' , ', /no keys/],
      [keyOf(1), /entry 1: expected id:base64key/],
      [`:${keyOf(1)}`, /entry 1: expected id:base64key/],
      [`bad id:${keyOf(1)}`, /entry 1: expected id:base64key/],
      [`${K1},k1:${keyOf(3)}`, /entry 2: key id "k1" appears twice/],
      [`k1:${secretLooking}`, /entry 1 \("k1"\): the key must be 32 bytes/],
      [`k1:${Buffer.alloc(33, 1).toString('base64')}`, /32 bytes/],
      [`k1:${keyOf(1).replaceAll('A', '-')}`, /32 bytes/],
      ['k1:not base64!', /32 bytes/],
    ];
    for (const [value, pattern] of cases) {
      assert.throws(
        () => parseCodecKeyring(value),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.match(error.message, pattern, value);
          assert.ok(!error.message.includes(secretLooking), 'the message must not contain the key');
          return true;
        },
      );
    }
  });
});

describe('deriveDevKeyring', () => {
  const secret = 'local-secret-from-data-dir-0123456789';

  it('derives the same 32-byte key and local-<hex> id from the same secret, and another from another secret', async () => {
    const a = await deriveDevKeyring(secret);
    const b = await deriveDevKeyring(secret);
    const other = await deriveDevKeyring(`${secret}x`);
    assert.match(a.currentKeyId, /^local-[0-9a-f]{8}$/);
    assert.equal(a.currentKeyId, b.currentKeyId);
    assert.deepEqual(Buffer.from(a.keys.get(a.currentKeyId)!), Buffer.from(b.keys.get(b.currentKeyId)!));
    assert.equal(a.keys.get(a.currentKeyId)!.length, 32);
    assert.notEqual(other.currentKeyId, a.currentKeyId);
    assert.notDeepEqual(Buffer.from(other.keys.get(other.currentKeyId)!), Buffer.from(a.keys.get(a.currentKeyId)!));
  });

  it('gives a key that is not the secret itself, and payloads sealed under it open only with it', async () => {
    const ring = await deriveDevKeyring(secret);
    assert.ok(!Buffer.from(ring.keys.get(ring.currentKeyId)!).includes(Buffer.from(secret.slice(0, 16))));
    const [sealed] = await createPayloadCodec(ring).encode([plain()]);
    const restarted = createPayloadCodec(await deriveDevKeyring(secret));
    assert.deepEqual(defaultPayloadConverter.fromPayload((await restarted.decode([sealed!]))[0]!), input);
    await rejectsWith(createPayloadCodec(await deriveDevKeyring(`${secret}x`)).decode([sealed!]), 'unknown-key', /local-/);
  });

  it('refuses a secret too short to key anything', async () => {
    await assert.rejects(deriveDevKeyring('short'), /at least 16/);
  });
});
