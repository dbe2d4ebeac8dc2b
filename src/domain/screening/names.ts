/**
 * How alike a screened name and a party's name are, the way Indian cause titles differ
 * from what a customer types: word order ("Sharma Ramesh"), initials ("R.K. Sharma" for
 * "Ram Kumar Sharma"), transliteration ("Laxmi", "Lakshmi"), typos, run-together names
 * ("Ramkumar"), acronyms for companies ("BSNL"), and company forms that say nothing about
 * which company ("Pvt. Ltd.", "Limited"). Tokens come from `party-parse.ts`; this module
 * pairs them one to one (best pairs first) and reports a similarity in [0,1] with the
 * candidate tokens it rests on, so a match can show its spans. Pure.
 */
import { expandLegalAbbreviations } from '../search/legal-abbreviations.ts';
import type { EntityType } from './features.ts';
import { type NameToken, type NameTokens, parseParty } from './party-parse.ts';
import { editsWithin, jaroWinkler } from './string-distance.ts';

/** `shortTypo` is a slip in a word of at most six letters, where one letter often makes another name ("Ramesh", "Rajesh"). */
export type TokenAgreement = 'exact' | 'phonetic' | 'initial' | 'typo' | 'shortTypo' | 'joined' | 'acronym';

/** What each kind of agreement is worth; exact spelling beats a sound-alike beats a slip. */
export const AGREEMENT_SCORE: Readonly<Record<TokenAgreement, number>> = {
  exact: 1,
  phonetic: 0.95,
  joined: 0.95,
  acronym: 0.85,
  typo: 0.85,
  initial: 0.8,
  shortTypo: 0.7,
};

export interface TokenPair {
  query: NameToken;
  candidate: NameToken;
  agreement: TokenAgreement;
  score: number;
}

export interface NameMatch {
  similarity: number;
  /** Weighted share of the screened name's tokens found in the candidate. */
  tokenCoverage: number;
  /** Weighted share of the candidate's tokens accounted for by the screened name. */
  candidateCoverage: number;
  pairs: readonly TokenPair[];
  /** Both sides, forms aside, are the same tokens spelt the same way. */
  exact: boolean;
}

const NO_MATCH: NameMatch = { similarity: 0, tokenCoverage: 0, candidateCoverage: 0, pairs: [], exact: false };

function agreementOf(q: NameToken, c: NameToken): TokenAgreement | null {
  if (q.canon === c.canon) return 'exact';
  if (q.initial || c.initial) {
    const [short, long] = q.initial ? [q, c] : [c, q];
    return !long.initial && long.canon.startsWith(short.canon) ? 'initial' : null;
  }
  if (q.key === c.key) return 'phonetic';
  const shorter = Math.min(q.canon.length, c.canon.length);
  // A slip is one edit, or two in a word of seven letters or more: words of lengths further apart are different words.
  if (shorter < 4 || Math.abs(q.canon.length - c.canon.length) > 2) return null;
  const slips = shorter >= 7 ? 2 : 1;
  // The key and the written form are often the canonical spelling itself: each pair of spellings is counted once.
  const keysAsCanon = q.key === q.canon && c.key === c.canon;
  const writtenSeen = (q.written === q.canon && c.written === c.canon) || (q.written === q.key && c.written === c.key);
  const slipped =
    editsWithin(q.canon, c.canon, slips) <= slips ||
    (!keysAsCanon && editsWithin(q.key, c.key, slips) <= slips) ||
    (!writtenSeen && editsWithin(q.written, c.written, slips) <= slips) ||
    jaroWinkler(q.key, c.key) >= 0.94;
  if (!slipped) return null;
  return shorter >= 7 ? 'typo' : 'shortTypo';
}

const weighted = (tokens: NameTokens): NameToken[] => tokens.filter((t) => !t.form);
const total = (tokens: readonly NameToken[]): number => tokens.reduce((s, t) => s + t.weight, 0);

/** One-to-one pairing, best agreements first, heavier tokens breaking ties. */
function pairUp(query: readonly NameToken[], candidate: readonly NameToken[]): TokenPair[] {
  const options: TokenPair[] = [];
  for (const q of query)
    for (const c of candidate) {
      const agreement = agreementOf(q, c);
      if (agreement !== null) options.push({ query: q, candidate: c, agreement, score: AGREEMENT_SCORE[agreement] });
    }
  options.sort((a, b) => b.score - a.score || b.query.weight + b.candidate.weight - (a.query.weight + a.candidate.weight));
  const usedQ = new Set<NameToken>();
  const usedC = new Set<NameToken>();
  const pairs: TokenPair[] = [];
  for (const o of options) {
    if (usedQ.has(o.query) || usedC.has(o.candidate)) continue;
    usedQ.add(o.query);
    usedC.add(o.candidate);
    pairs.push(o);
  }
  return [...pairs, ...joinedPairs(query, candidate, usedQ, usedC), ...joinedPairs(candidate, query, usedC, usedQ, true)];
}

/** "RAMKUMAR" against "RAM KUMAR": one token is two adjacent tokens of the other side run together. */
function joinedPairs(
  whole: readonly NameToken[],
  split: readonly NameToken[],
  usedWhole: Set<NameToken>,
  usedSplit: Set<NameToken>,
  swapped = false,
): TokenPair[] {
  const pairs: TokenPair[] = [];
  for (const w of whole) {
    if (usedWhole.has(w)) continue;
    for (let i = 0; i + 1 < split.length; i++) {
      const [a, b] = [split[i], split[i + 1]];
      if (a === undefined || b === undefined || usedSplit.has(a) || usedSplit.has(b)) continue;
      if (a.canon + b.canon !== w.canon && a.key + b.key !== w.key) continue;
      usedWhole.add(w);
      usedSplit.add(a).add(b);
      const score = AGREEMENT_SCORE.joined;
      for (const part of [a, b])
        pairs.push(
          swapped ? { query: part, candidate: w, agreement: 'joined', score } : { query: w, candidate: part, agreement: 'joined', score },
        );
      break;
    }
  }
  return pairs;
}

/** Coverage of one side: each token counts its weight times its best agreement. */
function coverage(tokens: readonly NameToken[], pairs: readonly TokenPair[], side: 'query' | 'candidate'): number {
  const all = total(tokens);
  if (all === 0) return 0;
  const best = new Map<NameToken, number>();
  for (const p of pairs) best.set(p[side], Math.max(best.get(p[side]) ?? 0, p.score));
  return tokens.reduce((sum, t) => sum + t.weight * (best.get(t) ?? 0), 0) / all;
}

/** "L.I.C." read as one word, spanning its letters. */
function joinInitials(letters: readonly NameToken[]): NameToken | undefined {
  const first = letters[0];
  const last = letters[letters.length - 1];
  if (first === undefined || last === undefined) return undefined;
  const canon = letters.map((t) => t.canon).join('');
  return { ...first, canon, written: canon, key: canon, end: last.end, initial: false, weight: 1 };
}

/** "BSNL" for "Bharat Sanchar Nigam Ltd": a company's initials, forms and "India" optional. */
function acronymMatch(query: NameTokens, candidate: NameTokens): NameMatch | null {
  const tryOne = (short: NameTokens, long: NameTokens, shortIsQuery: boolean): NameMatch | null => {
    const only = weighted(short).filter((t) => t.canon !== 'INDIA');
    const word = only.length === 1 ? only[0] : only.every((t) => t.initial) ? joinInitials(only) : undefined;
    if (word === undefined || word.canon.length < 2 || word.canon.length > 6) return null;
    const initials = (ts: readonly NameToken[]): string => ts.map((t) => t.canon.charAt(0)).join('');
    const core = weighted(long).filter((t) => t.canon !== 'INDIA');
    const withoutIndia = long.filter((t) => t.canon !== 'INDIA');
    // Acronyms keep or drop trailing forms: "ICC" and "ICCL" for "Indian Copper Corporation Ltd".
    const prefixes = [long, withoutIndia].flatMap((ts) =>
      ts.map((_, i) => ts.slice(0, i + 1)).filter((p, i) => ts.slice(i + 1).every((t) => t.form)),
    );
    const readings = [...prefixes.map(initials), initials(weighted(long)), initials(core)];
    if (core.length < 2 || !readings.includes(word.canon)) return null;
    const score = AGREEMENT_SCORE.acronym;
    const pairs = long.map((t) => (shortIsQuery ? { query: word, candidate: t } : { query: t, candidate: word }));
    return {
      similarity: score,
      tokenCoverage: score,
      candidateCoverage: score,
      pairs: pairs.map((p) => ({ ...p, agreement: 'acronym' as const, score })),
      exact: false,
    };
  };
  return tryOne(query, candidate, true) ?? tryOne(candidate, query, false);
}

export function compareTokens(query: NameTokens, candidate: NameTokens, entityType: EntityType): NameMatch {
  const q = weighted(query);
  const c = weighted(candidate);
  if (q.length === 0 || c.length === 0) return NO_MATCH;
  const pairs = pairUp(q, c);
  const tokenCoverage = coverage(q, pairs, 'query');
  const candidateCoverage = coverage(c, pairs, 'candidate');
  const similarity = Math.sqrt(tokenCoverage * candidateCoverage);
  const exact = q.length === c.length && pairs.length === q.length && pairs.every((p) => p.agreement === 'exact');
  const byAcronym = entityType === 'company' && similarity < AGREEMENT_SCORE.acronym ? acronymMatch(query, candidate) : null;
  return byAcronym ?? { similarity, tokenCoverage, candidateCoverage, pairs, exact };
}

/** The screened name (or one alias) as tokens, one entry per "@" alias inside it. */
export function parseScreenedName(name: string, entityType: EntityType): readonly NameTokens[] {
  return readScreenedName(name, entityType).names;
}

/**
 * The screened name (or one alias) as tokens, one entry per "@" alias inside it, and the
 * relatives written into it ("Ramesh S/o Suresh"). A company's own names are read with its
 * legal abbreviations written out; the relatives, people, as written.
 */
export function readScreenedName(name: string, entityType: EntityType): { names: readonly NameTokens[]; relatives: readonly NameTokens[] } {
  const asWritten = parseParty(name, entityType);
  if (entityType !== 'company') return asWritten;
  return { names: parseParty(expandLegalAbbreviations(name.toUpperCase()), entityType).names, relatives: asWritten.relatives };
}

/** Convenience for callers with two plain strings: the best similarity over their aliases. */
export function nameSimilarity(screened: string, party: string, entityType: EntityType): number {
  const candidates = parseParty(party).names;
  let best = 0;
  for (const q of parseScreenedName(screened, entityType))
    for (const c of candidates) best = Math.max(best, compareTokens(q, c, entityType).similarity);
  return best;
}

export interface TextSpan {
  start: number;
  end: number;
}

/** Candidate tokens that matched, merged into runs where only spaces or punctuation part them. */
export function spansOf(tokens: readonly NameToken[], text: string): TextSpan[] {
  const sorted = [...new Set(tokens)].sort((a, b) => a.start - b.start);
  const spans: TextSpan[] = [];
  for (const t of sorted) {
    const last = spans[spans.length - 1];
    if (last !== undefined && t.start >= last.end && !/[\p{L}\p{N}]/u.test(text.slice(last.end, t.start)))
      last.end = Math.max(last.end, t.end);
    else if (last === undefined || t.start >= last.end) spans.push({ start: t.start, end: t.end });
  }
  return spans;
}
