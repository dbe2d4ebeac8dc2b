/**
 * Case-number normalisation. Courts and reporters print the same number many ways
 * ("C.A. No.-000101-000101 - 1959" from the Supreme Court API, "Civil Appeal No. 101 of
 * 1959" in judgment headers, "CA 101/1959" typed by users), so search needs one key per
 * number: an upper-case type token with punctuation removed, then the numbers (leading
 * zeros dropped, ranges as FROM-TO) and the year, space-separated. eCourts CNR numbers
 * (the 16-character case ids of District and High Courts) are their own key. Pure, no IO.
 *
 * Every caller's text reaches these parsers (a search query, a path `:id`, a filter), so
 * each pattern is written to run in linear time on any input: no two adjacent quantifiers
 * may take the same characters (`\s*(?:-\s*)?`, never `\s*-?\s*`), and text longer than
 * any printed form is refused before a pattern runs.
 */

/** Longer than any printed case number (the longest type phrase is under 50 characters). */
export const MAX_CASE_NUMBER_LENGTH = 300;

/** Long forms the Supreme Court abbreviates; rewritten before punctuation is dropped. */
const LONG_FORMS: readonly [RegExp, string][] = [
  [/\bPETITIONS? FOR SPECIAL LEAVE TO APPEAL\b/g, 'SLP'],
  [/\bSPECIAL LEAVE TO APPEAL\b/g, 'SLP'],
  [/\bSUO MOTU WRIT PETITIONS?\b/g, 'SMW'],
  [/\bCIVIL APPEALS?\b/g, 'C.A.'],
  [/\bCRIMINAL APPEALS?\b/g, 'CRL.A.'],
  [/\bSPECIAL LEAVE PETITIONS?\b/g, 'SLP'],
  [/\bWRIT PETITIONS?\b/g, 'W.P.'],
  [/\bTRANSFER PETITIONS?\b/g, 'T.P.'],
  [/\bREVIEW PETITIONS?\b/g, 'R.P.'],
  [/\bCONTEMPT PETITIONS?\b/g, 'CONMT.PET.'],
  [/\bCURATIVE PETITIONS?\b/g, 'CURATIVE PET'],
  [/\bTRANSFERRED CASES?\b/g, 'T.C.'],
  [/\bELECTION PETITIONS?\b/g, 'ELECT.PET.'],
  [/\bORIGINAL SUITS?\b/g, 'ORGNL.SUIT'],
  [/\bMISCELLANEOUS APPLICATIONS?\b/g, 'MA'],
  // The Supreme Court's own spelling, so the long form reaches the stored key.
  [/\bARBITRATION PETITIONS?\b/g, 'ARBIT.PETITON'],
  [/\(\s*CIVIL\s*\)/g, '(C)'],
  [/\(\s*CRIMINAL\s*\)/g, '(CRL)'],
  [/\(\s*CRL\s*(?:\.\s*)?\)/g, '(CRL)'],
];

/**
 * Short forms users type for the same type, after punctuation is dropped (`Crl. Appeal`,
 * `S.L.P. (Civil)`): mapped onto the token the Supreme Court's own abbreviation gives.
 */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  CRLAPPEAL: 'CRLA',
  ARBITPETITION: 'ARBITPETITON',
};

/**
 * The SC app API shape: `TYPE No.-FROM[-TO] - YEAR` (also `MA-001529 - 2018`). The type is
 * empty or ends in a non-space (the shortest type never ends in a space the spaces before
 * `No.` or `-` could take), which keeps it from trading spaces with them.
 */
const SC_API_SHAPE = /^(|.*?\S)(?:\s*\bNO\.?)?\s*-\s*(\d+)(?:-(\d+))?\s+-\s+(\d{1,4})$/;

function stripZeros(digits: string): string {
  return digits.replace(/^0+(?=\d)/, '');
}

function range(from: string, to: string | undefined): string {
  const a = stripZeros(from);
  const b = to === undefined ? a : stripZeros(to);
  return a === b ? a : `${a}-${b}`;
}

/**
 * State code, establishment, serial, year: `GAHC010225502018`, also printed `GAHC01-022550-2018`.
 * Each separator is spaces, then at most one hyphen with the spaces after it: one way only
 * to read a run of spaces.
 */
const CNR_SHAPE = /^([A-Z]{4})\s*(?:-\s*)?(\d{2})\s*(?:-\s*)?(\d{6})\s*(?:-\s*)?(\d{4})$/;

/** 16 characters, three hyphens and room for spaces around them: longer text is no CNR. */
const MAX_CNR_LENGTH = 40;

/** The 16-character CNR for any of its printed forms, or null when `raw` is not one. */
export function normaliseCnr(raw: string): string | null {
  const text = raw.trim();
  if (text.length > MAX_CNR_LENGTH) return null;
  const m = CNR_SHAPE.exec(text.toUpperCase());
  return m ? `${m[1] ?? ''}${m[2] ?? ''}${m[3] ?? ''}${m[4] ?? ''}` : null;
}

/** The search key of a case number in any printed form; '' when `raw` is none (or too long to be one). */
export function normaliseCaseNumber(raw: string): string {
  if (raw.length > MAX_CASE_NUMBER_LENGTH) return '';
  const cnr = normaliseCnr(raw);
  if (cnr !== null) return cnr;
  // `No(s).` and `Petition(s)` as the Supreme Court's orders print them.
  let s = raw.toUpperCase().replace(/\(S\)/g, 'S').replace(/\s+/g, ' ').trim();
  const sc = SC_API_SHAPE.exec(s);
  if (sc) s = `${sc[1] ?? ''} ${range(sc[2] ?? '', sc[3])} ${sc[4] ?? ''}`;
  for (const [pattern, short] of LONG_FORMS) s = s.replace(pattern, short);

  const firstDigit = s.search(/\d/);
  const typePart = firstDigit < 0 ? s : s.slice(0, firstDigit);
  const rest = firstDigit < 0 ? '' : s.slice(firstDigit);

  const compact = typePart
    .replace(/\bNOS?\b\.?/g, ' ')
    .replace(/[^A-Z0-9 ]+/g, '')
    .replace(/\s+/g, '');
  const type = TYPE_ALIASES[compact] ?? compact;
  const numbers = rest
    .replace(/&/g, ' AND ')
    .replace(/\bNOS?\b\.?/g, ' ')
    .replace(/\b(?:OF|AND|ETC)\b\.?/g, ' ')
    .replace(/\bTO\b/g, '-')
    // A range starts where a digit run starts: starting inside one would only rescan it.
    .replace(/(?<!\d)(\d+)\s*[-–]\s*(\d+)/g, (_m, a: string, b: string) => range(a, b))
    .replace(/[^A-Z0-9-]+/g, ' ')
    .split(' ')
    .map((t) => t.replace(/^-+|(?<!-)-+$/g, ''))
    .filter((t) => t !== '')
    .map((t) => (/^\d+$/.test(t) ? stripZeros(t) : t));

  return [type, ...numbers].filter((t) => t !== '').join(' ');
}

/**
 * Parses the SC app API case number into its parts, or null when the source gives no
 * number (` - 0`, ` - `) or another shape.
 */
export interface ScCaseNumberParts {
  type: string;
  from: string;
  to: string;
  year: number;
}

export function parseScApiCaseNumber(raw: string): ScCaseNumberParts | null {
  if (raw.length > MAX_CASE_NUMBER_LENGTH) return null;
  // The type ends in a non-space, as the shortest one always does (see SC_API_SHAPE).
  const m = /^(.*?\S)\s*(?:No\.)?-(\d+)(?:-(\d+))?\s+-\s+(\d{4})\s*$/.exec(raw.trim());
  if (!m || !m[1] || !m[2] || !m[4]) return null;
  const year = Number(m[4]);
  if (year === 0) return null;
  return { type: m[1].trim(), from: stripZeros(m[2]), to: stripZeros(m[3] ?? m[2]), year };
}
