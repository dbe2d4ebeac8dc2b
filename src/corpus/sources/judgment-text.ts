/**
 * Reading the case line of a Supreme Court judgment text ("civil appellate jurisdiction:
 * civil appeals nos. 754 and 755 of 1964.") — shared by the Indian Kanoon and IN-Abs
 * text datasets, which carry no structured case number. Pure string work.
 */

// Every piece reads its text one way only, so a line that fails fails in linear time: a
// word starts after no letter or dot (one word is never read as two), a number after no
// digit, and no two adjacent quantifiers take the same spaces. The type ends in its spaces,
// so no `\s*` follows it.
const TYPE = String.raw`(?:\(?(?<![a-z.])[a-z][a-z.]*\)?,?\s*(?:\([a-z. ]+\)\s*)?){1,6}?`;
const NO = String.raw`nos?\b\s*(?:[.:]\s*)?`;
/** `1640A`, `2611 A`, `412(nt)` occur; `/` joins `41/86` and `401/and 4012`. */
const NUMBER = String.raw`(?<!\d)\d+(?:\s?[a-z]\b)?(?:\s*\([a-z]+\))?`;
const NUMBERS = String.raw`${NUMBER}(?:\s*(?:[,&/-]\s*)?(?:(?:and|to)\b\s*)?${NUMBER})*`;
const YEAR = String.raw`(?:\s*of\b(?:\s+(\d{4})\b)?)?`;

/** `<type> No(s). <numbers> [of YEAR]`: the shape of a judgment's case line. */
const STRICT = new RegExp(String.raw`^(${TYPE})${NO}(${NUMBERS})${YEAR}`, 'i');
/** IN-Abs lines can lose the type or the `No.` to truncation: both optional. */
const LENIENT = new RegExp(String.raw`^(?:(${TYPE})|\s*)(?:${NO})?(${NUMBERS})${YEAR}`, 'i');

export interface CaseLine {
  /** As printed, whitespace collapsed. */
  text: string;
  type: string | null;
  /** Null when the source line lost it ("civil appeal no. 753-754 of (appeals ..."). */
  year: number | null;
}

export function readCaseLine(s: string, mode: 'strict' | 'lenient' = 'strict'): CaseLine | null {
  const flat = s.replace(/\s+/g, ' ').trim();
  const m = (mode === 'strict' ? STRICT : LENIENT).exec(flat);
  if (!m) return null;
  const type = m[1]?.trim() || null;
  return { text: m[0].trim(), type, year: m[3] ? Number(m[3]) : null };
}

/** The first "... jurisdiction:" followed by a case line (OCR gives "jurisdlctlon"). */
export function findJurisdictionCaseLine(text: string): CaseLine | null {
  for (const m of text.matchAll(/jurisd[a-z]*\s*[:.,]?\s*/gi)) {
    const start = m.index + m[0].length;
    const line = readCaseLine(text.slice(start, start + 600), 'strict');
    if (line) return line;
  }
  return null;
}
