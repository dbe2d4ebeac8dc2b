/**
 * Finds and parses the citations Indian judgments print: AIR ("AIR 1973 SC 1461", older
 * "A.I.R. 1950 Calcutta 230", Indian Kanoon's "1991 air 101"), SCC ("(1973) 4 SCC 225",
 * "(1991) Supp (1) SCC 600"), SCR ("[1973] Supp. SCR 1", "1950 SCR 519", "1964 scr (3)
 * 410"), SCALE ("2004 (6) SCALE 123"), JT ("JT 2003 (5) SC 1"), ITR, ILR, Indlaw, the
 * English reports the older judgments rely on ("[1917] 1 K.B. 736", "(1853) 138 E.R.
 * 1284"), and neutral citations ("2023 INSC 1", "2019:DHC:1234"). The sources print the
 * same report many ways (dots or none, brackets lost, upper or lower case), so every
 * pattern is lenient about punctuation and strict about the numbers. Judgment texts are
 * long and OCR leaves long runs of spaces, so every pattern reads its text one way only:
 * `\s*(?:\(\s*)?`, never `\s*\(?\s*`, and a bracketed year is entered at its bracket or at
 * the first of the spaces before it. Pure.
 */
import type { Citation, Reporter } from './case-analysis.ts';

export interface CitationMatch {
  readonly start: number;
  readonly end: number;
  readonly citation: Citation;
}

const D = String.raw`\.?\s?`;
const YEAR_BRACKETED = String.raw`(?:[\[(]|(?<![\s\[(]))\s*(\d{4})\s*[\])]`;
/** Always followed by `\s*` where used, so it ends without one. */
const SUPP = String.raw`(?:Supp|Suppl|Supl)\.?(?:\s*\(\s*\d+\s*\))?`;

interface Family {
  readonly pattern: RegExp;
  readonly read: (m: RegExpExecArray) => Omit<Extract<Citation, { kind: 'report' }>, 'kind' | 'printed'> | null;
}

const num = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));

function volumeOf(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const supp = /^(?:supp|suppl|supl)\.?\s*(?:\(\s*(\d+)\s*\))?$/i.exec(raw.trim());
  if (supp) return supp[1] ? `Supp (${supp[1]})` : 'Supp';
  return raw.replace(/[()\s]/g, '');
}

/** The court segment as printed without dots ("SC", "Bom", "Calcutta"); a lower-cased source gets initialisms upper-cased. */
function courtOf(raw: string | undefined): string | null {
  const letters = (raw ?? '').replace(/[.\s()]/g, '');
  if (letters === '') return null;
  if (letters !== letters.toLowerCase()) return letters;
  return letters.length <= 2 || letters.includes('&') ? letters.toUpperCase() : letters[0]!.toUpperCase() + letters.slice(1);
}

function report(reporter: Reporter, year: string | undefined, volume: string | undefined, court: string | undefined, page: string) {
  return { reporter, year: num(year), volume: volumeOf(volume), court: courtOf(court), page: Number(page) };
}

const ENGLISH_REPORTERS: ReadonlyMap<string, Reporter> = new Map([
  ['AC', 'AC'],
  ['KB', 'KB'],
  ['QB', 'QB'],
  ['CH', 'Ch'],
  ['ALLER', 'All ER'],
  ['WLR', 'WLR'],
  ['ER', 'ER'],
]);

const FAMILIES: readonly Family[] = [
  {
    pattern: new RegExp(
      String.raw`\bA${D}I${D}R\.?\s*(?:\(\s*)?(\d{4})\s*(?:\)\s*)?(?:\(\s*)?([A-Za-z][A-Za-z.&]*(?:\s[A-Za-z][A-Za-z.&]*)?)\s*(?:\)\s*)?(\d{1,5})\b`,
      'gi',
    ),
    read: (m) => report('AIR', m[1], undefined, m[2], m[3]!),
  },
  {
    pattern: new RegExp(String.raw`\b(\d{4})\s+A${D}I${D}R\.?\s+(\d{1,5})\b`, 'gi'),
    read: (m) => report('AIR', m[1], undefined, undefined, m[2]!),
  },
  {
    pattern: new RegExp(
      String.raw`${YEAR_BRACKETED}\s*(?:(\d{1,2}|${SUPP})\s*)?S${D}C${D}C\.?\s*(?:\(\s*(?:Cri|L\s?&\s?S|Tax)\s*\)\s*)?(\d{1,5})\b`,
      'gi',
    ),
    read: (m) => report('SCC', m[1], m[2], undefined, m[3]!),
  },
  {
    pattern: new RegExp(String.raw`\b(\d{4})\s+S${D}C${D}C\.?\s*(${SUPP}|\(\s*\d{1,2}\s*\)|\d{1,2})\s*(\d{1,5})\b`, 'gi'),
    read: (m) => report('SCC', m[1], m[2], undefined, m[3]!),
  },
  {
    pattern: new RegExp(String.raw`${YEAR_BRACKETED}\s*(?:(\d{1,2}|${SUPP})\s*)?S${D}C${D}R\.?\s*(\d{1,5})\b`, 'gi'),
    read: (m) => report('SCR', m[1], m[2], undefined, m[3]!),
  },
  {
    pattern: new RegExp(String.raw`\b(\d{4})\s+(?:(${SUPP})\s*)?S${D}C${D}R\.?\s*(?:(${SUPP}|\(\s*\d{1,2}\s*\))\s*)?(\d{1,5})\b`, 'gi'),
    read: (m) => report('SCR', m[1], m[2] ?? m[3], undefined, m[4]!),
  },
  {
    pattern: new RegExp(
      String.raw`\b(\d{4})\s*\(\s*(\d{1,2})\s*\)\s*SCALE\s*(\d{1,5})\b|\b(\d{4})\s+SCALE\s*\(\s*(\d{1,2})\s*\)\s*(\d{1,5})\b`,
      'gi',
    ),
    read: (m) => report('SCALE', m[1] ?? m[4], m[2] ?? m[5], undefined, (m[3] ?? m[6])!),
  },
  {
    pattern: new RegExp(String.raw`\bJ${D}T\.?\s*(\d{4})\s*\(\s*(\d{1,2})\s*\)\s*(?:(S${D}C)\.?\s*)?(\d{1,5})\b`, 'gi'),
    read: (m) => report('JT', m[1], m[2], m[3], m[4]!),
  },
  {
    pattern: new RegExp(String.raw`${YEAR_BRACKETED}\s*(\d{1,3})\s*I${D}T${D}R\.?\s*(\d{1,5})\b`, 'gi'),
    read: (m) => report('ITR', m[1], m[2], undefined, m[3]!),
  },
  {
    pattern: new RegExp(
      String.raw`\bI${D}L${D}R\.?\s*(?:(?:\(\s*)?(\d{4})\s*(?:\)\s*)?)?(?:(\d{1,3})\s*)?([A-Za-z]{3,9})\.?\s*(\d{1,5})\b`,
      'gi',
    ),
    read: (m) => report('ILR', m[1], m[2], m[3], m[4]!),
  },
  { pattern: /\b(\d{4})\s+Indlaw\s+([A-Z]{2,6})\s+(\d{1,6})\b/gi, read: (m) => report('Indlaw', m[1], undefined, m[2], m[3]!) },
  {
    pattern: new RegExp(
      String.raw`[\[(]\s*(\d{4})\s*[\])]\s*(?:(\d{1,3})\s*)?(A${D}C|K${D}B|Q${D}B|Ch|All\s?E${D}R|W${D}L${D}R|E${D}R)\.?\s*(\d{1,5})\b`,
      'gi',
    ),
    read: (m) => {
      const key = m[3]!.replace(/[.\s]/g, '').toUpperCase();
      const reporter = ENGLISH_REPORTERS.get(key);
      return reporter === undefined ? null : report(reporter, m[1], m[2], undefined, m[4]!);
    },
  },
];

const NEUTRAL: readonly { pattern: RegExp; read: (m: RegExpExecArray) => { year: number; court: string; number: number } }[] = [
  { pattern: /\b(\d{4})\s+INSC\s+(\d{1,6})\b/gi, read: (m) => ({ year: Number(m[1]), court: 'INSC', number: Number(m[2]) }) },
  {
    pattern: /\b(\d{4}):([A-Z]{2,6}(?:-[A-Z]{2,4})?):(\d{1,6})(?::[A-Z]{2,4})?\b/g,
    read: (m) => ({ year: Number(m[1]), court: m[2]!, number: Number(m[3]) }),
  },
];

const plausibleYear = (year: number | null): boolean => year === null || (year >= 1800 && year <= 2100);

/** Every citation in the text, in order, overlapping readings resolved to the longest. */
export function findCitations(text: string): CitationMatch[] {
  const found: CitationMatch[] = [];
  const printedOf = (m: RegExpExecArray): string => m[0].replace(/\s+/g, ' ').trim();
  for (const family of FAMILIES) {
    for (const m of text.matchAll(family.pattern)) {
      const parts = family.read(m);
      if (parts === null || !plausibleYear(parts.year) || parts.page === 0) continue;
      found.push({ start: m.index, end: m.index + m[0].length, citation: { kind: 'report', printed: printedOf(m), ...parts } });
    }
  }
  for (const family of NEUTRAL) {
    for (const m of text.matchAll(family.pattern)) {
      const parts = family.read(m);
      if (!plausibleYear(parts.year)) continue;
      found.push({ start: m.index, end: m.index + m[0].length, citation: { kind: 'neutral', printed: printedOf(m), ...parts } });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: CitationMatch[] = [];
  for (const match of found) {
    const last = kept.at(-1);
    if (last === undefined || match.start >= last.end) kept.push(match);
  }
  return kept;
}

/** One key for the same report however printed. */
export function citationKey(citation: Citation): string {
  return citation.kind === 'neutral'
    ? `neutral|${String(citation.year)}|${citation.court}|${String(citation.number)}`
    : [citation.reporter, citation.year ?? '', citation.volume ?? '', citation.court ?? '', citation.page].join('|').toLowerCase();
}
