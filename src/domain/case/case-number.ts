/**
 * Case-number normalisation. Courts and reporters print the same number many ways
 * ("C.A. No.-000101-000101 - 1959" from the Supreme Court API, "Civil Appeal No. 101 of
 * 1959" in judgment headers, "CA 101/1959" typed by users), so search needs one key per
 * number: an upper-case type token with punctuation removed, then the numbers (leading
 * zeros dropped, ranges as FROM-TO) and the year, space-separated. Pure, no IO.
 */

/** Long forms the Supreme Court abbreviates; rewritten before punctuation is dropped. */
const LONG_FORMS: readonly [RegExp, string][] = [
  [/\bCIVIL APPEALS?\b/g, 'C.A.'],
  [/\bCRIMINAL APPEALS?\b/g, 'CRL.A.'],
  [/\bSPECIAL LEAVE PETITIONS?\b/g, 'SLP'],
  [/\bWRIT PETITIONS?\b/g, 'W.P.'],
  [/\bTRANSFER PETITIONS?\b/g, 'T.P.'],
  [/\bREVIEW PETITIONS?\b/g, 'R.P.'],
  [/\bCONTEMPT PETITIONS?\b/g, 'CONMT.PET.'],
  [/\bCURATIVE PETITIONS?\b/g, 'CURATIVE PET'],
  [/\(\s*CIVIL\s*\)/g, '(C)'],
  [/\(\s*CRIMINAL\s*\)/g, '(CRL)'],
  [/\(\s*CRL\s*\.?\s*\)/g, '(CRL)'],
];

/** The SC app API shape: `TYPE No.-FROM[-TO] - YEAR` (also `MA-001529 - 2018`). */
const SC_API_SHAPE = /^(.*?)(?:\s*\bNO\.?)?\s*-\s*(\d+)(?:-(\d+))?\s+-\s+(\d{1,4})$/;

function stripZeros(digits: string): string {
  return digits.replace(/^0+(?=\d)/, '');
}

function range(from: string, to: string | undefined): string {
  const a = stripZeros(from);
  const b = to === undefined ? a : stripZeros(to);
  return a === b ? a : `${a}-${b}`;
}

export function normaliseCaseNumber(raw: string): string {
  let s = raw.toUpperCase().replace(/\s+/g, ' ').trim();
  const sc = SC_API_SHAPE.exec(s);
  if (sc) s = `${sc[1] ?? ''} ${range(sc[2] ?? '', sc[3])} ${sc[4] ?? ''}`;
  for (const [pattern, short] of LONG_FORMS) s = s.replace(pattern, short);

  const firstDigit = s.search(/\d/);
  const typePart = firstDigit < 0 ? s : s.slice(0, firstDigit);
  const rest = firstDigit < 0 ? '' : s.slice(firstDigit);

  const type = typePart
    .replace(/\bNOS?\b\.?/g, ' ')
    .replace(/[^A-Z0-9 ]+/g, '')
    .replace(/\s+/g, '');
  const numbers = rest
    .replace(/&/g, ' AND ')
    .replace(/\bNOS?\b\.?/g, ' ')
    .replace(/\b(?:OF|AND|ETC)\b\.?/g, ' ')
    .replace(/\bTO\b/g, '-')
    .replace(/(\d+)\s*[-–]\s*(\d+)/g, (_m, a: string, b: string) => range(a, b))
    .replace(/[^A-Z0-9-]+/g, ' ')
    .split(' ')
    .map((t) => t.replace(/^-+|-+$/g, ''))
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
  const m = /^(.+?)\s*(?:No\.)?-(\d+)(?:-(\d+))?\s+-\s+(\d{4})\s*$/.exec(raw.trim());
  if (!m || !m[1] || !m[2] || !m[4]) return null;
  const year = Number(m[4]);
  if (year === 0) return null;
  return { type: m[1].trim(), from: stripZeros(m[2]), to: stripZeros(m[3] ?? m[2]), year };
}
