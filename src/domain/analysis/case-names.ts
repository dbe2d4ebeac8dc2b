/**
 * Recovers the name of a cited case from the words printed before its citation ("Kesavananda
 * Bharati v. State of Kerala, (1973) 4 SCC 225"), and finds cases named without one, as in
 * the law-report texts whose footnoted citations were cut away ("Brown vs The State of New
 * Jersey(1)"). Names are only claimed where the text bounds them: in mixed-case text a run
 * of capitalised words and connectors either side of "v."/"vs"; in a lower-cased source
 * (where capitals cannot mark the edge) only the words after the last stop word, and no
 * name-only references at all. Pure.
 */

const VERSUS = /\s(?:v|vs|versus)\.?\s/gi;
const CONNECTORS = new Set(['of', 'and', 'the', 'for', '&', 'de', 'da', 'del', 'la', 'bin', 'ors', 'anr', 'others', 'another', 'etc']);
/** Words that cannot end a name ("& Ors." can). */
const DANGLING = new Set(['of', 'and', 'the', 'for', '&', 'de', 'da', 'del', 'la', 'bin']);
const VERSUS_TOKEN = /^(?:v|vs|versus)\.?$/i;
/** In lower-cased text the name starts after the last of these. */
const STOPS = new Set(
  (
    'in see vide on upon relied reliance followed following decision decisions case cases judgment judgments held cited reported ' +
    'referred by that as also where which this court privy council cf and was were is are under from with approved overruled ' +
    'distinguished affirmed observed said'
  ).split(' '),
);
const MAX_SIDE_WORDS = 9;

function nameLike(token: string): boolean {
  return /^[("'“]?[A-Z0-9][\w.'’&/-]*[,)]?$/.test(token) || /^M\/[sS]\.?$/.test(token);
}

function leftSide(before: string, lowerCase: boolean): string {
  const tokens = before.trim().split(/\s+/);
  const kept: string[] = [];
  for (let i = tokens.length - 1; i >= 0 && kept.length < MAX_SIDE_WORDS; i--) {
    const token = tokens[i]!;
    const bare = token.toLowerCase().replace(/[^a-z&]/g, '');
    if (VERSUS_TOKEN.test(token)) break;
    if (lowerCase ? STOPS.has(bare) || /[;:]$/.test(token) : !(nameLike(token) || CONNECTORS.has(bare))) break;
    if (/,$/.test(token) && kept.length > 0) break;
    kept.unshift(token);
  }
  while (kept.length > 0 && CONNECTORS.has(kept[0]!.toLowerCase().replace(/[^a-z&]/g, ''))) kept.shift();
  return kept.join(' ');
}

function rightSide(after: string, lowerCase: boolean): string {
  const tokens = after.trim().split(/\s+/);
  const kept: string[] = [];
  for (let i = 0; i < tokens.length && kept.length < MAX_SIDE_WORDS; i++) {
    const token = tokens[i]!;
    const bare = token.toLowerCase().replace(/[^a-z&]/g, '');
    const bridge = /^[a-z-]+,?$/.test(token) && nameLike(tokens[i + 1] ?? '');
    if (VERSUS_TOKEN.test(token)) break;
    if (!lowerCase && !(nameLike(token) || CONNECTORS.has(bare) || (kept.length > 0 && bridge))) break;
    if (lowerCase && STOPS.has(bare) && bare !== 'and') break;
    kept.push(token);
    // A comma ends the name unless a place closes it right before a footnote mark ("Income-tax, West Bengal (2)").
    if (
      /[,;:]$/.test(token) &&
      !(/,$/.test(token) && /^(?:\S+\s){0,2}\S+\s\(\s*(?:\d{1,2}|supra)\s*\)/i.test(tokens.slice(i + 1, i + 5).join(' ')))
    )
      break;
  }
  while (
    kept.length > 0 &&
    DANGLING.has(
      kept
        .at(-1)!
        .toLowerCase()
        .replace(/[^a-z&]/g, ''),
    )
  )
    kept.pop();
  return kept.join(' ');
}

/**
 * Two letters, a "v."/"vs"/"versus" token, two letters, in that order. The first letter pair
 * and the first token after it are always the best choices, so each is looked for once (one
 * pattern `/[A-Za-z]{2,}.*\s(?:v|vs|versus)\.?\s.*[A-Za-z]{2,}/` would retry every pair against
 * every token). `text` holds no line break.
 */
function readsAsVersus(text: string): boolean {
  const left = /[A-Za-z]{2}/.exec(text);
  if (left === null) return false;
  const rest = text.slice(left.index + 2);
  const versus = /\s(?:v|vs|versus)\.?\s/i.exec(rest);
  return versus !== null && /[A-Za-z]{2}/.test(rest.slice(versus.index + versus[0].length));
}

function tidy(name: string): string | null {
  const cleaned = name
    .replace(/\(\s*(?:\d{1,2}|supra)\s*\)/gi, '')
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;:("'“]+/, '')
    // The trailing run is tried from its first character only, so it is not rescanned from each.
    .replace(/(?<![\s,;:('"”])[\s,;:('"”]+$/, '')
    .trim();
  return readsAsVersus(cleaned) || /'s case$/i.test(cleaned) ? cleaned : null;
}

/** The case name printed just before a citation, when the text gives one. */
export function nameBefore(span: string, lowerCase: boolean): string | null {
  const trimmed = span.replace(/(?<![\s,:;([])[\s,:;([]+$/, '').replace(/\b(?:reported (?:in|at)|in)$/i, '');
  const tail = trimmed.slice(-220);
  const versus = [...tail.matchAll(VERSUS)].at(-1);
  if (versus) {
    const left = leftSide(tail.slice(0, versus.index), lowerCase);
    const right = rightSide(tail.slice(versus.index + versus[0].length), lowerCase);
    if (left === '' || right === '') return null;
    return tidy(`${left} ${versus[0].trim()} ${right}`);
  }
  // Entered at word starts only: the leftmost reading starts at one anyway.
  const possessive = /(?<![\w.'’&-])([\w.'’&-]+(?:\s+[\w.'’&-]+){0,4})['’]s case$/i.exec(tail);
  if (possessive) {
    const who = leftSide(possessive[1]!, lowerCase);
    return who === '' ? null : `${who}'s case`;
  }
  return null;
}

export interface NamedReference {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

const CUE_BEFORE = /\b(?:in|of|see|vide|decision in|case of|relied (?:up)?on|followed|referred to|cf)\s*$/i;

/**
 * Cases a mixed-case text names without a citation: "X vs Y" closed by a footnote mark,
 * "(supra)", "'s case", or opened by "in", "see", "the case of" and the like.
 */
export function namedReferences(sentence: string): NamedReference[] {
  const found: NamedReference[] = [];
  for (const versus of sentence.matchAll(VERSUS)) {
    const before = sentence.slice(0, versus.index);
    const left = leftSide(before, false);
    const afterStart = versus.index + versus[0].length;
    const right = rightSide(sentence.slice(afterStart), false);
    if (left === '' || right === '' || !/^[A-Z"'“(]/.test(left) || !/^[A-Z"'“(]/.test(right)) continue;
    const start = before.lastIndexOf(left);
    const end = afterStart + sentence.slice(afterStart).indexOf(right) + right.length;
    const closing = sentence.slice(end, end + 12);
    const opening = sentence.slice(Math.max(0, start - 20), start);
    if (!/^\s*(?:\(\s*(?:\d{1,2}|supra)\s*\)|['’]s case)/i.test(closing) && !CUE_BEFORE.test(opening)) continue;
    const name = tidy(`${left} ${versus[0].trim()} ${right}`);
    if (name !== null) found.push({ start, end, name });
  }
  return found;
}
