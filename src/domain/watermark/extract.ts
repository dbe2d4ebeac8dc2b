/**
 * Reads the votes a (possibly cut, re-spaced or stripped) piece of watermarked text gives
 * for each tag bit. Every zero-width mark and every homoglyph votes; a plain
 * homoglyph-capable letter at a carrier position votes too (its bit was 0), except in the
 * words at the extract's edges, whose neighbours (and so their eligibility) were cut off.
 * Whitening makes unmarked text vote like coin flips, so it never matches an account.
 * `confidence` says how surely the marks found are this scheme's at all: foreign
 * homoglyphs or zero-width characters land on carrier positions only by chance.
 */
import { homoglyphFor, isSpace, latinFor, MARK_BITS, zeroWidthSymbol } from './alphabet.ts';
import {
  HOMOGLYPH_CONTEXT,
  HOMOGLYPH_RATE,
  homoglyphCarrier,
  LetterContext,
  MARK_CONTEXT,
  markCarrier,
  markSlot,
  slotIndex,
  slotWhitening,
  TAG_BITS,
  wordsOf,
} from './carriers.ts';

/** Words at each end of an extract whose eligibility cannot be known. */
const EDGE_WORDS = 2;
/** Off-carrier marks tolerated (re-typed or pasted text) before the pattern is rejected. */
const OFF_CARRIER_TOLERANCE = 0.1;
/**
 * Assumed chance that a stray zero-width character sits, like ours, right after a word;
 * an assumption, not a measured bound, so homoglyphs carry most of `confidence`.
 */
const STRAY_MARK_AT_WORD_END = 0.5;

export interface Extraction {
  /** Per tag bit: votes that it is 1. */
  readonly ones: readonly number[];
  /** Per tag bit: votes that it is 0. */
  readonly zeros: readonly number[];
  readonly votes: number;
  /** Homoglyphs and zero-width marks where this scheme writes them, and elsewhere. */
  readonly marks: { readonly onCarrier: number; readonly offCarrier: number };
  /** 0..1: that the marks are a watermark of this scheme rather than chance. */
  readonly confidence: number;
}

/** Whether the mark at `i` sits where the embedder puts marks: after a word, before a space. */
function endsWord(text: string, i: number): boolean {
  const before = i > 0 ? text.charCodeAt(i - 1) : 32;
  const after = i + 1 < text.length ? text.charCodeAt(i + 1) : 32;
  return !isSpace(before) && zeroWidthSymbol(before) < 0 && isSpace(after);
}

export function extract(text: string): Extraction {
  const ones = new Array<number>(TAG_BITS).fill(0);
  const zeros = new Array<number>(TAG_BITS).fill(0);
  let votes = 0;
  let onCarrier = 0;
  let offCarrier = 0;
  let log2Chance = 0;
  const vote = (slot: number, value: number) => {
    if ((value ^ slotWhitening(slot)) === 1) ones[slotIndex(slot)]! += 1;
    else zeros[slotIndex(slot)]! += 1;
    votes += 1;
  };

  const words = wordsOf(text);
  const context = new LetterContext();
  let w = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const symbol = zeroWidthSymbol(code);
    if (symbol >= 0) {
      if (!context.has(MARK_CONTEXT)) continue;
      const mark = markCarrier(context);
      for (let k = 0; k < MARK_BITS; k += 1) vote(markSlot(mark, k), (symbol >> (MARK_BITS - 1 - k)) & 1);
      if (endsWord(text, i)) {
        onCarrier += 1;
        log2Chance += Math.log2(STRAY_MARK_AT_WORD_END);
      } else offCarrier += 1;
      continue;
    }
    const letter = context.push(code);
    if (letter < 0 || !context.has(HOMOGLYPH_CONTEXT)) continue;
    const glyph = latinFor(code) !== 0;
    if (!glyph && homoglyphFor(code) === 0) continue;
    const slot = homoglyphCarrier(context);
    if (glyph) {
      if (slot >= 0) {
        vote(slot, 1);
        onCarrier += 1;
        log2Chance += Math.log2(HOMOGLYPH_RATE);
      } else offCarrier += 1;
      continue;
    }
    while (w < words.count && words.end[w]! <= i) w += 1;
    const interior = w >= EDGE_WORDS && w < words.count - EDGE_WORDS;
    if (slot >= 0 && interior && words.eligible[w] === 1) vote(slot, 0);
  }

  const consistent = onCarrier > 0 && offCarrier <= OFF_CARRIER_TOLERANCE * (onCarrier + offCarrier);
  return {
    ones,
    zeros,
    votes,
    marks: { onCarrier, offCarrier },
    confidence: consistent ? 1 - 2 ** log2Chance : 0,
  };
}
