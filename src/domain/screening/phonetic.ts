/**
 * Spelling-independent forms of Indian name tokens. Names reach the courts through many
 * romanisations of the same sound ("Lakshmi", "Laxmi"; "Chaudhary", "Choudhury";
 * "Mohd", "Md", "Muhammad"), so tokens are compared on a canonical form (known
 * abbreviations and variant spellings written one way) and on a phonetic key (aspirates and
 * long vowels folded, doubled letters collapsed). The key is deliberately coarse; the
 * similarity scorer gives a key-only agreement less than an exact one. Pure.
 */

/** Variant spellings and abbreviations of one name word, written one way. */
const CANONICAL: Readonly<Record<string, string>> = {
  MD: 'MOHAMMAD',
  MOHD: 'MOHAMMAD',
  MOHAMMED: 'MOHAMMAD',
  MOHAMED: 'MOHAMMAD',
  MOHAMAD: 'MOHAMMAD',
  MOHAMMD: 'MOHAMMAD',
  MUHAMMAD: 'MOHAMMAD',
  MUHAMMED: 'MOHAMMAD',
  MUHAMED: 'MOHAMMAD',
  MOHAMMOD: 'MOHAMMAD',
  MAHOMED: 'MOHAMMAD',
  MAHAMMAD: 'MOHAMMAD',
  KR: 'KUMAR',
  KUM: 'KUMARI',
  PD: 'PRASAD',
  PERSHAD: 'PRASAD',
  PRASHAD: 'PRASAD',
  SYED: 'SAYYED',
  SAIYED: 'SAYYED',
  SAIYAD: 'SAYYED',
  SAYED: 'SAYYED',
  SAYYAD: 'SAYYED',
  SHAIKH: 'SHEIKH',
  SHEKH: 'SHEIKH',
  CORPN: 'CORPORATION',
  CORP: 'CORPORATION',
  COOP: 'COOPERATIVE',
  DEPTT: 'DEPARTMENT',
  DEPT: 'DEPARTMENT',
  GOVT: 'GOVERNMENT',
  INDS: 'INDUSTRIES',
  BROS: 'BROTHERS',
  INTL: 'INTERNATIONAL',
  MFG: 'MANUFACTURING',
};

export function canonicalToken(upper: string): string {
  return CANONICAL[upper] ?? upper;
}

/** Rewrites applied in order; each folds spellings that Indian romanisation treats alike. */
const KEY_REWRITES: readonly (readonly [RegExp, string])[] = [
  [/X/g, 'KS'],
  [/PH/g, 'F'],
  [/(OU|OW|AU)/g, 'AU'],
  [/W/g, 'V'],
  [/Z/g, 'J'],
  [/Q/g, 'K'],
  [/CK/g, 'K'],
  [/([BDGJKTS])H/g, '$1'],
  [/CH/g, 'C'],
  [/AA/g, 'A'],
  [/(EE|II|IE)/g, 'I'],
  [/(OO|UU)/g, 'U'],
  [/E?Y$/, 'I'],
  // The unwritten inner "a" (schwa): "KAMALA" and "KAMLA", "BHARATI" and "BHARTI".
  [/([AEIOU][^AEIOU])A(?=[^AEIOU][AEIOU])/g, '$1'],
  [/([AEIOU])H$/, '$1'],
  [/(.)\1+/g, '$1'],
];

/**
 * Keys already worked out: sixteen rewrites a word cost far more than a lookup, and a check
 * reads the same words again and again (the name in every alias, the candidates' parties).
 * Emptied when full, so it holds at most KNOWN_KEYS_MAX words.
 */
const knownKeys = new Map<string, string>();
const KNOWN_KEYS_MAX = 8192;

/** "LAKSHMI" and "LAXMI" → "LAKSMI"; "KAMALA" and "KAMLA" → "KAMLA"; "CHOUDHURY" → "CAUDURI". */
export function phoneticKey(canonical: string): string {
  const known = knownKeys.get(canonical);
  if (known !== undefined) return known;
  let key = canonical;
  for (const [pattern, replacement] of KEY_REWRITES) key = key.replace(pattern, replacement);
  if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.clear();
  knownKeys.set(canonical, key);
  return key;
}
