/**
 * What a litigation check knows about one candidate case before any probability is put on
 * it: how well the party names match the screened name, whether a statutory identifier in the
 * record agrees or conflicts, and what else in the record corroborates it. The calibrated
 * model reads `featureVector`; the rules read the flags; `signals` let a match explain itself
 * with the exact spans of record text that fired.
 *
 * Where each feature comes from:
 * - name: every screened name (name, then aliases, each split on "@") against every name of
 *   every party (petitioners, respondents; the cause title split at "v." when the lists are
 *   empty); the best pair wins, ties going to the name over an alias. An in-order mention in
 *   the record text counts instead (role `other`) only when it beats every party name at 0.9
 *   of its agreement, since a name in a judgment may be a witness rather than a party.
 * - identifiers: every field of the record (parties, title, text), compared by legal entity
 *   (`identifiers.ts`).
 * - address: the city or state in the matched party's own address tail ("..., CHANDIGARH",
 *   "R/O ..."), or the city within 60 words of a mention of the screened name in the text.
 * - known persons: relationCorroborated when one is the matched party's relative ("S/o X");
 *   knownPersonCorroborated when one is another party, another party's relative, or is
 *   mentioned in the title or text. A known person who is the screened name itself is
 *   ignored, and relatives written into the screened name ("Ramesh S/o Suresh") count as
 *   known persons.
 * - entity type: a company screen against a party written as a person (honorific, relation,
 *   alias, age), or a person screen against a company or public body, is inconsistent.
 * Pure, no IO.
 */
import { finish, type Steps } from '../steps.ts';
import { partiesOf, span } from './candidate-parties.ts';
import { addressSignal, corroborationSteps, entityTypeConsistent, identifierSignals } from './corroboration.ts';
import { bestPartyName, nameFeatures, nameSignals, nameSource, TEXT_MENTION_DISCOUNT, textMentionsSteps } from './name-evidence.ts';
import { type PreparedQuery, prepareQuery } from './prepared-query.ts';
import { textWordsSteps } from './text-mentions.ts';

export { prepareQuery, type PreparedQuery } from './prepared-query.ts';

export type EntityType = 'person' | 'company';

export interface ScreeningQuery {
  name: string;
  aliases: readonly string[];
  entityType: EntityType;
  identifiers: { pan?: string; gstin?: string; cin?: string; llpin?: string };
  address?: { city?: string; state?: string; stateCode?: string };
  knownPersons: readonly string[];
}

export interface CandidateRecord {
  caseId: string;
  caseNumber: string;
  courtName: string;
  title: string | null;
  petitioners: readonly string[];
  respondents: readonly string[];
  advocates?: readonly string[];
  text: string | null;
  decisionDate: string | null;
  filingDate: string | null;
}

export type PartyRole = 'petitioner' | 'respondent' | 'other';

export interface MatchFeatures {
  /** Best similarity in [0,1] of any screened name (name or alias) to any party of the case. */
  nameSimilarity: number;
  bestNameVariant: 'name' | 'alias';
  /** Share of the screened name's tokens found in the matched party name. */
  tokenCoverage: number;
  /** Share of the matched party name's tokens accounted for by the screened name. */
  candidateCoverage: number;
  /** The match leans on initials ("R.K. Sharma") for at least one token. */
  initialsOnly: boolean;
  /** Normalised screened name and normalised party name are identical. */
  exactNormalised: boolean;
  /** Tokens in the normalised screened name (longer names are more distinctive). */
  queryTokenCount: number;
  /** At least one token matched only through a spelling slip (edit distance). */
  typoMatched: boolean;
  identifierMatch: boolean;
  identifierConflict: boolean;
  addressCorroborated: boolean;
  knownPersonCorroborated: boolean;
  /** The party's own relation ("S/o Suresh") names a person the caller listed. */
  relationCorroborated: boolean;
  entityTypeConsistent: boolean;
  partyRole: PartyRole;
}

export interface SignalSpan {
  /** Which field of the candidate: "petitioners[0]", "respondents[2]", "title", "text", ... */
  field: string;
  start: number;
  end: number;
  text: string;
}

/**
 * One reason a candidate scored as it did. Kinds: `name` (the party name that matched, with
 * its words), `name_phonetic`, `name_initial`, `name_typo`, `name_shortTypo`, `name_joined`,
 * `name_acronym` (how the words that were not spelt the same agreed), `party_alias` (the party
 * is recorded under several names), `name_in_text`, `identifier_match`, `identifier_conflict`,
 * `address`, `relation`, `known_person`, `entity_type_mismatch`. The name signal comes first.
 */
export interface Signal {
  kind: string;
  detail: string;
  spans: readonly SignalSpan[];
}

/**
 * Order of the numeric inputs the calibrated model reads. Booleans are 0/1; partyRole is
 * one-hot as (petitioner, respondent); similarities stay in [0,1]; the token count is
 * capped at 6 and divided by 6 so every input sits in [0,1].
 */
export const FEATURE_NAMES = [
  'nameSimilarity',
  'bestNameVariantIsAlias',
  'tokenCoverage',
  'candidateCoverage',
  'initialsOnly',
  'exactNormalised',
  'queryTokenCountScaled',
  'typoMatched',
  'identifierMatch',
  'identifierConflict',
  'addressCorroborated',
  'knownPersonCorroborated',
  'relationCorroborated',
  'entityTypeConsistent',
  'partyRolePetitioner',
  'partyRoleRespondent',
] as const;

const bit = (flag: boolean): number => (flag ? 1 : 0);

export function featureVector(f: MatchFeatures): number[] {
  return [
    f.nameSimilarity,
    bit(f.bestNameVariant === 'alias'),
    f.tokenCoverage,
    f.candidateCoverage,
    bit(f.initialsOnly),
    bit(f.exactNormalised),
    Math.min(f.queryTokenCount, 6) / 6,
    bit(f.typoMatched),
    bit(f.identifierMatch),
    bit(f.identifierConflict),
    bit(f.addressCorroborated),
    bit(f.knownPersonCorroborated),
    bit(f.relationCorroborated),
    bit(f.entityTypeConsistent),
    bit(f.partyRole === 'petitioner'),
    bit(f.partyRole === 'respondent'),
  ];
}

export interface ExtractedFeatures {
  features: MatchFeatures;
  signals: Signal[];
  /** The party string the best name match came from, or null when only the text mentions it. */
  matchedParty: { field: string; text: string } | null;
}

export function extractFeaturesFor(prepared: PreparedQuery, candidate: CandidateRecord): ExtractedFeatures {
  return finish(extractFeaturesSteps(prepared, candidate));
}

/**
 * `extractFeaturesFor` in steps (domain/steps.ts): a candidate's judgment may run to half
 * a million characters, read into words and then once per screened name and known person,
 * some 150 ms in one piece; the steps pause while the text is read and after each pass.
 */
export function* extractFeaturesSteps(prepared: PreparedQuery, candidate: CandidateRecord): Steps<ExtractedFeatures> {
  const { query } = prepared;
  const parties = partiesOf(candidate);
  const best = bestPartyName(prepared, parties);
  yield;
  // Judgment texts run to tens of thousands of words: read them only when they can matter.
  const textCouldWin = (best?.match.similarity ?? 0) < TEXT_MENTION_DISCOUNT;
  const needMentions = textCouldWin || prepared.cities.length > 0;
  const words =
    candidate.text !== null && (needMentions || prepared.knownPersons.length > 0) ? yield* textWordsSteps(candidate.text) : null;
  const mentionsInText = words !== null && needMentions ? yield* textMentionsSteps(prepared, words) : [];
  const source = nameSource(best, textCouldWin ? mentionsInText : []);
  const own = source.from === 'party' ? source.best.party : null;
  const ids = identifierSignals(query, candidate);
  const address =
    prepared.cities.length + prepared.states.length === 0
      ? null
      : addressSignal(
          prepared,
          own,
          candidate.text,
          words,
          mentionsInText.map((m) => m.mention),
        );
  yield;
  const corroborating = yield* corroborationSteps(prepared, candidate, parties, own, words);
  const consistent = entityTypeConsistent(query.entityType, own?.parsed ?? null);
  const features: MatchFeatures = {
    ...nameFeatures(source),
    identifierMatch: ids.matched,
    identifierConflict: ids.conflict,
    addressCorroborated: address !== null,
    knownPersonCorroborated: corroborating.some((s) => s.kind === 'known_person'),
    relationCorroborated: corroborating.some((s) => s.kind === 'relation'),
    entityTypeConsistent: consistent,
    partyRole: own?.role ?? 'other',
  };
  const signals: Signal[] = [];
  if (source.from === 'text')
    signals.push({
      kind: 'name_in_text',
      detail: 'the screened name is written in the record text, not in its party lists',
      spans: [span('text', candidate.text ?? '', 0, source.mention.start, source.mention.end)],
    });
  if (source.from === 'party' && source.best.match.similarity > 0) signals.push(...nameSignals(source.best));
  signals.push(...ids.signals, ...(address === null ? [] : [address]), ...corroborating);
  if (!consistent)
    signals.push({
      kind: 'entity_type_mismatch',
      detail: query.entityType === 'company' ? 'the matched party is written as a person' : 'the matched party is a company or public body',
      spans: [],
    });
  return { features, signals, matchedParty: own === null ? null : { field: own.field, text: own.text } };
}

export function extractFeatures(query: ScreeningQuery, candidate: CandidateRecord): ExtractedFeatures {
  return extractFeaturesFor(prepareQuery(query), candidate);
}
