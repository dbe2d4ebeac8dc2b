/**
 * Rules 1 to 5 of "Litigation check confidence bands", applied to the probability the
 * calibrated model (or the adjudication pass) put on one candidate. The model is trained to
 * be honest; these rules are the product's promises on top of it, so they live in one place:
 *
 * - Rule 4: an identifier the caller supplied, found in the record (a GSTIN whose embedded PAN
 *   is the caller's PAN counts), decides the match at IDENTIFIER_MATCH_PROBABILITY with no
 *   model or adjudication.
 * - Identifier conflict (our design): the caller supplied an identifier of some kind, the
 *   record carries identifiers of that kind, and none is the caller's. That is evidence the
 *   record's party is another entity with a similar name, so the probability is capped at
 *   IDENTIFIER_CONFLICT_CAP (unlikely, hidden by the default displayThreshold; shown with the
 *   conflict signal to a caller who lowers it). A match on another kind outweighs a conflict.
 * - Rule 1: a person without an identifier match is capped just below confirmed.
 * - Rule 2: address, known-person or relation corroboration without an identifier match caps
 *   at probable. The corroboration may raise confidence but never lift a candidate into
 *   confirmed; a company whose name alone already clears confirmed keeps it (rule 3), which
 *   the caller shows by passing the probability the model gives with corroboration removed.
 * - Rule 3: otherwise a company may be confirmed on name similarity alone.
 * - Rule 5: `isShown` keeps a candidate at or above displayThreshold, or confirmed.
 *
 * Pure, no IO.
 */
import { type Band, BAND_FLOORS, bandOf } from './bands.ts';
import type { EntityType, MatchFeatures } from './features.ts';

/** Candidates whose best name similarity is below this are dropped before scoring. */
export const NAME_SIMILARITY_FLOOR = 0.55;

/** Probability given to a candidate decided by an identifier found in its record. */
export const IDENTIFIER_MATCH_PROBABILITY = 0.98;

/** Highest probability a candidate whose record carries a conflicting identifier can keep. */
export const IDENTIFIER_CONFLICT_CAP = 0.25;

/** "Just below confirmed": the highest probability rules 1 and 2 allow. */
export const PROBABLE_CAP = 0.89;

export type DecidedBy = 'identifier' | 'model' | 'adjudication';

export type CapReason = 'person_without_identifier' | 'corroboration_without_identifier' | 'identifier_conflict';

export interface MatchDecision {
  probability: number;
  band: Band;
  decidedBy: DecidedBy;
  capped?: CapReason;
}

export interface DecideOptions {
  /** The probability came from the adjudication pass rather than the model. */
  adjudicated?: boolean;
  /** What the model gives the same candidate with its corroboration flags cleared (rule 2/3). */
  nameOnlyProbability?: number;
}

export function isCorroborated(f: MatchFeatures): boolean {
  return f.addressCorroborated || f.knownPersonCorroborated || f.relationCorroborated;
}

/** Name and corroboration only: what the rules let a candidate without an identifier reach. */
export function withoutCorroboration(f: MatchFeatures): MatchFeatures {
  return { ...f, addressCorroborated: false, knownPersonCorroborated: false, relationCorroborated: false };
}

function decided(probability: number, decidedBy: DecidedBy, capped?: CapReason): MatchDecision {
  const p = Math.min(1, Math.max(0, probability));
  return capped === undefined ? { probability: p, band: bandOf(p), decidedBy } : { probability: p, band: bandOf(p), decidedBy, capped };
}

function capAt(probability: number, cap: number, decidedBy: DecidedBy, reason: CapReason): MatchDecision {
  return probability > cap ? decided(cap, decidedBy, reason) : decided(probability, decidedBy);
}

export function decideMatch(
  probability: number,
  features: MatchFeatures,
  entityType: EntityType,
  options: DecideOptions = {},
): MatchDecision {
  if (features.identifierMatch) return decided(Math.max(probability, IDENTIFIER_MATCH_PROBABILITY), 'identifier');
  if (features.identifierConflict) return capAt(probability, IDENTIFIER_CONFLICT_CAP, 'identifier', 'identifier_conflict');
  const by: DecidedBy = options.adjudicated === true ? 'adjudication' : 'model';
  if (entityType === 'person') return capAt(probability, PROBABLE_CAP, by, 'person_without_identifier');
  const nameAloneConfirms = (options.nameOnlyProbability ?? 0) >= BAND_FLOORS.confirmed;
  if (isCorroborated(features) && !nameAloneConfirms) return capAt(probability, PROBABLE_CAP, by, 'corroboration_without_identifier');
  return decided(probability, by);
}

/** The uncertain middle the adjudication pass may look at. */
export function needsAdjudication(features: MatchFeatures): boolean {
  return features.nameSimilarity >= NAME_SIMILARITY_FLOOR && !features.identifierMatch && !features.identifierConflict;
}

/** Rule 5: below displayThreshold a candidate is left out unless it is confirmed. */
export function isShown(decision: MatchDecision, displayThreshold: number): boolean {
  return decision.band === 'confirmed' || decision.probability >= displayThreshold;
}
