/**
 * Abbreviations of party-name words learnt from the corpus's own spellings, not from a
 * hand list: cause titles write the same word in full and cut short ("ASSOCIATION" and
 * "ASSOCN.", "CORPORATION" and "CORPN.", "COMPANY" and "CO."), and users type either. A
 * token is taken for an abbreviation when the corpus mostly writes it with a trailing dot;
 * its expansions are frequent words that start with the same letter, contain its letters
 * in order, and follow the same words in party names ("INSURANCE CO." and "INSURANCE
 * COMPANY"): that shared left context tells "CO" → COMPANY from "CO" → COMMISSIONER.
 * The tally is filled as names are indexed; the derivation is a pure function of it.
 * Pure, no IO.
 */
import { dropNameNoise } from './party-name.ts';

interface TokenStats {
  count: number;
  /** Occurrences written with a trailing dot. */
  dotted: number;
  /** The word before it in a party name ('^' at the start), with counts; at most MAX_CONTEXTS kept. */
  readonly before: Map<string, number>;
}

/** Per token, enough context to compare abbreviations and words without keeping every neighbour of a common word. */
const MAX_CONTEXTS = 256;
const START = '^';

export interface DerivationThresholds {
  /** An abbreviation is seen at least this often. */
  readonly minAbbreviationCount: number;
  /** And written with a dot at least this share of the time. */
  readonly minDottedShare: number;
  /** An expansion is seen at least this often. */
  readonly minExpansionCount: number;
  /** Share of the rarer one's occurrences whose preceding word also precedes the other. */
  readonly minSharedContext: number;
}

export const DEFAULT_THRESHOLDS: DerivationThresholds = {
  minAbbreviationCount: 3,
  minDottedShare: 0.3,
  minExpansionCount: 5,
  minSharedContext: 0.15,
};

/** Lower-case word → the words it may stand for or be written as; symmetric. */
export type PartySynonyms = ReadonlyMap<string, readonly string[]>;

/** Names a tally reads by default: every common spelling shows up well before, and memory stays bounded at any corpus size. */
export const TALLY_NAMES = 200_000;

/** Token counts of party names as indexed (the first `maxNames` of them), to derive abbreviations from. */
export class PartyTokenTally {
  readonly #tokens = new Map<string, TokenStats>();
  #names = 0;

  constructor(private readonly maxNames = TALLY_NAMES) {}

  add(names: Iterable<string>): void {
    for (const name of names) {
      if (this.#names >= this.maxNames) return;
      this.#names += 1;
      let before = START;
      for (const m of dropNameNoise(name).matchAll(/([A-Z0-9]+)(\.?)/g)) {
        const token = m[1] ?? '';
        const stats = this.#tokens.get(token) ?? { count: 0, dotted: 0, before: new Map<string, number>() };
        stats.count += 1;
        if (m[2] === '.') stats.dotted += 1;
        const seen = stats.before.get(before);
        if (seen !== undefined) stats.before.set(before, seen + 1);
        else if (stats.before.size < MAX_CONTEXTS) stats.before.set(before, 1);
        this.#tokens.set(token, stats);
        before = token;
      }
    }
  }

  /** Whether it has read all the names it will. */
  get full(): boolean {
    return this.#names >= this.maxNames;
  }

  /** Read-only view for the derivation. */
  entries(): IterableIterator<[string, Readonly<TokenStats>]> {
    return this.#tokens.entries();
  }
}

function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const c of long) if (c === short[i]) i += 1;
  return i === short.length;
}

function sharedContext(abbreviation: Readonly<TokenStats>, word: Readonly<TokenStats>): number {
  let shared = 0;
  for (const [before, n] of abbreviation.before) if (before !== START) shared += Math.min(n, word.before.get(before) ?? 0);
  return shared / Math.min(abbreviation.count, word.count);
}

/**
 * Abbreviation ↔ expansion pairs found in the tally, both ways, lower case: each
 * abbreviation maps to its expansions whose shared context is at least the threshold and at
 * least half the best one's; each expansion maps back to its abbreviations.
 */
export function deriveAbbreviations(tally: PartyTokenTally, thresholds: DerivationThresholds = DEFAULT_THRESHOLDS): PartySynonyms {
  const words = new Map<string, [string, Readonly<TokenStats>][]>();
  const abbreviations: [string, Readonly<TokenStats>][] = [];
  for (const [token, stats] of tally.entries()) {
    if (!/^[A-Z]+$/.test(token)) continue;
    const dottedShare = stats.dotted / stats.count;
    if (
      token.length >= 2 &&
      token.length <= 7 &&
      stats.count >= thresholds.minAbbreviationCount &&
      dottedShare >= thresholds.minDottedShare
    )
      abbreviations.push([token, stats]);
    else if (stats.count >= thresholds.minExpansionCount && dottedShare < thresholds.minDottedShare) {
      const first = token[0] ?? '';
      words.set(first, [...(words.get(first) ?? []), [token, stats]]);
    }
  }
  const pairs = new Map<string, Set<string>>();
  const link = (a: string, b: string) => pairs.set(a, (pairs.get(a) ?? new Set()).add(b));
  for (const [abbreviation, stats] of abbreviations) {
    const scored = (words.get(abbreviation[0] ?? '') ?? [])
      .filter(([word]) => word.length >= abbreviation.length + 2 && isSubsequence(abbreviation, word))
      .map(([word, wordStats]) => ({ word, shared: sharedContext(stats, wordStats) }))
      .filter((c) => c.shared >= thresholds.minSharedContext);
    const best = Math.max(0, ...scored.map((c) => c.shared));
    for (const { word } of scored.filter((c) => c.shared >= best / 2)) {
      link(abbreviation.toLowerCase(), word.toLowerCase());
      link(word.toLowerCase(), abbreviation.toLowerCase());
    }
  }
  return new Map([...pairs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([word, others]) => [word, [...others].sort()]));
}

/** Each word with its variants, the word itself first. */
export function expandWords(words: readonly string[], synonyms: PartySynonyms): string[][] {
  return words.map((w) => [w, ...(synonyms.get(w) ?? []).filter((v) => v !== w)]);
}

/**
 * A party name as it reads with every first name cut to its initial ("RAM KUMAR SHARMA" →
 * "R K SHARMA"): what a user types for a person known by initials. Null for one-word names
 * and names that already are initials and a surname.
 */
export function initialsForm(normalisedName: string): string | null {
  const words = normalisedName.split(' ').filter(Boolean);
  if (words.length < 2) return null;
  const last = words.at(-1) ?? '';
  const initials = words.slice(0, -1).map((w) => w[0] ?? '');
  if (words.slice(0, -1).every((w) => w.length === 1)) return null;
  return [...initials, last].join(' ');
}

/** Synonym groups merged: every word's variants from all the given maps, without repeats. */
export function mergeSynonyms(...maps: readonly PartySynonyms[]): PartySynonyms {
  const merged = new Map<string, Set<string>>();
  for (const map of maps) for (const [word, variants] of map) merged.set(word, new Set([...(merged.get(word) ?? []), ...variants]));
  return new Map([...merged].map(([word, variants]) => [word, [...variants].sort()]));
}
