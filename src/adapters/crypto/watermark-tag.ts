/**
 * Account watermark tags: the first 64 bits of HMAC-SHA256(secret, "watermark:" +
 * accountId). Keyed so that nobody without the secret can compute an account's tag (to
 * frame another account or to forge a clean copy); the "watermark:" prefix keeps these
 * digests apart from any other use of the same secret (such as API key hashing).
 */
import { createHmac } from 'node:crypto';
import { tagFromBytes, type AccountTag } from '../../domain/watermark/tag.ts';

export type WatermarkTagger = (accountId: string) => AccountTag;

export function watermarkTagger(secret: string): WatermarkTagger {
  if (secret.length === 0) throw new Error('watermark secret must not be empty');
  return (accountId) => tagFromBytes(createHmac('sha256', secret).update(`watermark:${accountId}`).digest());
}
