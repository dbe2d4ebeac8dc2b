/**
 * How well an extract's votes fit an account's tag, and how likely that fit is by chance.
 * The score is agreeing votes minus disagreeing ones. A wrong account's tag is 64 fair
 * coin flips independent of the text, so under chance the score is a sum of ±(net votes
 * per bit) with random signs; its exact distribution (computed once per extract, shared
 * by every candidate) gives each account's p-value. This holds for unmarked text too,
 * whose whitened votes are themselves coin flips.
 */
import { TAG_BITS } from './carriers.ts';
import type { Extraction } from './extract.ts';
import type { AccountTag } from './tag.ts';

export interface TagFit {
  /** Agreeing minus disagreeing votes. */
  readonly score: number;
  /** The score a perfectly fitting tag would get. */
  readonly maxScore: number;
  /** Chance that a random tag scores at least this well. */
  readonly pValue: number;
}

export class TagMatcher {
  readonly #net: readonly number[];
  readonly #maxScore: number;
  /** tail[s + maxScore] = P(chance score >= s). */
  readonly #tail: Float64Array;

  constructor(extraction: Extraction) {
    this.#net = Array.from({ length: TAG_BITS }, (_, b) => extraction.ones[b]! - extraction.zeros[b]!);
    this.#maxScore = this.#net.reduce((sum, n) => sum + Math.abs(n), 0);
    const width = 2 * this.#maxScore + 1;
    let density = new Float64Array(width);
    density[this.#maxScore] = 1;
    for (const n of this.#net) {
      const weight = Math.abs(n);
      if (weight === 0) continue;
      const next = new Float64Array(width);
      for (let s = 0; s < width; s += 1) {
        const p = density[s]!;
        if (p === 0) continue;
        next[s - weight] = next[s - weight]! + p / 2;
        next[s + weight] = next[s + weight]! + p / 2;
      }
      density = next;
    }
    this.#tail = new Float64Array(width);
    let sum = 0;
    for (let s = width - 1; s >= 0; s -= 1) {
      sum += density[s]!;
      this.#tail[s] = sum;
    }
  }

  fit(tag: AccountTag): TagFit {
    const score = this.#net.reduce((sum, n, b) => sum + (tag[b] === 1 ? n : -n), 0);
    return { score, maxScore: this.#maxScore, pValue: Math.min(1, this.#tail[score + this.#maxScore]!) };
  }
}
