/**
 * The screened name, its aliases, the people and the places a caller supplied, parsed once
 * so that one check scores its many candidates without re-reading the query. Known persons
 * who are the screened name itself are dropped (a caller listing the name would otherwise
 * corroborate every candidate), and relatives written into the screened name ("Ramesh S/o
 * Suresh") join the known persons. Pure.
 *
 * How much of the caller's text is compared (`COMPARED`): telling known persons from the
 * screened name compares every known person with every screened name, token by token, so
 * the work grows with the product of the two sides' token counts. The request caps (8
 * names, 10 known persons, 200 characters each) still let that product reach a million
 * token pairs (100 one-letter tokens a name), 40 to 300 ms of one thread. So each entry
 * (the name, an alias, a known person) is compared on at most its first 8 names and 16
 * tokens, in reading order ("@" names, then relatives written in it), and each side (the
 * screened names, then the known persons) on at most 16 names and 48 tokens, in the order
 * the caller listed them: at most 2,304 token pairs and 256 name comparisons. Real names
 * sit inside: of the 65,792 party strings of the Supreme Court metadata and the eCourts
 * High Court fixtures, one reads as more than 16 tokens (17) and none as more than 8
 * names, and most persons' names are 2 to 4 tokens; a check of eight 6-token names fits
 * whole.
 * Beyond the caps, tokens are left out of the comparison, never the check refused.
 */
import { placesOf } from './address.ts';
import type { ScreeningQuery } from './features.ts';
import { compareTokens, readScreenedName } from './names.ts';
import { type NameTokens, parseParty } from './party-parse.ts';

/** The screened names, corroborating people and places, parsed once for many candidates. */
export interface PreparedQuery {
  query: ScreeningQuery;
  variants: readonly { tokens: NameTokens; via: 'name' | 'alias' }[];
  knownPersons: readonly NameTokens[];
  cities: readonly string[];
  states: readonly string[];
}

/** Known persons this close to a name (either way round) are taken to be that person. */
export const SAME_PERSON = 0.85;

/** How much of the caller's names a check compares (see the module header). */
export const COMPARED = {
  entry: { names: 8, tokens: 16 },
  side: { names: 16, tokens: 48 },
} as const;

interface Budget {
  readonly names: number;
  readonly tokens: number;
}

/** The leading names of `items` within `budget`, the last one cut to the tokens left. */
function within<T>(items: readonly T[], budget: Budget, tokensOf: (item: T) => NameTokens, cut: (item: T, tokens: NameTokens) => T): T[] {
  const kept: T[] = [];
  let tokensLeft = budget.tokens;
  for (const item of items) {
    if (kept.length === budget.names || tokensLeft === 0) break;
    const tokens = tokensOf(item);
    kept.push(tokens.length <= tokensLeft ? item : cut(item, tokens.slice(0, tokensLeft)));
    tokensLeft -= Math.min(tokens.length, tokensLeft);
  }
  return kept;
}

const itself = (tokens: NameTokens): NameTokens => tokens;
const keepCut = (_: NameTokens, cut: NameTokens): NameTokens => cut;

/** One entry's names within the entry's share. */
function entryNames(names: readonly NameTokens[]): NameTokens[] {
  return within(names, COMPARED.entry, itself, keepCut);
}

type Variant = PreparedQuery['variants'][number];

/** The screened names (the name, then the aliases, "@" names within each) as compared. */
export function screenedVariants(query: Pick<ScreeningQuery, 'name' | 'aliases' | 'entityType'>): Variant[] {
  return variantsOf([query.name, ...query.aliases].map((entry) => readScreenedName(entry, query.entityType)));
}

function variantsOf(entries: readonly { names: readonly NameTokens[] }[]): Variant[] {
  return within(
    entries.flatMap((entry, i) =>
      entryNames(entry.names).map((tokens) => ({ tokens, via: i === 0 ? ('name' as const) : ('alias' as const) })),
    ),
    COMPARED.side,
    (v) => v.tokens,
    (v, tokens) => ({ ...v, tokens }),
  );
}

export function prepareQuery(query: ScreeningQuery): PreparedQuery {
  const entries = [query.name, ...query.aliases].map((entry) => readScreenedName(entry, query.entityType));
  const variants = variantsOf(entries);
  const listed = query.knownPersons.flatMap((p) => entryNames(parseParty(p).names));
  const ownRelatives = entries.flatMap((entry) => entryNames(entry.relatives));
  const isScreenedName = (tokens: NameTokens): boolean =>
    variants.some((v) => compareTokens(v.tokens, tokens, query.entityType).similarity >= SAME_PERSON);
  const knownPersons = within([...listed, ...ownRelatives], COMPARED.side, itself, keepCut).filter((k) => !isScreenedName(k));
  const { cities, states } = placesOf(query.address);
  return { query, variants, knownPersons, cities, states };
}
