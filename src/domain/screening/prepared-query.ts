/**
 * The screened name, its aliases, the people and the places a caller supplied, parsed once
 * so that one check scores its many candidates without re-reading the query. Known persons
 * who are the screened name itself are dropped (a caller listing the name would otherwise
 * corroborate every candidate), and relatives written into the screened name ("Ramesh S/o
 * Suresh") join the known persons. Pure.
 */
import { placesOf } from './address.ts';
import type { ScreeningQuery } from './features.ts';
import { compareTokens, parseScreenedName } from './names.ts';
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

export function prepareQuery(query: ScreeningQuery): PreparedQuery {
  const variants = [
    ...parseScreenedName(query.name, query.entityType).map((tokens) => ({ tokens, via: 'name' as const })),
    ...query.aliases.flatMap((a) => parseScreenedName(a, query.entityType).map((tokens) => ({ tokens, via: 'alias' as const }))),
  ];
  const ownRelatives = [query.name, ...query.aliases].flatMap((n) => parseParty(n, query.entityType).relatives);
  const isScreenedName = (tokens: NameTokens): boolean =>
    variants.some((v) => compareTokens(v.tokens, tokens, query.entityType).similarity >= SAME_PERSON);
  const knownPersons = [...query.knownPersons.flatMap((p) => parseParty(p).names), ...ownRelatives].filter((k) => !isScreenedName(k));
  const { cities, states } = placesOf(query.address);
  return { query, variants, knownPersons, cities, states };
}
