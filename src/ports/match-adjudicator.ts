/**
 * The litigation check's adjudication pass: a second reading of one uncertain candidate
 * (past the name-similarity floor, not decided by an identifier) that returns a revised
 * probability with the reasons for it. Production uses an OpenAI-compatible chat model;
 * the embedded default is a deterministic reader of the record's own text. Either way the
 * rules still apply afterwards: an adjudicated person without an identifier match is never
 * confirmed. What is sent to an adjudicator is the screened names and the caller's
 * corroborating details, so adapters must never log a request or put one in an error.
 */
import type { CandidateRecord, ScreeningQuery, Signal } from '../domain/screening/features.ts';

export interface AdjudicationRequest {
  readonly query: ScreeningQuery;
  readonly candidate: CandidateRecord;
  /** The party entry the name matched ("petitioners[0]" and its text), or null when only the judgment text names it. */
  readonly matchedParty: { readonly field: string; readonly text: string } | null;
  /** The calibrated probability before adjudication, rules not yet applied. */
  readonly probability: number;
  /** What the features stage found, with spans into the candidate's fields. */
  readonly signals: readonly Signal[];
}

export interface AdjudicationVerdict {
  /** Revised probability in [0, 1] that the candidate's party is the screened entity. */
  readonly probability: number;
  /** Why, in plain words a compliance officer can check against the record; never empty. */
  readonly reasons: readonly string[];
}

export interface MatchAdjudicator {
  /** Names the adjudicator honestly in every match it touched, e.g. "local-context-rules-v1" or the model. */
  readonly name: string;
  adjudicate(request: AdjudicationRequest, signal?: AbortSignal): Promise<AdjudicationVerdict>;
}

/** The adjudicator did not answer usefully (down, timed out, malformed answer); the candidate keeps its calibrated probability. */
export class AdjudicatorUnavailableError extends Error {
  override readonly name = 'AdjudicatorUnavailableError';
}
