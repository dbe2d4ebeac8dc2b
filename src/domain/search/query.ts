/**
 * Reading a free-text search query the way both search adapters need it: the words to
 * match (honorifics and list noise dropped, abbreviations written out, as party names
 * are indexed), the case numbers it may contain in any printed form ("Civil Appeal No.
 * 1918 of 2015 land", "bail in CA 1918/2015") as normalised keys, and a CNR. Where a case
 * number's type starts is not knowable from the text alone, so every plausible start is
 * offered as a candidate key; an index matches whichever is stored. Every pattern runs in
 * linear time on any query (see case-number.ts for how). Pure, no IO.
 */
import { normaliseCaseNumber, normaliseCnr } from '../case/case-number.ts';
import { dropNameNoise } from './party-name.ts';

export interface AnalysedQuery {
  /**
   * Words for full-text and fuzzy name matching, lower case; '' when nothing but
   * punctuation remains. Quotes and a `-` before a word are kept (web-search syntax).
   */
  readonly words: string;
  /** Normalised case-number keys the query may name, shortest type first. */
  readonly caseNumberKeys: readonly string[];
  /** "NUMBER YEAR" (or "FROM-TO YEAR") of a case number in the query, whatever its type. */
  readonly numberAndYear: string | null;
  readonly cnr: string | null;
}

/** `1918/2015`, `1918 of 2015`, `1156-1157 of 2001`, `-001918-001918 - 2015` (SC API). */
const NUMBER_AND_YEAR = /(?<!\d)(\d{1,7})(?:\s*(?:-|–|\bTO\b)\s*(\d{1,7}))?\s*(?:\/|\bOF\b|\s-\s|-)\s*((?:18|19|20)\d{2})(?!\d)/g;
const CNR_IN_TEXT = /(?<![A-Z0-9])[A-Z]{4}\s*(?:-\s*)?\d{2}\s*(?:-\s*)?\d{6}\s*(?:-\s*)?\d{4}(?![A-Z0-9])/;
/** "Petition for Special Leave to Appeal (C) No." is the longest type phrase in use. */
const MAX_TYPE_TOKENS = 8;

function caseNumberCandidates(text: string): { keys: string[]; numberAndYear: string | null } {
  const match = NUMBER_AND_YEAR.exec(text);
  NUMBER_AND_YEAR.lastIndex = 0;
  if (!match) return { keys: [], numberAndYear: null };
  const from = (match[1] ?? '').replace(/^0+(?=\d)/, '');
  const to = (match[2] ?? from).replace(/^0+(?=\d)/, '');
  const numberPart = `${from === to ? from : `${from}-${to}`} ${match[3] ?? ''}`;
  const before = text.slice(0, match.index).trim().split(/\s+/).filter(Boolean);
  const keys = new Set<string>();
  for (let k = 1; k <= Math.min(MAX_TYPE_TOKENS, before.length); k += 1) {
    const key = normaliseCaseNumber(`${before.slice(-k).join(' ')} ${match[0]}`);
    if (key !== numberPart) keys.add(key);
  }
  // A type glued to the number ("CA1918/2015", "WP(C)/5678/2019" split at the slash); the
  // run is tried from its first character only, so a long run is not rescanned from each.
  const glued = /(?<![A-Z().])[A-Z().]+\/?$/.exec(text.slice(0, match.index));
  if (glued) keys.add(normaliseCaseNumber(`${glued[0]} ${match[0]}`));
  keys.delete(numberPart);
  // A candidate too long to be a case number has no key.
  keys.delete('');
  return { keys: [...keys], numberAndYear: numberPart };
}

export function analyseQuery(query: string): AnalysedQuery {
  const upper = query.toUpperCase();
  const cnrMatch = CNR_IN_TEXT.exec(upper);
  const cnr = cnrMatch ? normaliseCnr(cnrMatch[0]) : null;
  const { keys, numberAndYear } = caseNumberCandidates(cnrMatch ? upper.replace(cnrMatch[0], ' ') : upper);
  const words = dropNameNoise(query)
    .replace(/[^A-Z0-9"-]+/g, ' ')
    .replace(/(?<!^|\s)-|-(?![A-Z])/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return { words, caseNumberKeys: keys, numberAndYear, cnr };
}
