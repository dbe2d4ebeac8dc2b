/**
 * The name half of a candidate's features: the best pairing of a screened name (or alias)
 * with a party name, or an in-order mention of the name in the record text when that beats
 * every party name at TEXT_MENTION_DISCOUNT of its agreement (a name in a judgment may be a
 * witness's rather than a party's), and the signals that explain it. Pure.
 */
import type { MatchFeatures, Signal } from './features.ts';
import { type PartyText, tokenSpans } from './candidate-parties.ts';
import { compareTokens, type NameMatch, type TokenAgreement } from './names.ts';
import type { NameTokens } from './party-parse.ts';
import { finish, type Steps } from '../steps.ts';
import type { PreparedQuery } from './prepared-query.ts';
import { findMentions, type Mention, type TextWords } from './text-mentions.ts';

/** A name found only in the record text is worth this share of its agreement. */
export const TEXT_MENTION_DISCOUNT = 0.9;

export interface BestName {
  match: NameMatch;
  via: 'name' | 'alias';
  queryTokens: NameTokens;
  party: PartyText;
}

export function bestPartyName(prepared: PreparedQuery, parties: readonly PartyText[]): BestName | null {
  let best: BestName | null = null;
  for (const v of prepared.variants)
    for (const party of parties)
      for (const name of party.parsed.names) {
        const match = compareTokens(v.tokens, name, prepared.query.entityType);
        if (best === null || match.similarity > best.match.similarity) best = { match, via: v.via, queryTokens: v.tokens, party };
      }
  return best;
}

const AGREEMENT_WORDS: Readonly<Record<Exclude<TokenAgreement, 'exact'>, string>> = {
  phonetic: 'spelt differently, sounds the same (transliteration)',
  initial: 'given as an initial',
  typo: 'differs by a spelling slip',
  shortTypo: 'differs by a spelling slip in a short word',
  joined: 'written run together or apart',
  acronym: 'given as initials of the company name',
};

export function nameSignals(best: BestName): Signal[] {
  const { match, party, via } = best;
  const signals: Signal[] = [
    {
      kind: 'name',
      detail: `${party.role === 'other' ? 'cause title' : party.role} name matches the screened ${via === 'alias' ? 'alias' : 'name'} (similarity ${match.similarity.toFixed(2)})`,
      spans: tokenSpans(
        party,
        match.pairs.map((p) => p.candidate),
      ),
    },
  ];
  const kinds = new Set(match.pairs.map((p) => p.agreement));
  for (const kind of kinds) {
    if (kind === 'exact') continue;
    const tokens = match.pairs.filter((p) => p.agreement === kind).map((p) => p.candidate);
    signals.push({ kind: `name_${kind}`, detail: `a word ${AGREEMENT_WORDS[kind]}`, spans: tokenSpans(party, tokens) });
  }
  if (party.parsed.aliased)
    signals.push({ kind: 'party_alias', detail: 'the party is recorded under more than one name ("@" or "alias")', spans: [] });
  return signals;
}

export interface TextMention {
  mention: Mention;
  via: 'name' | 'alias';
  tokens: NameTokens;
}

/** Every in-order mention of any screened name in the record text. */
export function textMentions(prepared: PreparedQuery, words: TextWords): TextMention[] {
  return finish(textMentionsSteps(prepared, words));
}

/** `textMentions`, pausing after each name (one pass over the text each). */
export function* textMentionsSteps(prepared: PreparedQuery, words: TextWords): Steps<TextMention[]> {
  const mentions: TextMention[] = [];
  for (const v of prepared.variants) {
    for (const mention of findMentions(words, v.tokens)) mentions.push({ mention, via: v.via, tokens: v.tokens });
    yield;
  }
  return mentions;
}

function bestMention(mentions: readonly TextMention[]): TextMention | null {
  return mentions.reduce<TextMention | null>((best, m) => (best === null || m.mention.score > best.mention.score ? m : best), null);
}

/** Where the best name match was found: a party's name, or (failing that) the record text. */
export type NameSource =
  | { from: 'party'; best: BestName }
  | { from: 'text'; mention: Mention; via: 'name' | 'alias'; tokens: NameTokens; similarity: number }
  | { from: 'nowhere' };

export function nameSource(best: BestName | null, mentions: readonly TextMention[]): NameSource {
  const fromText = bestMention(mentions);
  const textSimilarity = fromText === null ? 0 : fromText.mention.score * TEXT_MENTION_DISCOUNT;
  if (fromText !== null && textSimilarity > (best?.match.similarity ?? 0)) return { from: 'text', ...fromText, similarity: textSimilarity };
  return best === null ? { from: 'nowhere' } : { from: 'party', best };
}

export function nameFeatures(
  source: NameSource,
): Pick<
  MatchFeatures,
  | 'nameSimilarity'
  | 'bestNameVariant'
  | 'tokenCoverage'
  | 'candidateCoverage'
  | 'initialsOnly'
  | 'exactNormalised'
  | 'queryTokenCount'
  | 'typoMatched'
> {
  const count = (tokens: NameTokens): number => tokens.filter((t) => !t.form).length;
  if (source.from === 'nowhere')
    return {
      nameSimilarity: 0,
      bestNameVariant: 'name',
      tokenCoverage: 0,
      candidateCoverage: 0,
      initialsOnly: false,
      exactNormalised: false,
      queryTokenCount: 0,
      typoMatched: false,
    };
  if (source.from === 'text')
    return {
      nameSimilarity: source.similarity,
      bestNameVariant: source.via,
      tokenCoverage: source.similarity,
      candidateCoverage: source.similarity,
      initialsOnly: false,
      exactNormalised: false,
      queryTokenCount: count(source.tokens),
      typoMatched: false,
    };
  const { match, via, queryTokens } = source.best;
  return {
    nameSimilarity: match.similarity,
    bestNameVariant: via,
    tokenCoverage: match.tokenCoverage,
    candidateCoverage: match.candidateCoverage,
    initialsOnly: match.pairs.some((p) => p.agreement === 'initial' || p.agreement === 'acronym'),
    exactNormalised: match.exact,
    queryTokenCount: count(queryTokens),
    typoMatched: match.pairs.some((p) => p.agreement === 'typo' || p.agreement === 'shortTypo'),
  };
}
