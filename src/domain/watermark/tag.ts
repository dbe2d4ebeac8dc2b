/**
 * An account's watermark tag: 64 bits, 0 or 1 each. Tracing never decodes a tag outright;
 * it scores every billing account's tag against the votes an extract gives, so a longer
 * tag costs nothing to embed and only helps: each vote lands on one of 64 bits rather
 * than 24 or 32, so fewer votes repeat a bit already seen, a 200-character extract's
 * votes cover more distinct bits (more evidence against a wrong account), and two
 * accounts' tags collide with probability 2^-64 (negligible even for millions).
 */
import { TAG_BITS } from './carriers.ts';

export type AccountTag = readonly number[];

/** The first TAG_BITS bits of a digest, most significant bit of each byte first. */
export function tagFromBytes(bytes: Uint8Array): AccountTag {
  if (bytes.length * 8 < TAG_BITS) throw new Error(`a watermark tag needs ${TAG_BITS / 8} bytes`);
  return Array.from({ length: TAG_BITS }, (_, i) => (bytes[i >> 3]! >> (7 - (i & 7))) & 1);
}

export function isAccountTag(value: readonly number[]): value is AccountTag {
  return value.length === TAG_BITS && value.every((bit) => bit === 0 || bit === 1);
}
