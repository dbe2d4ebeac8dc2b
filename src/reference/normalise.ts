/**
 * Lookup keys shared by the reference generator and the reference module, so that the
 * uniqueness the generator checks is exactly the matching the module performs.
 */

/** Court names: case, dots, apostrophes, punctuation and spacing do not matter; "&" is "and". */
export function courtKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[.'\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Case-type labels: case and spacing do not matter; punctuation does ("(C)" vs "(Crl.)"). */
export function labelKey(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Case-type codes: case and spacing do not matter, so "wp (c)" finds "WP(C)". */
export function codeKey(text: string): string {
  return text.toUpperCase().replace(/\s+/g, '');
}
