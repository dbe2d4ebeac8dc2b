/**
 * Abbreviations Indian cause titles use for the same party ("UOI" and "Union of India",
 * "CIT" and "Commissioner of Income Tax", "State of U.P." and "State of Uttar Pradesh").
 * One table serves both search adapters: the Postgres index rewrites every short form to
 * its long form on both the document and the query side, and Meilisearch receives the
 * same table as synonyms. Short forms match with or without dots ("U.O.I.", "UOI").
 * Every entry occurs in the Supreme Court metadata's party names. Pure, no IO.
 */

export interface LegalAbbreviation {
  /** The long form, upper case, as written out in full. */
  readonly long: string;
  /** Letters of the short form (`&` allowed); dots and spaces between letters are optional. */
  readonly short: string;
  /** Words the short form must follow to count ("UP" only in "STATE OF UP"). */
  readonly after?: string;
}

export const LEGAL_ABBREVIATIONS: readonly LegalAbbreviation[] = [
  { long: 'UNION OF INDIA', short: 'UOI' },
  { long: 'COMMISSIONER OF INCOME TAX', short: 'CIT' },
  { long: 'COMMISSIONER OF CENTRAL EXCISE', short: 'CCE' },
  { long: 'CENTRAL BUREAU OF INVESTIGATION', short: 'CBI' },
  { long: 'LIFE INSURANCE CORPORATION', short: 'LIC' },
  { long: 'DELHI DEVELOPMENT AUTHORITY', short: 'DDA' },
  { long: 'NATIONAL CAPITAL TERRITORY', short: 'NCT' },
  { long: 'JAMMU AND KASHMIR', short: 'J&K' },
  { long: 'GOVERNMENT', short: 'GOVT' },
  { long: 'UTTAR PRADESH', short: 'UP', after: 'STATE OF' },
  { long: 'MADHYA PRADESH', short: 'MP', after: 'STATE OF' },
  { long: 'ANDHRA PRADESH', short: 'AP', after: 'STATE OF' },
  { long: 'HIMACHAL PRADESH', short: 'HP', after: 'STATE OF' },
  { long: 'TAMIL NADU', short: 'TN', after: 'STATE OF' },
  { long: 'WEST BENGAL', short: 'WB', after: 'STATE OF' },
];

function shortPattern(short: string): string {
  return (
    Array.from(short)
      .map((c) => (c === '&' ? String.raw`\s*&\s*` : c))
      .join(String.raw`\.?\s?`) + String.raw`\.?`
  );
}

const REWRITES: readonly [RegExp, string][] = LEGAL_ABBREVIATIONS.map((a) => {
  const before = a.after === undefined ? '' : String.raw`(${a.after.replace(/ /g, String.raw`\s+`)}\s+)`;
  const pattern = new RegExp(String.raw`(?<![A-Z0-9])${before}${shortPattern(a.short)}(?![A-Z0-9])`, 'gi');
  return [pattern, a.after === undefined ? a.long : `$1${a.long}`];
});

/** Writes every short form out in full: "U.O.I. & ORS." → "UNION OF INDIA & ORS.". */
export function expandLegalAbbreviations(text: string): string {
  let s = text.replace(/\bINCOME-TAX\b/gi, 'INCOME TAX');
  for (const [pattern, replacement] of REWRITES) s = s.replace(pattern, replacement);
  return s;
}

/** Groups of equivalent phrases, lower case, for engines with native synonyms. */
export function abbreviationSynonyms(): readonly (readonly string[])[] {
  return LEGAL_ABBREVIATIONS.map((a) => {
    const prefix = a.after === undefined ? '' : `${a.after.toLowerCase()} `;
    const letters = Array.from(a.short).filter((c) => c !== '&');
    // "J & K" spaced; initialisms dotted ("u.o.i."); a word-like short form ("govt") as is.
    const dotted = a.short.includes('&') ? a.short.replace('&', ' & ') : letters.length <= 3 ? `${letters.join('.')}.` : a.short;
    return [...new Set([`${prefix}${a.long.toLowerCase()}`, `${prefix}${a.short.toLowerCase()}`, `${prefix}${dotted.toLowerCase()}`])];
  });
}
