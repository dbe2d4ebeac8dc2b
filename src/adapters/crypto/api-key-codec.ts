/**
 * API keys as `<prefix>-<32 chars>-<4 chars>`: 32 base62 characters from the CSPRNG, then a
 * 4-character checksum of prefix and body, so a mistyped key is refused without a lookup.
 * Stored as HMAC-SHA256 under a server secret. The checksum and hash of every keyed request
 * use node:crypto (Node and Deno both provide it): synchronous, a few microseconds, where Web
 * Crypto's promise-based digest and sign cost a thread-pool job each on the hot path.
 */
import { createHash, createHmac } from 'node:crypto';
import type { KeyMode } from '../../domain/api-key/api-key.ts';
import type { ApiKeyCodec, MintedKey } from '../../ports/api-keys.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Uint8Array, length: number): string {
  let out = '';
  for (const byte of bytes) {
    // 248 = 4 * 62: rejecting the top of the byte range keeps every character equally likely.
    if (byte < 248) out += ALPHABET.charAt(byte % 62);
    if (out.length === length) break;
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) out += base62(crypto.getRandomValues(new Uint8Array(length * 2)), length - out.length);
  return out;
}

function checksum(prefix: string, body: string): string {
  const digest = createHash('sha256').update(`${prefix}-${body}`).digest();
  return [...digest.subarray(0, 4)].map((b) => ALPHABET.charAt(b % 62)).join('');
}

export class HmacApiKeyCodec implements ApiKeyCodec {
  readonly #shape: RegExp;

  readonly #prefixes: Record<KeyMode, string>;

  /** `prefixes`: the live prefix, then the test prefix (API_KEY_PREFIXES). */
  constructor(
    prefixes: readonly [string, string],
    private readonly secret: string,
  ) {
    this.#prefixes = { live: prefixes[0], test: prefixes[1] };
    const alternatives = prefixes.map((p) => p.replace(/[^A-Za-z0-9_]/g, '')).join('|');
    this.#shape = new RegExp(`^(${alternatives})-([A-Za-z0-9]{32})-([A-Za-z0-9]{4})$`);
  }

  modeOf(keyOrDisplay: string): KeyMode | undefined {
    // Both forms put the prefix first: `<prefix>-...` (the key) and `<prefix>...` (its display).
    const named = (prefix: string) => keyOrDisplay.startsWith(`${prefix}-`) || keyOrDisplay.startsWith(`${prefix}...`);
    return named(this.#prefixes.test) ? 'test' : named(this.#prefixes.live) ? 'live' : undefined;
  }

  async mint(mode: KeyMode): Promise<MintedKey> {
    const prefix = this.#prefixes[mode];
    const body = randomBase62(32);
    const plaintext = `${prefix}-${body}-${checksum(prefix, body)}`;
    return { plaintext, keyHash: await this.hash(plaintext), displayKey: `${prefix}...${plaintext.slice(-4)}` };
  }

  async wellFormed(text: string): Promise<'ok' | 'bad-shape' | 'bad-checksum'> {
    const match = this.#shape.exec(text);
    if (!match) return 'bad-shape';
    const [, prefix = '', body = '', sum] = match;
    return checksum(prefix, body) === sum ? 'ok' : 'bad-checksum';
  }

  async hash(plaintext: string): Promise<string> {
    return createHmac('sha256', this.secret).update(plaintext).digest('hex');
  }
}
