/**
 * Protects what an idempotency record keeps at rest. A record lives in the event store,
 * which never forgets, and a stored success can say a lot about its caller: a litigation
 * check's response quotes the parties of the records that matched, which may be the very
 * name that was screened. So:
 * - the response body is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
 *   the key-hash secret with a label of its own, a fresh 96-bit IV per record, and the
 *   record's stream id as associated data, so a body cannot be read without the secret
 *   nor moved to another record;
 * - the request fingerprint (a SHA-256 of the body, which holds the screened name) is
 *   re-keyed with HMAC-SHA256 under another derived key, so a list of likely names cannot
 *   be hashed and compared against the store.
 * Web Crypto only, so it runs under Node and Deno alike. A sealed body is written as
 * `sealed-v1:<base64 IV>:<base64 ciphertext>`. A record stored before sealing was switched
 * on holds an unkeyed fingerprint, so a retry of it within its 24 hours is refused as a
 * reused key (409) rather than replayed; the caller retries under a new key.
 */
const encoder = new TextEncoder();
const PREFIX = 'sealed-v1:';
const IV_BYTES = 12;

export class SealedRecordError extends Error {
  override readonly name = 'SealedRecordError';
}

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

export class IdempotencyRecordSealer {
  readonly #bodyKey: Promise<CryptoKey>;
  readonly #printKey: Promise<CryptoKey>;

  constructor(secret: string) {
    if (secret.length === 0) throw new Error('the idempotency sealing secret must not be empty');
    const root = crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
    const derive = async (label: string, algorithm: AesKeyGenParams | HmacKeyGenParams, usages: KeyUsage[]) =>
      crypto.subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(label) },
        await root,
        algorithm,
        false,
        usages,
      );
    this.#bodyKey = derive('court-records/idempotency-response/v1', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);
    this.#printKey = derive('court-records/idempotency-fingerprint/v1', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']);
  }

  async fingerprint(print: string): Promise<string> {
    const mac = await crypto.subtle.sign('HMAC', await this.#printKey, encoder.encode(print));
    return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }

  async seal(body: string, streamId: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: encoder.encode(streamId) },
      await this.#bodyKey,
      encoder.encode(body),
    );
    return `${PREFIX}${base64(iv)}:${base64(new Uint8Array(sealed))}`;
  }

  /** The body as it was sealed for this stream; anything else is refused. */
  async open(stored: string, streamId: string): Promise<string> {
    const [iv, data] = stored.startsWith(PREFIX) ? stored.slice(PREFIX.length).split(':') : [];
    try {
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: fromBase64(iv ?? ''), additionalData: encoder.encode(streamId) },
        await this.#bodyKey,
        fromBase64(data ?? ''),
      );
      return new TextDecoder().decode(plain);
    } catch (error) {
      throw new SealedRecordError('a stored idempotent response does not open for its record (another secret, or altered)', {
        cause: error,
      });
    }
  }
}
