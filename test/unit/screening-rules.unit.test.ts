/**
 * The confidence bands and rules 1 to 6 of "Litigation check confidence bands", checked over
 * every combination of the flags the rules read and a grid of probabilities, plus the
 * verdict table and what counts as a genuine no match.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bandOf, BAND_FLOORS } from '../../src/domain/screening/bands.ts';
import type { EntityType, MatchFeatures } from '../../src/domain/screening/features.ts';
import {
  decideMatch,
  IDENTIFIER_CONFLICT_CAP,
  IDENTIFIER_MATCH_PROBABILITY,
  isShown,
  NAME_SIMILARITY_FLOOR,
  needsAdjudication,
  PROBABLE_CAP,
} from '../../src/domain/screening/rules.ts';
import { billedOutcome, isGenuineNoMatch, screeningVerdict, type VerdictInput } from '../../src/domain/screening/verdict.ts';
import { rule } from '../support/decider-spec.ts';

const base: MatchFeatures = {
  nameSimilarity: 0.95,
  bestNameVariant: 'name',
  tokenCoverage: 1,
  candidateCoverage: 0.9,
  initialsOnly: false,
  exactNormalised: false,
  queryTokenCount: 3,
  typoMatched: false,
  identifierMatch: false,
  identifierConflict: false,
  addressCorroborated: false,
  knownPersonCorroborated: false,
  relationCorroborated: false,
  entityTypeConsistent: true,
  partyRole: 'respondent',
};

const FLAGS = ['identifierMatch', 'identifierConflict', 'addressCorroborated', 'knownPersonCorroborated', 'relationCorroborated'] as const;

/** Every combination of the five flags the rules read. */
const combinations: MatchFeatures[] = Array.from({ length: 1 << FLAGS.length }, (_, mask) => {
  const f: MatchFeatures = { ...base };
  FLAGS.forEach((flag, i) => {
    f[flag] = (mask & (1 << i)) !== 0;
  });
  return f;
});
const probabilities = Array.from({ length: 101 }, (_, i) => i / 100);
const ENTITY_TYPES: readonly EntityType[] = ['person', 'company'];

describe('bands', () => {
  it('puts each boundary in the higher band', () => {
    assert.equal(bandOf(0.9), 'confirmed');
    assert.equal(bandOf(0.8999), 'probable');
    assert.equal(bandOf(0.7), 'probable');
    assert.equal(bandOf(0.6999), 'possible');
    assert.equal(bandOf(0.45), 'possible');
    assert.equal(bandOf(0.4499), 'unlikely');
    assert.equal(bandOf(0), 'unlikely');
  });
});

describe('rules 1 to 4 over every flag combination', () => {
  for (const entityType of ENTITY_TYPES)
    it(`${entityType}: band and decider follow the rules`, () => {
      for (const f of combinations)
        for (const p of probabilities) {
          const d = decideMatch(p, f, entityType);
          assert.equal(d.band, bandOf(d.probability));
          if (f.identifierMatch) {
            // Rule 4: decisive without the model.
            assert.equal(d.decidedBy, 'identifier');
            assert.ok(d.probability >= IDENTIFIER_MATCH_PROBABILITY && d.band === 'confirmed');
            continue;
          }
          // Rules 1 and 2: without an identifier only an uncorroborated company reaches confirmed.
          const corroborated = f.addressCorroborated || f.knownPersonCorroborated || f.relationCorroborated;
          if (entityType === 'person' || corroborated || f.identifierConflict)
            assert.notEqual(d.band, 'confirmed', `${entityType} ${JSON.stringify(f)} at ${String(p)}`);
          if (f.identifierConflict) {
            assert.equal(d.decidedBy, 'identifier');
            assert.ok(d.probability <= IDENTIFIER_CONFLICT_CAP);
            continue;
          }
          assert.equal(d.decidedBy, 'model');
          assert.ok(d.probability <= p);
        }
    });

  it('rule 3: a company with no corroboration is confirmed on name alone at 0.90 and above', () => {
    for (const p of probabilities) {
      const d = decideMatch(p, base, 'company');
      assert.equal(d.probability, p);
      assert.equal(d.band === 'confirmed', p >= BAND_FLOORS.confirmed);
    }
  });

  const match = rule(decideMatch);

  it('rule 1: a person is capped just below confirmed, saying why', () => {
    match
      .when(0.99, base, 'person')
      .then({ probability: PROBABLE_CAP, band: 'probable', decidedBy: 'model', capped: 'person_without_identifier' });
    match.when(0.5, base, 'person').then({ probability: 0.5, band: 'possible', decidedBy: 'model' });
  });

  it('rule 2: corroboration cannot lift a company into confirmed, but does not take away a name-alone confirmation', () => {
    const corroborated = { ...base, addressCorroborated: true };
    const capped = { probability: PROBABLE_CAP, band: 'probable', decidedBy: 'model', capped: 'corroboration_without_identifier' } as const;
    match.when(0.95, corroborated, 'company', { nameOnlyProbability: 0.8 }).then(capped);
    match.when(0.95, corroborated, 'company').then(capped);
    match
      .when(0.97, corroborated, 'company', { nameOnlyProbability: 0.92 })
      .then({ probability: 0.97, band: 'confirmed', decidedBy: 'model' });
  });

  it('an adjudicated probability says so, and is still capped', () => {
    match
      .when(0.99, base, 'person', { adjudicated: true })
      .then({ probability: PROBABLE_CAP, band: 'probable', decidedBy: 'adjudication', capped: 'person_without_identifier' });
  });
});

describe('rule 5 and the adjudication middle', () => {
  it('leaves out what is below displayThreshold unless confirmed', () => {
    for (const threshold of [0, 0.3, 0.6, 0.95, 1])
      for (const p of probabilities)
        for (const entityType of ENTITY_TYPES) {
          const d = decideMatch(p, base, entityType);
          assert.equal(isShown(d, threshold), d.band === 'confirmed' || d.probability >= threshold);
        }
    const confirmed = decideMatch(0.91, base, 'company');
    assert.ok(isShown(confirmed, 0.95));
  });

  it('adjudicates only past the floor and only when no identifier decided', () => {
    for (const f of combinations)
      for (const s of [0, NAME_SIMILARITY_FLOOR - 0.01, NAME_SIMILARITY_FLOOR, 1])
        assert.equal(
          needsAdjudication({ ...f, nameSimilarity: s }),
          s >= NAME_SIMILARITY_FLOOR && !f.identifierMatch && !f.identifierConflict,
        );
  });
});

describe('rule 6: the verdict', () => {
  const exhaustive: VerdictInput = {
    bands: [],
    exhaustive: true,
    exhaustiveWithinFilters: true,
    sinceApplied: false,
    someRecordsWithheld: false,
    strategyErrors: false,
    clamped: false,
  };

  it('no_matches_found only for an exhaustive run with nothing filtered away or withheld', () => {
    assert.equal(screeningVerdict(exhaustive), 'no_matches_found');
    assert.equal(screeningVerdict({ ...exhaustive, exhaustive: false }), 'no_matches_found');
    assert.equal(screeningVerdict({ ...exhaustive, exhaustive: false, exhaustiveWithinFilters: false }), 'inconclusive');
    assert.equal(screeningVerdict({ ...exhaustive, clamped: true }), 'inconclusive');
    assert.equal(screeningVerdict({ ...exhaustive, strategyErrors: true }), 'inconclusive');
    assert.equal(screeningVerdict({ ...exhaustive, sinceApplied: true }), 'inconclusive');
    assert.equal(screeningVerdict({ ...exhaustive, someRecordsWithheld: true }), 'inconclusive');
  });

  it('rule 6: any plan clamp gives inconclusive', () => {
    // Whatever the other flags say, both coverage flags true included (a clamp that cut no candidate).
    const both = [true, false];
    for (const exhaustiveRun of both)
      for (const exhaustiveWithinFilters of both)
        for (const strategyErrors of both)
          for (const sinceApplied of both)
            for (const someRecordsWithheld of both) {
              const input: VerdictInput = {
                bands: [],
                exhaustive: exhaustiveRun,
                exhaustiveWithinFilters,
                strategyErrors,
                sinceApplied,
                someRecordsWithheld,
                clamped: true,
              };
              assert.equal(screeningVerdict(input), 'inconclusive', JSON.stringify(input));
            }
    assert.equal(billedOutcome(screeningVerdict({ ...exhaustive, clamped: true })), 'none');
    // A clamp does not hide what was found.
    assert.equal(screeningVerdict({ ...exhaustive, clamped: true, bands: ['confirmed'] }), 'match_found');
    assert.equal(screeningVerdict({ ...exhaustive, clamped: true, bands: ['possible'] }), 'possible_match');
  });

  it('shown matches are a finding whatever the coverage', () => {
    for (const partial of [
      exhaustive,
      { ...exhaustive, exhaustive: false, exhaustiveWithinFilters: false, sinceApplied: true, someRecordsWithheld: true },
    ]) {
      assert.equal(screeningVerdict({ ...partial, bands: ['probable', 'confirmed'] }), 'match_found');
      assert.equal(screeningVerdict({ ...partial, bands: ['possible'] }), 'possible_match');
    }
  });

  it('a genuine no match is exactly no_matches_found, and only it is billed as one', () => {
    for (const verdict of ['match_found', 'possible_match', 'no_matches_found', 'inconclusive'] as const) {
      assert.equal(isGenuineNoMatch({ summary: { verdict } }), verdict === 'no_matches_found');
      assert.equal(billedOutcome(verdict) === 'genuine_no_match', verdict === 'no_matches_found');
    }
    assert.equal(billedOutcome('match_found'), 'match');
    assert.equal(billedOutcome('possible_match'), 'match');
    assert.equal(billedOutcome('inconclusive'), 'none');
  });
});
