/**
 * Edit measures for one name token against another, the typo tolerance of party
 * screening: Jaro-Winkler rewards a shared start (Indian names vary at the end far more
 * than at the beginning: "Chaudhary", "Chaudhari"), and the optimal-string-alignment
 * Damerau-Levenshtein distance counts one swapped pair of letters as one slip.
 *
 * A token is caller text (up to 200 characters), and a check compares every token of every
 * name it was given with every token of every candidate, so both measures take time in
 * proportion to the lengths, not their product: Jaro finds each match through a per-letter
 * queue of positions instead of scanning the match window, and the edit distance is asked
 * only whether it is within a bound (`editsWithin`), which it answers from a band of the
 * table and stops as soon as no alignment can stay within it. Pure.
 */

/** A match window this narrow is scanned; a wider one is searched through per-letter queues. */
const SCANNED_WINDOW = 8;

/**
 * Jaro similarity. Each character of `a` takes the first untaken equal character of `b`
 * within the match window (half the longer length). Scanning the window costs the product
 * of the lengths, so past a narrow window the same match is found through a queue of each
 * letter's positions in `b`: windows only move right and equal letters are taken in order,
 * so once the positions left of the window are skipped, the next one in the queue is the
 * first untaken one.
 */
export function jaro(a: string, b: string): number {
  if (a === b) return a.length === 0 ? 0 : 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aTaken: boolean[] = new Array<boolean>(a.length).fill(false);
  const bTaken: boolean[] = new Array<boolean>(b.length).fill(false);
  const matches = window <= SCANNED_WINDOW ? matchByScan(a, b, window, aTaken, bTaken) : matchByQueue(a, b, window, aTaken, bTaken);
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

function matchByScan(a: string, b: string, window: number, aTaken: boolean[], bTaken: boolean[]): number {
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
  return matches;
}

function matchByQueue(a: string, b: string, window: number, aTaken: boolean[], bTaken: boolean[]): number {
  const queues = new Map<string, { positions: number[]; next: number }>();
  for (let j = 0; j < b.length; j++) {
    const queue = queues.get(b.charAt(j));
    if (queue === undefined) queues.set(b.charAt(j), { positions: [j], next: 0 });
    else queue.positions.push(j);
  }
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const queue = queues.get(a.charAt(i));
    if (queue === undefined) continue;
    const { positions } = queue;
    while (queue.next < positions.length && positions[queue.next]! < i - window) queue.next++;
    const j = positions[queue.next];
    if (j === undefined || j > i + window) continue;
    aTaken[i] = true;
    bTaken[j] = true;
    matches++;
    queue.next++;
  }
  return matches;
}

/** Jaro similarity lifted by up to four shared leading characters (scaling 0.1). */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a.charAt(prefix) === b.charAt(prefix)) prefix++;
  return j + prefix * 0.1 * (1 - j);
}

/** The three table rows `editsWithin` works in, kept between calls (one call runs at a time) and grown as needed. */
let rows = new Int32Array(3 * 64);

/**
 * The optimal-string-alignment distance (insertions, deletions, substitutions and adjacent
 * swaps) from `a` to `b` when it is at most `limit`, else `limit + 1`. Only cells within
 * `limit` of the diagonal can stay within the limit, so only they are computed, row by row
 * (three rows kept), and a row with no cell within the limit ends the count.
 */
export function editsWithin(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  if (a === b) return 0;
  const cols = b.length + 1;
  if (rows.length < 3 * cols) rows = new Int32Array(3 * cols);
  const d = rows;
  // Rows i - 2, i - 1 and i start at these offsets; a cell never computed stands for "over the limit".
  let before = 0;
  let previous = cols;
  let current = 2 * cols;
  d.fill(over, before, before + cols);
  for (let j = 0; j < cols; j++) d[previous + j] = Math.min(j, over);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    d.fill(over, current, current + cols);
    d[current] = Math.min(i, over);
    let rowBest = d[current]!;
    const ai = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const bj = b.charCodeAt(j - 1);
      let best = Math.min(d[previous + j]! + 1, d[current + j - 1]! + 1, d[previous + j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) best = Math.min(best, d[before + j - 2]! + 1);
      best = Math.min(best, over);
      d[current + j] = best;
      if (best < rowBest) rowBest = best;
    }
    if (rowBest > limit) return over;
    const spare = before;
    before = previous;
    previous = current;
    current = spare;
  }
  return d[previous + b.length]!;
}

/** Insertions, deletions, substitutions and adjacent swaps needed to turn `a` into `b`. */
export function damerauLevenshtein(a: string, b: string): number {
  return editsWithin(a, b, Math.max(a.length, b.length));
}
