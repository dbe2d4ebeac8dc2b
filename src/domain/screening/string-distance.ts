/**
 * Edit measures for one name token against another, the typo tolerance of party
 * screening: Jaro-Winkler rewards a shared start (Indian names vary at the end far more
 * than at the beginning: "Chaudhary", "Chaudhari"), and the optimal-string-alignment
 * Damerau-Levenshtein distance counts one swapped pair of letters as one slip. Pure.
 */

export function jaro(a: string, b: string): number {
  if (a === b) return a.length === 0 ? 0 : 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aTaken = new Array<boolean>(a.length).fill(false);
  const bTaken = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(b.length - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (bTaken[j] === true || a.charAt(i) !== b.charAt(j)) continue;
      aTaken[i] = true;
      bTaken[j] = true;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < a.length; i++) {
    if (aTaken[i] !== true) continue;
    while (bTaken[k] !== true) k++;
    if (a.charAt(i) !== b.charAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  return (m / a.length + m / b.length + (m - transpositions / 2) / m) / 3;
}

/** Jaro similarity lifted by up to four shared leading characters (scaling 0.1). */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a.charAt(prefix) === b.charAt(prefix)) prefix++;
  return j + prefix * 0.1 * (1 - j);
}

/** Insertions, deletions, substitutions and adjacent swaps needed to turn `a` into `b`. */
export function damerauLevenshtein(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++)
    for (let j = 1; j < cols; j++) {
      const cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a.charAt(i - 1) === b.charAt(j - 2) && a.charAt(i - 2) === b.charAt(j - 1))
        best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  return at(a.length, b.length);
}
