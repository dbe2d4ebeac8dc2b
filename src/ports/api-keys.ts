/**
 * Minting and hashing API keys. The plaintext exists only in the response that shows it
 * once; what is stored is a keyed hash (so a leaked table cannot be tested against
 * guesses without the server's secret) and the display form.
 */
export interface MintedKey {
  readonly plaintext: string;
  readonly keyHash: string;
  readonly displayKey: string;
}

export interface ApiKeyCodec {
  mint(): Promise<MintedKey>;
  /** Shape and checksum, with no lookup: false means the text cannot be one of our keys. */
  wellFormed(text: string): Promise<'ok' | 'bad-shape' | 'bad-checksum'>;
  hash(plaintext: string): Promise<string>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}
