/**
 * Writes an account's tag into prose. Two layers, both invisible to a reader:
 * homoglyphs (a carrier letter becomes its Cyrillic look-alike when its whitened bit is
 * 1) survive whitespace normalisation, zero-width stripping and NFKC; zero-width marks
 * after words (three bits each) are dense and survive whitespace normalisation. The cost,
 * measured by bench/watermark.bench.ts on the real judgments: about 33 of every 1,000
 * characters become homoglyphs (roughly one word in six holds one), so a consumer's exact
 * string search misses those words (a search that folds confusables, or one on the
 * unwatermarked caseId/caseNumber fields, does not); about 141 zero-width marks are added
 * per 1,000 characters (+46% UTF-8 bytes), and a phrase search across a mark misses unless
 * marks are stripped first. Fewer homoglyphs would make extracts stripped of zero-width
 * marks untraceable below about 1,000 characters. Existing zero-width marks are dropped so
 * that only this tag's marks can vote.
 */
import { homoglyphFor, MARK_BITS, ZERO_WIDTH_MARKS, zeroWidthSymbol } from './alphabet.ts';
import {
  HOMOGLYPH_CONTEXT,
  homoglyphCarrier,
  LetterContext,
  MARK_CONTEXT,
  markCarrier,
  markSlot,
  slotIndex,
  slotWhitening,
  wordsOf,
} from './carriers.ts';
import { finish, type Steps } from '../steps.ts';
import { isAccountTag, type AccountTag } from './tag.ts';

function bit(tag: AccountTag, slot: number): number {
  return tag[slotIndex(slot)]! ^ slotWhitening(slot);
}

/** Characters `embedSteps` marks between two pauses: about a millisecond of work. */
export const EMBED_STEP_CHARS = 8_192;

export function embed(text: string, tag: AccountTag): string {
  return finish(embedSteps(text, tag, Infinity));
}

/**
 * `embed` in steps: pauses after every `stepChars` characters and returns the marked text
 * when done, so a caller can give the event loop back between steps (a judgment of half a
 * million characters takes some 60 ms to mark). The steps only split the work; the text
 * comes out the same.
 */
export function* embedSteps(text: string, tag: AccountTag, stepChars = EMBED_STEP_CHARS): Steps<string> {
  if (!isAccountTag(tag)) throw new Error('embed: not an account tag');
  const words = wordsOf(text);
  const context = new LetterContext();
  // Unchanged runs are copied as slices: only inserted marks and swapped letters are new.
  const out: string[] = [];
  let copiedTo = 0;
  const write = (at: number, resumeAt: number, piece: string) => {
    out.push(text.slice(copiedTo, at), piece);
    copiedTo = resumeAt;
  };
  let w = 0;
  let pauseAt = stepChars;
  for (let i = 0; i < text.length; i += 1) {
    if (i === pauseAt) {
      pauseAt += stepChars;
      yield;
    }
    const code = text.charCodeAt(i);
    if (zeroWidthSymbol(code) >= 0) {
      write(i, i + 1, '');
      continue;
    }
    const letter = context.push(code);
    while (w < words.count && words.end[w]! <= i) w += 1;
    if (w === words.count || words.start[w]! > i || words.eligible[w] === 0) continue;
    const glyph = homoglyphFor(code);
    if (letter >= 0 && glyph !== 0 && context.has(HOMOGLYPH_CONTEXT)) {
      const slot = homoglyphCarrier(context);
      if (slot >= 0 && bit(tag, slot) === 1) write(i, i + 1, String.fromCharCode(glyph));
    }
    if (i === words.end[w]! - 1 && words.eligible[w + 1] === 1 && context.has(MARK_CONTEXT)) {
      const mark = markCarrier(context);
      let symbol = 0;
      for (let k = 0; k < MARK_BITS; k += 1) symbol = (symbol << 1) | bit(tag, markSlot(mark, k));
      write(i + 1, i + 1, ZERO_WIDTH_MARKS[symbol]!);
    }
  }
  out.push(text.slice(copiedTo));
  return out.join('');
}
