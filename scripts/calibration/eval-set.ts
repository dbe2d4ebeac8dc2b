/**
 * Builds the labelled (query, candidate case, same entity?) pairs the calibration is fitted
 * and judged on. A seed is one real party of one real case; its query is a perturbed
 * spelling of that party's name (see variants.ts); its candidates are what a party-name
 * search would return for the query (see retrieval.ts), plus the seed's own case. Labels are
 * heuristic and documented in docs/calibration.md:
 *
 * - company: a candidate party with the same company key (name without form words) is the
 *   same company; a different key is a different company;
 * - person: the seed's own case, the same matter (one SC diary number), or the same name
 *   corroborated by the same relation ("S/o X"), the same advocate on record, the same opponent
 *   (a person or company on the other side with the same key) or the same place is the same person; the same name with nothing corroborating it is a namesake (negative),
 *   as is the same name with a different relation; a different name is a different person;
 * - hand-checked pairs (hand-checked.ts) carry the label given on inspection.
 *
 * The fit/held-out split is a hash of the seed's identity key, so one name identity never
 * sits on both sides.
 */
import type { EntityType, ScreeningQuery } from '../../src/domain/screening/features.ts';
import type { CorpusCase, CorpusParty } from './corpus.ts';
import { HAND_CHECKED, type HandCheckedPair } from './hand-checked.ts';
import { parseParty, type ParsedParty } from './parties.ts';
import { pick, seededRandom, shuffled, stableHash } from './random.ts';
import { buildRetrievalIndex, retrieve } from './retrieval.ts';
import { applicableKinds, makeVariant, toQuery, type VariantKind } from './variants.ts';

export type Split = 'fit' | 'heldout';

export type LabelReason =
  | 'seed-case'
  | 'same-company-key'
  | 'same-matter'
  | 'same-relation'
  | 'same-advocate'
  | 'same-opponent'
  | 'same-place'
  | 'namesake'
  | 'different-relation'
  | 'different-key'
  | 'hand-checked';

export type Corroboration = 'relation' | 'address' | 'associate';

export interface EvalPair {
  split: Split;
  entityType: EntityType;
  variant: VariantKind;
  corroboration: Corroboration[];
  seedCaseId: string;
  /** "petitioners[0]" style: which party of the seed case the query was made from. */
  seedParty: string;
  candidateCaseId: string;
  label: 0 | 1;
  reason: LabelReason;
  /** For hand-checked pairs: what the heuristic rules would have said. */
  heuristicLabel?: 0 | 1;
  query: ScreeningQuery;
}

export interface EvalSetOptions {
  seed: number;
  personSeeds: number;
  companySeeds: number;
  variantsPerSeed: number;
  candidatesPerQuery: number;
  casesPerName: number;
  /** Share of identity keys (by hash) that go to the held-out part. */
  heldoutShare: number;
  includeHandChecked: boolean;
}

export const DEFAULT_OPTIONS: EvalSetOptions = {
  seed: 20240601,
  personSeeds: 2500,
  companySeeds: 2000,
  variantsPerSeed: 2,
  candidatesPerQuery: 12,
  casesPerName: 6,
  heldoutShare: 0.5,
  includeHandChecked: true,
};

export interface EvalSetStats {
  seeds: Record<EntityType, number>;
  queries: number;
  pairs: number;
  /** Candidates dropped as undecidable (a company's officer or workmen named instead of the company). */
  excludedAmbiguous: number;
  byReason: Partial<Record<LabelReason, number>>;
}

export interface EvalSet {
  pairs: EvalPair[];
  cases: Map<string, CorpusCase>;
  stats: EvalSetStats;
}

interface Seed {
  entityType: EntityType;
  corpusCase: CorpusCase;
  party: CorpusParty;
  parsed: ParsedParty;
}

const partyRef = (p: CorpusParty): string => `${p.side === 'petitioner' ? 'petitioners' : 'respondents'}[${p.index}]`;

export function splitOf(entityType: EntityType, key: string, heldoutShare: number): Split {
  return (stableHash(`${entityType}:${key}`) % 1000) / 1000 < heldoutShare ? 'heldout' : 'fit';
}

function usableSeed(parsed: ParsedParty): boolean {
  const words = parsed.key.split(' ');
  if (parsed.kind === 'person') return words.length >= 2 && words.length <= 5 && words.some((w) => w.length >= 3);
  return parsed.kind === 'company' && words.some((w) => w.length >= 3);
}

/** One occurrence per identity key; keys with a relation, alias or place first, since they are rare and test the corroboration inputs. */
function chooseSeeds(
  random: () => number,
  cases: readonly CorpusCase[],
  parse: (name: string) => ParsedParty,
  options: EvalSetOptions,
): Seed[] {
  const byKey = new Map<string, Seed[]>();
  for (const corpusCase of cases) {
    for (const party of corpusCase.parties) {
      const parsed = parse(party.name);
      if (!usableSeed(parsed)) continue;
      const entityType: EntityType = parsed.kind === 'company' ? 'company' : 'person';
      const id = `${entityType}:${parsed.key}`;
      const list = byKey.get(id);
      const seed = { entityType, corpusCase, party, parsed };
      if (list === undefined) byKey.set(id, [seed]);
      else list.push(seed);
    }
  }
  const chosen: Seed[] = [];
  for (const entityType of ['person', 'company'] as const) {
    const want = entityType === 'person' ? options.personSeeds : options.companySeeds;
    const groups = shuffled(
      random,
      [...byKey.entries()].filter(([id]) => id.startsWith(`${entityType}:`)).map(([, list]) => list),
    );
    const rich = (s: Seed): boolean => s.parsed.relation !== null || s.parsed.aliases.length > 0 || s.parsed.place !== null;
    const richGroups = groups.filter((g) => g.some(rich)).slice(0, Math.floor(want / 4));
    const rest = groups.filter((g) => !richGroups.includes(g)).slice(0, want - richGroups.length);
    for (const group of richGroups) chosen.push(pick(random, group.filter(rich)));
    for (const group of rest) chosen.push(pick(random, group));
  }
  return chosen;
}

type Judgement = { label: 0 | 1; reason: LabelReason } | { excluded: true };

const RANK: Record<LabelReason, number> = {
  'hand-checked': 9,
  'seed-case': 8,
  'same-matter': 7,
  'same-company-key': 7,
  'same-relation': 6,
  'same-advocate': 5,
  'same-opponent': 5,
  'same-place': 4,
  'different-relation': 3,
  namesake: 2,
  'different-key': 1,
};

/** Same name against the same person or company on the other side: a second round of the same dispute. */
function sameOpponent(seed: Seed, candidate: CorpusCase, party: CorpusParty): boolean {
  const keysAcross = (c: CorpusCase, side: CorpusParty['side']): Set<string> =>
    new Set(
      c.parties
        .filter((p) => p.side !== side)
        .map((p) => parseParty(p.name))
        .filter((p) => p.kind !== 'other')
        .map((p) => `${p.kind}:${p.key}`),
    );
  const mine = keysAcross(seed.corpusCase, seed.party.side);
  return [...keysAcross(candidate, party.side)].some((k) => mine.has(k));
}

function judgePerson(seed: Seed, candidate: CorpusCase, party: CorpusParty, parsed: ParsedParty): { label: 0 | 1; reason: LabelReason } {
  if (parsed.kind !== 'person' || parsed.key !== seed.parsed.key) return { label: 0, reason: 'different-key' };
  if (candidate.matter === seed.corpusCase.matter) return { label: 1, reason: 'same-matter' };
  const a = seed.parsed.relation;
  const b = parsed.relation;
  if (a !== null && b !== null) {
    return a.name.replace(/[^A-Z]/g, '') === b.name.replace(/[^A-Z]/g, '')
      ? { label: 1, reason: 'same-relation' }
      : { label: 0, reason: 'different-relation' };
  }
  if (seed.party.advocates.some((adv) => party.advocates.includes(adv))) return { label: 1, reason: 'same-advocate' };
  if (sameOpponent(seed, candidate, party)) return { label: 1, reason: 'same-opponent' };
  if (seed.parsed.place !== null && seed.parsed.place === parsed.place) return { label: 1, reason: 'same-place' };
  return { label: 0, reason: 'namesake' };
}

function containsKey(text: string, key: string): boolean {
  return ` ${text.replace(/[^A-Z0-9]+/g, ' ')} `.includes(` ${key} `);
}

export function judge(seed: Seed, candidate: CorpusCase, parse: (name: string) => ParsedParty): Judgement {
  if (candidate.record.caseId === seed.corpusCase.record.caseId) return { label: 1, reason: 'seed-case' };
  let best: { label: 0 | 1; reason: LabelReason } = { label: 0, reason: 'different-key' };
  let ambiguous = false;
  for (const party of candidate.parties) {
    const parsed = parse(party.name);
    let verdict: { label: 0 | 1; reason: LabelReason };
    if (seed.entityType === 'company') {
      if (parsed.kind === 'company' && parsed.key === seed.parsed.key) verdict = { label: 1, reason: 'same-company-key' };
      else {
        if (parsed.kind === 'other' && containsKey(parsed.key, seed.parsed.key)) ambiguous = true;
        verdict = { label: 0, reason: 'different-key' };
      }
    } else verdict = judgePerson(seed, candidate, party, parsed);
    if (RANK[verdict.reason] > RANK[best.reason]) best = verdict;
  }
  if (best.label === 0 && ambiguous) return { excluded: true };
  return best;
}

function corroborate(
  random: () => number,
  seed: Seed,
  parse: (name: string) => ParsedParty,
): { extra: Pick<ScreeningQuery, 'address' | 'knownPersons'>; used: Corroboration[] } {
  const used: Corroboration[] = [];
  const knownPersons: string[] = [];
  let address: ScreeningQuery['address'];
  if (seed.parsed.relation !== null && random() < 0.5) {
    knownPersons.push(seed.parsed.relation.name);
    used.push('relation');
  }
  if (seed.parsed.place !== null && random() < 0.5) {
    address = { city: seed.parsed.place };
    used.push('address');
  }
  const associates = seed.corpusCase.parties.filter((p) => p !== seed.party && parse(p.name).kind === 'person');
  if (associates.length > 0 && random() < 0.3) {
    knownPersons.push(parse(pick(random, associates).name).primary);
    used.push('associate');
  }
  return { extra: address === undefined ? { knownPersons } : { knownPersons, address }, used };
}

function findParty(corpusCase: CorpusCase, ref: string): CorpusParty | undefined {
  return corpusCase.parties.find((p) => partyRef(p) === ref);
}

function handCheckedPairs(cases: Map<string, CorpusCase>, parse: (name: string) => ParsedParty, options: EvalSetOptions): EvalPair[] {
  return HAND_CHECKED.flatMap((h: HandCheckedPair): EvalPair[] => {
    const seedCase = cases.get(h.seedCaseId);
    const candidate = cases.get(h.candidateCaseId);
    const party = seedCase === undefined ? undefined : findParty(seedCase, h.seedParty);
    if (seedCase === undefined || candidate === undefined || party === undefined) {
      throw new Error(`hand-checked pair ${h.seedCaseId} ${h.seedParty} → ${h.candidateCaseId} is not in the corpus`);
    }
    const parsed = parse(party.name);
    const entityType: EntityType = parsed.kind === 'company' ? 'company' : 'person';
    const seed: Seed = { entityType, corpusCase: seedCase, party, parsed };
    const heuristic = judge(seed, candidate, parse);
    const variant = makeVariant(seededRandom(0), parsed, 'hand-checked')!;
    return [
      {
        split: splitOf(entityType, parsed.key, options.heldoutShare),
        entityType,
        variant: 'hand-checked',
        corroboration: [],
        seedCaseId: h.seedCaseId,
        seedParty: h.seedParty,
        candidateCaseId: h.candidateCaseId,
        label: h.label,
        reason: 'hand-checked',
        ...('label' in heuristic ? { heuristicLabel: heuristic.label } : {}),
        query: toQuery({ ...variant, name: parsed.primary }, entityType, { knownPersons: [] }),
      },
    ];
  });
}

export function buildEvalSet(corpus: readonly CorpusCase[], options: EvalSetOptions = DEFAULT_OPTIONS): EvalSet {
  const random = seededRandom(options.seed);
  const cache = new Map<string, ParsedParty>();
  const parse = (name: string): ParsedParty => {
    let parsed = cache.get(name);
    if (parsed === undefined) {
      parsed = parseParty(name);
      cache.set(name, parsed);
    }
    return parsed;
  };
  const cases = new Map(corpus.map((c) => [c.record.caseId, c]));
  const index = buildRetrievalIndex(corpus);
  const seeds = chooseSeeds(random, corpus, parse, options);
  const pairs: EvalPair[] = [];
  const stats: EvalSetStats = { seeds: { person: 0, company: 0 }, queries: 0, pairs: 0, excludedAmbiguous: 0, byReason: {} };

  for (const seed of seeds) {
    stats.seeds[seed.entityType] += 1;
    const split = splitOf(seed.entityType, seed.parsed.key, options.heldoutShare);
    const kinds = shuffled(random, applicableKinds(seed.parsed, seed.entityType));
    let made = 0;
    for (const kind of kinds) {
      if (made >= options.variantsPerSeed) break;
      const variant = makeVariant(random, seed.parsed, kind);
      if (variant === null) continue;
      made += 1;
      stats.queries += 1;
      const { extra, used } = corroborate(random, seed, parse);
      const query = toQuery(variant, seed.entityType, extra);
      const found = retrieve(index, [query.name, ...query.aliases], options.candidatesPerQuery, options.casesPerName).map(
        (i) => corpus[i]!,
      );
      const candidates = found.some((c) => c === seed.corpusCase) ? found : [seed.corpusCase, ...found];
      for (const candidate of candidates) {
        const verdict = judge(seed, candidate, parse);
        if ('excluded' in verdict) {
          stats.excludedAmbiguous += 1;
          continue;
        }
        pairs.push({
          split,
          entityType: seed.entityType,
          variant: variant.kind,
          corroboration: used,
          seedCaseId: seed.corpusCase.record.caseId,
          seedParty: partyRef(seed.party),
          candidateCaseId: candidate.record.caseId,
          label: verdict.label,
          reason: verdict.reason,
          query,
        });
      }
    }
  }
  if (options.includeHandChecked) pairs.push(...handCheckedPairs(cases, parse, options));
  for (const pair of pairs) stats.byReason[pair.reason] = (stats.byReason[pair.reason] ?? 0) + 1;
  stats.pairs = pairs.length;
  return { pairs, cases, stats };
}
