/**
 * Signs and checks the local folder's download links: HMAC-SHA256 over the key and the
 * expiry, compared in constant time. The signature is the only credential the serving
 * route asks for, so a link cannot be moved to another document or given a later expiry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../ports/clock.ts';
import type { DocumentLinkVerifier, LinkCheck } from '../../ports/document-storage.ts';

export class DocumentLinkSigner implements DocumentLinkVerifier {
  constructor(
    private readonly secret: string,
    private readonly clock: Clock,
  ) {
    if (secret.length < 32) throw new Error('the document link secret must be at least 32 characters');
  }

  sign(key: string, expiresAtSeconds: number): string {
    // The newline cannot occur in a key, so key and expiry cannot be re-split differently.
    return createHmac('sha256', this.secret).update(`${key}\n${expiresAtSeconds}`).digest('hex');
  }

  check(key: string, expiresAtSeconds: number, signature: string): LinkCheck {
    const expected = Buffer.from(this.sign(key, expiresAtSeconds), 'hex');
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return expiresAtSeconds * 1000 <= this.clock.now().getTime() ? 'expired' : 'valid';
  }

  nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }
}
