/**
 * Encrypts every Temporal payload (workflow and activity inputs, results, signals, memos)
 * with AES-256-GCM before it leaves the process, so the Temporal server, its database and
 * its Web UI hold only ciphertext of the personal data in case analyses and timelines.
 * The whole payload (metadata and data, protobuf-encoded as Temporal's own encryption
 * samples do) is sealed; the wire copy says only `encoding: binary/encrypted` and which key
 * sealed it (`encryption-key-id`). A keyring makes rotation possible: the current key
 * encrypts, older keys still decrypt, so histories written before a rotation stay
 * readable. Keys come from TEMPORAL_CODEC_KEYS; the embedded default derives one from the
 * local secret in DATA_DIR. Web Crypto only, so it runs unchanged under Node and Deno.
 */
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { PayloadCodecError } from '../../ports/payload-codec.ts';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The keys the codec knows, by id; `currentKeyId` names the one new payloads are sealed with. */
export interface CodecKeyring {
  readonly currentKeyId: string;
  readonly keys: ReadonlyMap<string, Uint8Array>;
}

function decodeBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

/**
 * Reads `id:base64key,id:base64key` (the first entry is the current key). Every key must be
 * exactly 32 bytes of standard base64 (`openssl rand -base64 32`); ids are 1 to 64 of
 * A-Z, a-z, 0-9, '.', '_' or '-', and unique. Throws with a message naming the bad entry
 * by position and id only.
 */
export function parseCodecKeyring(value: string): CodecKeyring {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) throw new Error('TEMPORAL_CODEC_KEYS: no keys given (expected id:base64key[,id:base64key...])');
  const keys = new Map<string, Uint8Array>();
  entries.forEach((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator < 0 ? '' : entry.slice(0, separator);
    if (!KEY_ID.test(id)) throw new Error(`TEMPORAL_CODEC_KEYS entry ${index + 1}: expected id:base64key with an id of A-Z a-z 0-9 . _ -`);
    if (keys.has(id)) throw new Error(`TEMPORAL_CODEC_KEYS entry ${index + 1}: key id "${id}" appears twice`);
    const key = decodeBase64(entry.slice(separator + 1).trim());
    if (key?.length !== KEY_BYTES) {
      throw new Error(`TEMPORAL_CODEC_KEYS entry ${index + 1} ("${id}"): the key must be ${KEY_BYTES} bytes of standard base64`);
    }
    keys.set(id, key);
  });
  return { currentKeyId: [...keys.keys()][0]!, keys };
}

const DEV_KEY_SALT = encoder.encode('court-records/temporal-payload-codec');
const DEV_KEY_INFO = encoder.encode('aes-256-gcm v1');

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The embedded default's keyring when TEMPORAL_CODEC_KEYS is unset: one key derived with
 * HKDF-SHA256 from a local secret (the key-hash secret kept in DATA_DIR), under a salt and
 * info of its own so it never equals any other use of that secret. Same secret, same key,
 * so histories stay readable across restarts. The id is `local-` and 8 hex digits of the
 * key's SHA-256: after the secret changes, old payloads fail as an unknown key, by name.
 */
export async function deriveDevKeyring(secret: string): Promise<CodecKeyring> {
  if (secret.length < 16) throw new Error('the local secret for the Temporal payload key must be at least 16 characters');
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveBits']);
  const key = new Uint8Array(
    await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: DEV_KEY_SALT, info: DEV_KEY_INFO }, material, KEY_BYTES * 8),
  );
  const fingerprint = new Uint8Array(await crypto.subtle.digest('SHA-256', key)).slice(0, 4);
  const id = `local-${hex(fingerprint)}`;
  return { currentKeyId: id, keys: new Map([[id, key]]) };
}

function metadataText(payload: Payload, name: string): string | undefined {
  const value = payload.metadata?.[name];
  return value ? decoder.decode(value) : undefined;
}

class AesGcmPayloadCodec implements PayloadCodec {
  readonly #currentKeyId: string;
  readonly #keys: ReadonlyMap<string, Promise<CryptoKey>>;

  constructor(keyring: CodecKeyring) {
    const current = keyring.keys.get(keyring.currentKeyId);
    if (!current) throw new Error(`the current key id "${keyring.currentKeyId}" is not in the keyring`);
    for (const [id, key] of keyring.keys) {
      if (!KEY_ID.test(id) || key.length !== KEY_BYTES) throw new Error(`keyring entry "${id}": ids are A-Z a-z 0-9 . _ -, keys 32 bytes`);
    }
    this.#currentKeyId = keyring.currentKeyId;
    // Valid 32-byte raw keys always import, so these promises cannot reject unobserved.
    this.#keys = new Map(
      [...keyring.keys].map(([id, key]) => [
        id,
        crypto.subtle.importKey('raw', new Uint8Array(key), 'AES-GCM', false, ['encrypt', 'decrypt']),
      ]),
    );
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.#seal(payload)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.#open(payload)));
  }

  async #seal(payload: Payload): Promise<Payload> {
    const key = await this.#keys.get(this.#currentKeyId)!;
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const plaintext = new Uint8Array(PayloadMessage.encode(payload).finish());
    // The key id is authenticated too, so relabelling a payload with another id fails.
    const additionalData = encoder.encode(this.#currentKeyId);
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData }, key, plaintext));
    const data = new Uint8Array(IV_BYTES + sealed.length);
    data.set(iv);
    data.set(sealed, IV_BYTES);
    return {
      metadata: { encoding: encoder.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: encoder.encode(this.#currentKeyId) },
      data,
    };
  }

  async #open(payload: Payload): Promise<Payload> {
    // Payloads written before encryption was switched on (or by another codec) pass through.
    if (metadataText(payload, 'encoding') !== ENCRYPTED_ENCODING) return payload;
    const keyId = metadataText(payload, KEY_ID_METADATA);
    if (keyId === undefined) throw new PayloadCodecError('malformed', `an encrypted payload carries no ${KEY_ID_METADATA}`);
    const key = this.#keys.get(keyId);
    if (!key) throw new PayloadCodecError('unknown-key', `no key with id "${keyId}" is configured (TEMPORAL_CODEC_KEYS)`);
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadCodecError('malformed', 'an encrypted payload is too short to hold IV and tag');
    let plaintext: ArrayBuffer;
    try {
      plaintext = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: data.slice(0, IV_BYTES), additionalData: encoder.encode(keyId) },
        await key,
        data.slice(IV_BYTES),
      );
    } catch {
      throw new PayloadCodecError('not-authentic', `a payload sealed with key "${keyId}" failed authentication: altered or mislabelled`);
    }
    const inner = PayloadMessage.decode(new Uint8Array(plaintext));
    return { metadata: inner.metadata, data: inner.data };
  }
}

export function createPayloadCodec(keyring: CodecKeyring): PayloadCodec {
  return new AesGcmPayloadCodec(keyring);
}

/** The `dataConverter` option for Client, Worker and the workflow bundle's runtime alike. */
export function dataConverterFor(codec: PayloadCodec): DataConverter {
  return { payloadCodecs: [codec] };
}
