/**
 * The one-word answer of a litigation check, `summary.verdict`, by rule 6 of "Litigation
 * check confidence bands", and which answers are a "genuine no match" (priced 20).
 *
 * Verdicts:
 * - `match_found`: at least one shown match is confirmed.
 * - `possible_match`: matches are shown, none confirmed (best is probable, possible, or
 *   an unlikely one the caller asked to see by lowering displayThreshold).
 * - `no_matches_found`: nothing shown, and the retrieval was exhaustive (coverage.exhaustive
 *   or coverage.exhaustiveWithinFilters) with no plan clamp, no strategy error, no `since`
 *   filter and no withheld record.
 * - `inconclusive`: nothing shown, and any of those conditions failed. A plan clamp forces
 *   it whether or not the clamped limit cut a candidate: the rule says "any plan clamp", and
 *   how far the search looked was then set by the plan, not by the caller. A `since` filter
 *   forces it even when it dropped nothing (older litigation was not looked at); a withheld
 *   record forces it because the one thing found cannot be reported.
 * Shown matches are a finding whatever the coverage, so they are reported as found; the
 * coverage flags still tell the caller the run was partial.
 *
 * A genuine no match is exactly `no_matches_found`: an exhaustive search, nothing filtered
 * away or withheld, and no candidate worth showing. An inconclusive run is not one.
 * Pure, no IO.
 */
import type { Band } from './bands.ts';
import type { BilledAs } from '../credits/prices.ts';

export const VERDICTS = ['match_found', 'possible_match', 'no_matches_found', 'inconclusive'] as const;

export type Verdict = (typeof VERDICTS)[number];

export interface VerdictInput {
  /** Bands of the matches shown (after the displayThreshold rule). */
  bands: readonly Band[];
  exhaustive: boolean;
  exhaustiveWithinFilters: boolean;
  /** The caller sent `since`. */
  sinceApplied: boolean;
  someRecordsWithheld: boolean;
  /** A retrieval strategy (a name's search) failed. */
  strategyErrors: boolean;
  /** The tier's maxPageSize reduced the requested or default limit, whether or not that cut a candidate. */
  clamped: boolean;
}

export function screeningVerdict(input: VerdictInput): Verdict {
  if (input.bands.includes('confirmed')) return 'match_found';
  if (input.bands.length > 0) return 'possible_match';
  const retrievedEverything = (input.exhaustive || input.exhaustiveWithinFilters) && !input.strategyErrors && !input.clamped;
  return retrievedEverything && !input.sinceApplied && !input.someRecordsWithheld ? 'no_matches_found' : 'inconclusive';
}

/** Priced 20: the check answered "no" with nothing left unlooked-at. */
export function isGenuineNoMatch(report: { summary: { verdict: Verdict } }): boolean {
  return report.summary.verdict === 'no_matches_found';
}

/** What a check is billed as: 100 for a match, 20 for a genuine no match, nothing otherwise. */
export function billedOutcome(verdict: Verdict): BilledAs {
  if (verdict === 'match_found' || verdict === 'possible_match') return 'match';
  return verdict === 'no_matches_found' ? 'genuine_no_match' : 'none';
}
