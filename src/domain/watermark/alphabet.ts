/**
 * The characters the watermark writes with. Homoglyphs are Cyrillic letters drawn like
 * Latin ones: they survive whitespace normalisation, zero-width stripping, NFKC and case
 * changes (folding maps both cases back), so they carry the watermark when nothing else
 * does. Zero-width marks are eight default-ignorable format characters (zero-width
 * space, non-joiner, joiner, word joiner and the four invisible mathematical operators)
 * that JavaScript's `\s` does not match (so `replace(/\s+/g, ' ')` keeps them), that NFKC
 * leaves alone and that are not JSON control characters; U+FEFF is left out because
 * `trim()` and `\s` treat it as a space.
 */

/** Latin letter -> the Cyrillic letter drawn like it, in the case it is written. */
const HOMOGLYPHS: readonly (readonly [string, string])[] = [
  ['a', '\u0430'],
  ['c', '\u0441'],
  ['e', '\u0435'],
  ['i', '\u0456'],
  ['j', '\u0458'],
  ['o', '\u043e'],
  ['p', '\u0440'],
  ['s', '\u0455'],
  ['x', '\u0445'],
  ['y', '\u0443'],
  ['A', '\u0410'],
  ['B', '\u0412'],
  ['C', '\u0421'],
  ['E', '\u0415'],
  ['H', '\u041d'],
  ['I', '\u0406'],
  ['J', '\u0408'],
  ['K', '\u041a'],
  ['M', '\u041c'],
  ['O', '\u041e'],
  ['P', '\u0420'],
  ['S', '\u0405'],
  ['T', '\u0422'],
  ['X', '\u0425'],
  ['Y', '\u04ae'],
];

// Lookup tables indexed by UTF-16 code (all the letters involved sit below U+0500): the
// watermark touches every character of long judgments, and these are its hot path.
const TABLE_SIZE = 0x500;
const homoglyphOf = new Uint16Array(TABLE_SIZE);
const latinOf = new Uint16Array(TABLE_SIZE);
for (const [latin, glyph] of HOMOGLYPHS) homoglyphOf[latin.charCodeAt(0)] = glyph.charCodeAt(0);
/** Glyph -> Latin letter; a consumer's upper- or lower-casing of a glyph still folds. */
for (const [glyph, latin] of [
  ...HOMOGLYPHS.map(([latin, glyph]) => [glyph, latin] as const),
  ...HOMOGLYPHS.map(([latin, glyph]) => [glyph.toUpperCase(), latin.toUpperCase()] as const),
  ...HOMOGLYPHS.map(([latin, glyph]) => [glyph.toLowerCase(), latin.toLowerCase()] as const),
]) {
  if (latinOf[glyph.charCodeAt(0)] === 0) latinOf[glyph.charCodeAt(0)] = latin.charCodeAt(0);
}

/** The homoglyph code that may stand for this Latin letter, or 0 when it has none. */
export function homoglyphFor(code: number): number {
  return code < TABLE_SIZE ? homoglyphOf[code]! : 0;
}

/** The Latin letter this homoglyph stands for, or 0 when the code is not a homoglyph. */
export function latinFor(code: number): number {
  return code < TABLE_SIZE ? latinOf[code]! : 0;
}

/** The letter a reader sees, as a lower-case ASCII code, or -1 for anything else. */
export function foldedLetter(code: number): number {
  const latin = latinFor(code) || code;
  if (latin >= 65 && latin <= 90) return latin + 32;
  return latin >= 97 && latin <= 122 ? latin : -1;
}

/** The text a reader sees: every homoglyph back to its Latin letter. */
export function foldHomoglyphs(text: string): string {
  let out = '';
  for (const char of text) {
    const latin = latinFor(char.charCodeAt(0));
    out += latin === 0 ? char : String.fromCharCode(latin);
  }
  return out;
}

/** Bits one zero-width mark carries. */
export const MARK_BITS = 3;

/** Zero-width marks; a mark's position in this list is the bits it carries. */
export const ZERO_WIDTH_MARKS = ['\u200b', '\u200c', '\u200d', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064'] as const;

/** The bits a zero-width mark carries, or -1 when the character is not one. */
export function zeroWidthSymbol(code: number): number {
  if (code >= 0x200b && code <= 0x200d) return code - 0x200b;
  return code >= 0x2060 && code <= 0x2064 ? code - 0x2060 + 3 : -1;
}

/** The text without any zero-width mark. */
export function stripZeroWidthMarks(text: string): string {
  return text.replace(/[\u200b-\u200d\u2060-\u2064]/g, '');
}

/** Exactly the characters JavaScript's `\s` matches, NBSP and the Unicode spaces included. */
export function isSpace(code: number): boolean {
  return (
    (code >= 9 && code <= 13) ||
    code === 32 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
