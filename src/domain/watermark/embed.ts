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

/** A zero-width mark already in the text, dropped. */
const DROP = 0;
/** A homoglyph carrier: the letter becomes its glyph when the carrier's bit is 1. */
const GLYPH = 1;
/** A word gap: a zero-width mark is inserted, its symbol from three bits of the tag. */
const MARK = 2;

/**
 * Where a text's marks go and which tag bits decide them. Everything but the tag's bits
 * depends on the text alone (words, letter contexts, carrier hashes: almost all the cost),
 * so a text is planned once and then written for each account by `markText` or
 * `markedJson` at the cost of a copy.
 */
export interface MarkPlan {
  readonly text: string;
  readonly count: number;
  /** Code-unit index of each edit, in order (an insertion goes before that index). */
  readonly at: Int32Array;
  readonly kind: Uint8Array;
  /** GLYPH: the carrier's slot; MARK: the mark carrier whose three slots give its symbol. */
  readonly carrier: Int32Array;
  /** GLYPH: the glyph's code. */
  readonly glyph: Uint16Array;
}

export function embed(text: string, tag: AccountTag): string {
  return finish(embedSteps(text, tag, Infinity));
}

/**
 * `embed` in steps: pauses after every `stepChars` characters planned and returns the
 * marked text when done, so a caller can give the event loop back between steps (a
 * judgment of half a million characters takes some 60 ms to plan). The steps only split
 * the work; the text comes out the same.
 */
export function* embedSteps(text: string, tag: AccountTag, stepChars = EMBED_STEP_CHARS): Steps<string> {
  if (!isAccountTag(tag)) throw new Error('embed: not an account tag');
  return markText(yield* planSteps(text, stepChars), tag);
}

/** Plans a text's marks (see MarkPlan), pausing after every `stepChars` characters. */
export function* planSteps(text: string, stepChars = EMBED_STEP_CHARS): Steps<MarkPlan> {
  const words = wordsOf(text);
  const context = new LetterContext();
  let capacity = 64;
  let at = new Int32Array(capacity);
  let kind = new Uint8Array(capacity);
  let carrier = new Int32Array(capacity);
  let glyphs = new Uint16Array(capacity);
  let count = 0;
  const edit = (index: number, k: number, c: number, g: number) => {
    if (count === capacity) {
      capacity *= 2;
      at = grown(at, new Int32Array(capacity));
      kind = grown(kind, new Uint8Array(capacity));
      carrier = grown(carrier, new Int32Array(capacity));
      glyphs = grown(glyphs, new Uint16Array(capacity));
    }
    at[count] = index;
    kind[count] = k;
    carrier[count] = c;
    glyphs[count] = g;
    count += 1;
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
      edit(i, DROP, 0, 0);
      continue;
    }
    const letter = context.push(code);
    while (w < words.count && words.end[w]! <= i) w += 1;
    if (w === words.count || words.start[w]! > i || words.eligible[w] === 0) continue;
    const glyph = homoglyphFor(code);
    if (letter >= 0 && glyph !== 0 && context.has(HOMOGLYPH_CONTEXT)) {
      const slot = homoglyphCarrier(context);
      if (slot >= 0) edit(i, GLYPH, slot, glyph);
    }
    if (i === words.end[w]! - 1 && words.eligible[w + 1] === 1 && context.has(MARK_CONTEXT)) edit(i + 1, MARK, markCarrier(context), 0);
  }
  return { text, count, at, kind, carrier, glyph: glyphs };
}

function grown<T extends Int32Array | Uint8Array | Uint16Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function markSymbol(tag: AccountTag, mark: number): number {
  let symbol = 0;
  for (let k = 0; k < MARK_BITS; k += 1) symbol = (symbol << 1) | bit(tag, markSlot(mark, k));
  return symbol;
}

/** The planned text marked with one account's tag. */
export function markText(plan: MarkPlan, tag: AccountTag): string {
  const { text } = plan;
  // Unchanged runs are copied as slices: only inserted marks and swapped letters are new.
  const out: string[] = [];
  let copiedTo = 0;
  for (let e = 0; e < plan.count; e += 1) {
    const i = plan.at[e]!;
    const k = plan.kind[e]!;
    if (k === GLYPH && bit(tag, plan.carrier[e]!) === 0) continue;
    out.push(
      text.slice(copiedTo, i),
      k === DROP ? '' : k === GLYPH ? String.fromCharCode(plan.glyph[e]!) : ZERO_WIDTH_MARKS[markSymbol(tag, plan.carrier[e]!)]!,
    );
    copiedTo = k === MARK ? i : i + 1;
  }
  out.push(text.slice(copiedTo));
  return out.join('');
}

/**
 * A plan laid over the text's JSON string (UTF-8, quotes included): the unmarked bytes
 * once, and where in them each edit falls, so an account's marked JSON string is written
 * by copying bytes, with no string built, escaped or encoded per account.
 */
export interface JsonMarkPlan {
  readonly plan: MarkPlan;
  readonly bytes: Uint8Array;
  /** Byte offset in `bytes` of each edit's code unit. */
  readonly byteAt: Int32Array;
  /** Bytes the edited code unit takes in `bytes` (DROP and GLYPH replace it). */
  readonly byteLength: Uint8Array;
}

const encoder = new TextEncoder();
const MARK_BYTES = ZERO_WIDTH_MARKS.map((mark) => encoder.encode(mark));

export function jsonPlanOf(plan: MarkPlan): JsonMarkPlan {
  const { text, count } = plan;
  const byteAt = new Int32Array(count);
  const byteLength = new Uint8Array(count);
  // Edits never split a surrogate pair (they sit at BMP letters, zero-width marks and
  // after whole words), so escaping the runs between them one by one escapes as the whole.
  let offset = 1;
  let from = 0;
  for (let e = 0; e < count; e += 1) {
    const i = plan.at[e]!;
    offset += jsonBytes(text.slice(from, i));
    byteAt[e] = offset;
    if (plan.kind[e] !== MARK) byteLength[e] = jsonBytes(text[i]!);
    from = i;
  }
  return { plan, bytes: encoder.encode(JSON.stringify(text)), byteAt, byteLength };
}

/** UTF-8 bytes of a piece once escaped as JSON string content (escaping leaves no lone surrogate). */
function jsonBytes(piece: string): number {
  const escaped = JSON.stringify(piece);
  let n = 0;
  for (let i = 1; i < escaped.length - 1; i += 1) {
    const code = escaped.charCodeAt(i);
    if (code < 0x80) n += 1;
    else if (code < 0x800) n += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      n += 4;
      i += 1;
    } else n += 3;
  }
  return n;
}

/** Each slot's bit of a tag (whitening applied), looked up per edit when writing. */
function slotBits(tag: AccountTag): Uint8Array {
  const bits = new Uint8Array(128);
  for (let slot = 0; slot < 128; slot += 1) bits[slot] = bit(tag, slot);
  return bits;
}

/** Runs shorter than this are copied byte by byte: a typed-array copy call costs more. */
const SHORT_RUN = 48;

/** The account's marked text as a JSON string's UTF-8 bytes (what JSON.stringify(markText(...)) encodes to). */
export function markedJson(json: JsonMarkPlan, tag: AccountTag): Uint8Array {
  const { plan, bytes, byteAt, byteLength } = json;
  const { kind, carrier, glyph } = plan;
  const bits = slotBits(tag);
  const out = new Uint8Array(bytes.length + 3 * plan.count);
  let o = 0;
  let from = 0;
  for (let e = 0; e < plan.count; e += 1) {
    const k = kind[e]!;
    const c = carrier[e]!;
    if (k === GLYPH && bits[c] === 0) continue;
    const to = byteAt[e]!;
    if (to - from < SHORT_RUN) while (from < to) out[o++] = bytes[from++]!;
    else {
      out.set(bytes.subarray(from, to), o);
      o += to - from;
      from = to;
    }
    if (k === MARK) {
      const mark = MARK_BYTES[(bits[c & 127]! << 2) | (bits[(c >>> 7) & 127]! << 1) | bits[(c >>> 14) & 127]!]!;
      out[o++] = mark[0]!;
      out[o++] = mark[1]!;
      out[o++] = mark[2]!;
    } else {
      if (k === GLYPH) {
        const g = glyph[e]!;
        out[o++] = 0xc0 | (g >> 6);
        out[o++] = 0x80 | (g & 0x3f);
      }
      from += byteLength[e]!;
    }
  }
  out.set(bytes.subarray(from), o);
  return out.subarray(0, o + bytes.length - from);
}
