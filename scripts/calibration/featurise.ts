/**
 * Runs the screening feature extractor over evaluation pairs, and keeps only what the
 * product would score: candidates at or above the name-similarity floor (rules.ts) are the
 * ones that get a probability; the rest are dropped before scoring and are counted apart.
 */
import {
  extractFeaturesFor,
  prepareQuery,
  type CandidateRecord,
  type MatchFeatures,
  type PreparedQuery,
} from '../../src/domain/screening/features.ts';
import { NAME_SIMILARITY_FLOOR } from '../../src/domain/screening/rules.ts';
import type { EvalPair, Split } from './eval-set.ts';

export interface FeaturedPair {
  pair: EvalPair;
  features: MatchFeatures;
}

export interface Featurised {
  scored: FeaturedPair[];
  /** Pairs below the floor, which the product never scores: positives here are recall lost before the model. */
  belowFloor: FeaturedPair[];
}

export function featurise(pairs: readonly EvalPair[], records: ReadonlyMap<string, CandidateRecord>, split: Split): Featurised {
  const out: Featurised = { scored: [], belowFloor: [] };
  // A query's candidates are consecutive pairs: parse the query once for all of them.
  let preparedKey = '';
  let prepared: PreparedQuery | undefined;
  for (const pair of pairs) {
    if (pair.split !== split) continue;
    const record = records.get(pair.candidateCaseId);
    if (record === undefined) throw new Error(`record ${pair.candidateCaseId} missing from the evaluation set`);
    const key = JSON.stringify(pair.query);
    if (prepared === undefined || preparedKey !== key) {
      prepared = prepareQuery(pair.query);
      preparedKey = key;
    }
    const { features } = extractFeaturesFor(prepared, record);
    (features.nameSimilarity >= NAME_SIMILARITY_FLOOR ? out.scored : out.belowFloor).push({ pair, features });
  }
  return out;
}
