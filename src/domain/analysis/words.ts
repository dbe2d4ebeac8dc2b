/**
 * Words as the analysis compares them: lower-cased runs of letters, and content words
 * (not function words, not the furniture every judgment repeats: court, appeal,
 * appellant, learned) for measuring what a sentence is about. A crude suffix strip makes
 * "held"/"holding" and "contracts"/"contract" meet. Pure.
 */

const FUNCTION_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers him his how i if ' +
    'in into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same ' +
    'she should so some such than that the their theirs them then there these they this those through to too under until up ' +
    'upon very was we were what when where which while who whom why will with would you your shall may might must said ' +
    'thereof therein thereby whereas hereinafter aforesaid one two three however therefore thus hence even though'
  ).split(' '),
);

/** Words every judgment uses, which say nothing about this one. */
const JUDGMENT_FURNITURE = new Set(
  (
    'court courts appeal appeals appellant appellants respondent respondents petitioner petitioners learned counsel ' +
    'case cases judgment judge judges high supreme order mr shri sri no nos section sections act article ' +
    'present view made held said para paragraph page'
  ).split(' '),
);

export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/g) ?? [];
}

function stem(word: string): string {
  return word
    .replace(/(?:ings?|edly|ed|es|s)$/, '')
    .replace(/(?:ment|ness|ity|ion)$/, '')
    .replace(/(.)\1$/, '$1');
}

/** Stemmed content words, in order, repeats kept. */
export function contentWords(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 2 && !FUNCTION_WORDS.has(w) && !JUDGMENT_FURNITURE.has(w))
    .map(stem)
    .filter((w) => w.length > 2);
}

/** Share of `a`'s distinct content words that also occur in `b`. */
export function overlap(a: readonly string[], b: readonly string[]): number {
  const left = new Set(a);
  if (left.size === 0) return 0;
  const right = new Set(b);
  let shared = 0;
  for (const w of left) if (right.has(w)) shared += 1;
  return shared / left.size;
}
