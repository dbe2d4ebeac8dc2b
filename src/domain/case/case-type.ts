/**
 * The Supreme Court's own case-type codes for the long forms its judgment headers print
 * ("Civil Appeal No. 56 of 1987" is a C.A.), so a record from a judgment text and one from
 * the court's metadata carry the same code and the caseType filter finds both. Anything
 * else (High Court codes, bare "Appeal") is kept as the source gave it. Pure.
 */
const SC_CODES: readonly [RegExp, string][] = [
  [/^civil appeals?$/, 'C.A.'],
  [/^criminal appeals?$/, 'Crl.A.'],
  [/^special leave petitions? \(civil\)$/, 'SLP(C)'],
  [/^special leave petitions? \(criminal\)$/, 'SLP(Crl)'],
  [/^writ petitions? \(civil\)$/, 'W.P.(C)'],
  [/^writ petitions? \(criminal\)$/, 'W.P.(Crl.)'],
  [/^transfer petitions? \(civil\)$/, 'T.P.(C)'],
  [/^review petitions? \(civil\)$/, 'R.P.(C)'],
];

export function supremeCourtCaseType(printed: string | null): string | null {
  if (printed === null) return null;
  const key = printed.toLowerCase().replace(/\s+/g, ' ').trim();
  for (const [pattern, code] of SC_CODES) if (pattern.test(key)) return code;
  return printed;
}
