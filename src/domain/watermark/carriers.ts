/**
 * Where the watermark may write, decided from what a reader sees so that embedding and
 * extraction agree on any copied piece of the text. A carrier's bit index and whitening
 * come from a hash of the letters just before it (folded: homoglyphs back to Latin,
 * lower case, whitespace, punctuation and zero-width marks ignored), so an extract that
 * starts anywhere, re-spaced or stripped of zero-width marks, still maps each carrier to
 * the bit it was written for. Words that look like identifiers (digits, slashes, URLs,
 * dotted abbreviations, acronyms) and every word within two of a word with digits
 * (case numbers such as "Civil Appeal No. 1918 of 2015", citations such as
 * "(2015) 3 SCC 123") are never written in, so identifiers stay byte-identical.
 */
import { foldHomoglyphs, foldedLetter, isSpace, latinFor, stripZeroWidthMarks, zeroWidthSymbol } from './alphabet.ts';

/** Bits in an account tag; see tag.ts for why 64. */
export const TAG_BITS = 64;

/** Letters (this one and the five before) whose hash places a homoglyph carrier. */
export const HOMOGLYPH_CONTEXT = 6;
/** Letters before a word gap whose hash places a zero-width mark. */
export const MARK_CONTEXT = 8;
/** Share of eligible homoglyph-capable letters that carry a bit (half of them change). */
export const HOMOGLYPH_RATE = 0.2;
/** Words this close to a word with digits belong to an identifier and stay untouched. */
const DIGIT_REACH = 2;

const HOMOGLYPH_SEED = 0x6a09e667;
const MARK_SEED = 0xbb67ae85;
const SPREAD = 0x9e3779b9;

/** The text's whitespace-separated words (zero-width marks are neither space nor word). */
export interface Words {
  readonly count: number;
  /** Index of each word's first code unit. */
  readonly start: Int32Array;
  /** Index after each word's last code unit that is not a zero-width mark. */
  readonly end: Int32Array;
  /** 1 where the watermark may write in the word. */
  readonly eligible: Uint8Array;
}

const SYMBOL_CHARACTERS = '/\\@_=#%&<>{}|~^*+$§';
const SYMBOLS = new Set(Array.from({ length: SYMBOL_CHARACTERS.length }, (_, i) => SYMBOL_CHARACTERS.charCodeAt(i)));
const IDENTIFIER = /\p{Nd}|[/\\@_=#%&<>{}|~^*+$§]|\p{L}\.\p{L}|\p{Lu}[^\p{Lu}]*\p{Lu}/u;
const DIGIT = /\p{Nd}/u;

const isAsciiLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/**
 * One pass over the characters classifies ASCII words (the bulk of the judgments); a word
 * with other characters is classified by the Unicode patterns on what a reader sees.
 */
export function wordsOf(text: string): Words {
  const start = new Int32Array(text.length + 1);
  const end = new Int32Array(text.length + 1);
  const digits = new Uint8Array(text.length + 1);
  const identifier = new Uint8Array(text.length + 1);
  let count = 0;
  let inWord = false;
  let hasDigit = false;
  let looksLikeId = false;
  let unusual = false;
  let capitals = 0;
  let prev = 0;
  let prevPrev = 0;
  for (let i = 0; i <= text.length; i += 1) {
    const raw = i < text.length ? text.charCodeAt(i) : 32;
    if (zeroWidthSymbol(raw) >= 0) continue;
    if (isSpace(raw)) {
      if (inWord) {
        if (unusual) {
          const seen = foldHomoglyphs(stripZeroWidthMarks(text.slice(start[count], end[count])));
          hasDigit = DIGIT.test(seen);
          looksLikeId = IDENTIFIER.test(seen);
        }
        digits[count] = hasDigit ? 1 : 0;
        identifier[count] = hasDigit || looksLikeId ? 1 : 0;
        count += 1;
      }
      inWord = false;
      continue;
    }
    const code = latinFor(raw) || raw;
    if (!inWord) {
      inWord = true;
      start[count] = i;
      hasDigit = false;
      looksLikeId = false;
      unusual = false;
      capitals = 0;
      prev = 0;
      prevPrev = 0;
    }
    end[count] = i + 1;
    if (code >= 48 && code <= 57) hasDigit = true;
    else if (code >= 65 && code <= 90) capitals += 1;
    else if (code > 127) unusual = true;
    if (SYMBOLS.has(code) || capitals >= 2 || (isAsciiLetter(prevPrev) && prev === 46 && isAsciiLetter(code))) looksLikeId = true;
    prevPrev = prev;
    prev = code;
  }
  const eligible = new Uint8Array(count);
  for (let w = 0; w < count; w += 1) {
    let nearDigits = false;
    for (let k = Math.max(0, w - DIGIT_REACH); k <= Math.min(count - 1, w + DIGIT_REACH); k += 1) {
      if (digits[k] === 1) nearDigits = true;
    }
    eligible[w] = nearDigits || identifier[w] === 1 ? 0 : 1;
  }
  return { count, start, end, eligible };
}

/** murmur3's finaliser: spreads every input bit over the whole word. */
function mix(h: number): number {
  let x = h >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A uniform fraction in [0, 1) from a hash, for the carrier rates. */
function fraction(h: number): number {
  return h / 4294967296;
}

/** The folded letters read so far (the last eight), for context hashes. */
export class LetterContext {
  private readonly ring = new Uint8Array(MARK_CONTEXT);
  private count = 0;

  /** Reads one code unit; returns its folded letter, or -1 when it is not a letter. */
  push(code: number): number {
    const letter = foldedLetter(code);
    if (letter >= 0) {
      this.ring[this.count % MARK_CONTEXT] = letter;
      this.count += 1;
    }
    return letter;
  }

  /** Whether `letters` letters have been read, so a hash over them is the embedder's. */
  has(letters: number): boolean {
    return this.count >= letters;
  }

  hash(letters: number, seed: number): number {
    let h = seed >>> 0;
    for (let k = letters; k >= 1; k -= 1) {
      h = Math.imul(h ^ this.ring[(this.count - k) % MARK_CONTEXT]!, 0x01000193);
    }
    return mix(h);
  }
}

/*
 * A carrier's slot packs one tag bit's place in seven bits: the low six are the bit's
 * index (TAG_BITS is 64), the seventh is its whitening, so unmarked text reads as coin
 * flips and never as a tag.
 */
export const slotIndex = (slot: number): number => slot & 63;
export const slotWhitening = (slot: number): number => (slot >>> 6) & 1;

/** The slot of a homoglyph carrier at the letter just read, or -1 when it is not one. */
export function homoglyphCarrier(context: LetterContext): number {
  const h = context.hash(HOMOGLYPH_CONTEXT, HOMOGLYPH_SEED);
  return fraction(h) < HOMOGLYPH_RATE ? mix(h ^ SPREAD) & 127 : -1;
}

/**
 * The zero-width mark for the gap after the letter just read: every gap between two
 * eligible words holds one (dense, so 200 characters carry enough votes). Returns its
 * MARK_BITS slots, most significant first, seven bits each.
 */
export function markCarrier(context: LetterContext): number {
  return mix(context.hash(MARK_CONTEXT, MARK_SEED) ^ SPREAD);
}

export const markSlot = (mark: number, k: number): number => (mark >>> (7 * k)) & 127;
