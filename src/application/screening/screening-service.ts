/**
 * One litigation check, end to end: party-name retrieval for the name and every alias
 * through the search port, the candidates loaded from the case store, features and a
 * calibrated probability per candidate, the rules, the optional adjudication pass over the
 * uncertain middle, and the report with its verdict and coverage.
 *
 * Coverage, precisely:
 * - a retrieval is complete when every name's search answered and said it held every
 *   match (`PartySearchResult.complete`), the union over the names fits the limit, and the
 *   plan did not clamp the limit;
 * - `exhaustiveWithinFilters` is that completeness under the filters the caller set
 *   (court, since); `exhaustive` additionally needs no filter, i.e. the whole corpus was
 *   covered. A plan clamp of `limit` makes the run incomplete even when the clamped limit
 *   held every match: rule 6 names "any plan clamp" among the non-exhaustive runs, so the
 *   coverage flags say so too and agree with the inconclusive verdict.
 * - `someRecordsWithheld` is true when a restricted case matched (the index says so) or
 *   a retrieved case turned out restricted in the store; such cases are never scored.
 * The verdict and what the check is billed as come from the domain (verdict.ts): a genuine
 * no match is exactly `no_matches_found`.
 *
 * Retrieval errors: when every name's search fails there is no usable result and the
 * check fails (`SearchDegraded`, not charged); when only some fail, the rest is scored and
 * the run is incomplete (inconclusive unless something matched).
 */
import type { Db } from '../../db/database.ts';
import type { Band } from '../../domain/screening/bands.ts';
import { calibratedProbability } from '../../domain/screening/calibration.ts';
import {
  extractFeaturesSteps,
  type ExtractedFeatures,
  type MatchFeatures,
  type PartyRole,
  type ScreeningQuery,
  type Signal,
} from '../../domain/screening/features.ts';
import { prepareQuery } from '../../domain/screening/prepared-query.ts';
import {
  decideMatch,
  isShown,
  NAME_SIMILARITY_FLOOR,
  needsAdjudication,
  withoutCorroboration,
  type CapReason,
  type DecidedBy,
  type MatchDecision,
} from '../../domain/screening/rules.ts';
import { keptBySince } from '../../domain/screening/screening-request.ts';
import { billedOutcome, screeningVerdict, type Verdict } from '../../domain/screening/verdict.ts';
import type { MatchAdjudicator } from '../../ports/match-adjudicator.ts';
import type { PartyHit, PartySearchIndex, PartySearchResult } from '../../ports/search-index.ts';
import type { CourtCodes } from '../search/court-codes.ts';
import { TimeSlicer } from '../../scheduling/time-slice.ts';
import { forEachBounded } from './bounded.ts';
import { loadCandidates, type LoadedCandidate } from './candidate-records.ts';
import { comparableName } from './screened-name-key.ts';

/** The spec's cap on candidates one check sends to adjudication. */
export const MAX_ADJUDICATED = 40;
/** Adjudication calls in flight at once for one check. */
const ADJUDICATION_CONCURRENCY = 4;

export interface ScreeningRequest {
  readonly query: ScreeningQuery;
  /** A /reference/courts id, or null for every court. */
  readonly courtId: string | null;
  /** YYYY-MM-DD, or null. */
  readonly since: string | null;
  /** Candidates considered, after any plan clamp. */
  readonly limit: number;
  /** The tier's maxPageSize reduced the requested or default limit (rule 6: not exhaustive). */
  readonly limitClamped: boolean;
  readonly adjudicate: boolean;
  readonly displayThreshold: number;
}

export interface ScreeningMatch {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly court: { readonly code: string; readonly name: string };
  readonly title: string | null;
  readonly decisionDate: string | null;
  readonly filingDate: string | null;
  readonly partyRole: PartyRole;
  /** The party as the record prints it, or null when the match was read elsewhere than a party entry. */
  readonly matchedName: string | null;
  /** Which screened name matched best: the name or one of the aliases. */
  readonly matchedVia: 'name' | 'alias';
  readonly nameSimilarity: number;
  readonly probability: number;
  readonly band: Band;
  readonly decidedBy: DecidedBy;
  /** Why a rule held the probability below what the model (or adjudicator) said, if one did. */
  readonly cappedBy: CapReason | null;
  readonly signals: readonly Signal[];
  readonly adjudication: {
    readonly adjudicator: string;
    readonly probabilityBefore: number;
    readonly reasons: readonly string[];
  } | null;
}

export interface ScreeningReport {
  readonly matches: readonly ScreeningMatch[];
  readonly summary: {
    readonly verdict: Verdict;
    readonly matchCount: number;
    readonly bestBand: Band | null;
    readonly bestProbability: number | null;
    /** What the check is billed as (verdict.ts): a match, a genuine no match (no_matches_found), or neither. */
    readonly billedAs: 'match' | 'genuine_no_match' | 'none';
    /** The adjudication pass ran on at least one candidate (the surcharge applies). */
    readonly adjudicated: boolean;
    readonly adjudicatedCandidates: number;
  };
  readonly coverage: {
    readonly exhaustive: boolean;
    readonly exhaustiveWithinFilters: boolean;
    readonly someRecordsWithheld: boolean;
    readonly candidatesConsidered: number;
    readonly limit: number;
    readonly limitClamped: boolean;
    readonly namesSearched: number;
    readonly namesFailed: number;
  };
}

export type ScreeningOutcome =
  { readonly ok: true; readonly report: ScreeningReport } | { readonly ok: false; readonly reason: 'SearchDegraded' };

export interface ScreeningDeps {
  readonly db: Db;
  readonly parties: PartySearchIndex;
  readonly courts: CourtCodes;
  readonly adjudicator: MatchAdjudicator;
  /** Told which stage failed, never with what was searched. */
  readonly onFailure: (stage: 'retrieval' | 'adjudication', error: unknown) => void;
}

interface Scored {
  readonly candidate: LoadedCandidate;
  readonly features: MatchFeatures;
  readonly signals: readonly Signal[];
  readonly matchedParty: ExtractedFeatures['matchedParty'];
  readonly probability: number;
  readonly nameOnly: number;
  decision: MatchDecision;
  adjudication: ScreeningMatch['adjudication'];
}

/** Names to search: the name first, then aliases that are not the same name written again. */
export function namesToSearch(query: ScreeningQuery): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of [query.name, ...query.aliases]) {
    const key = comparableName(name, query.entityType);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}

/** The best hit per case over every name's results, best first (ties by case id). */
export function unionOfHits(results: readonly PartySearchResult[]): PartyHit[] {
  const best = new Map<string, PartyHit>();
  for (const result of results)
    for (const hit of result.hits) {
      const seen = best.get(hit.caseId);
      if (seen === undefined || hit.score > seen.score) best.set(hit.caseId, hit);
    }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.caseId < b.caseId ? -1 : a.caseId > b.caseId ? 1 : 0));
}

export class ScreeningService {
  constructor(private readonly deps: ScreeningDeps) {}

  async screen(request: ScreeningRequest, signal?: AbortSignal): Promise<ScreeningOutcome> {
    const { query } = request;
    const names = namesToSearch(query);
    const answered = await this.#retrieve(names, request);
    if (answered.length === 0) return { ok: false, reason: 'SearchDegraded' };

    const union = unionOfHits(answered);
    const considered = union.slice(0, request.limit);
    const complete =
      !request.limitClamped && answered.length === names.length && answered.every((r) => r.complete) && union.length <= request.limit;
    const loaded = await loadCandidates(
      this.deps.db,
      considered.map((h) => h.caseId),
    );
    const withheld = answered.some((r) => r.withheld) || loaded.withheld;
    const since = request.since;
    const inTime = since === null ? loaded.candidates : loaded.candidates.filter((c) => keptBySince(c, since));

    const prepared = prepareQuery(query);
    // Up to 100 candidates, some with judgments of half a million characters: scored in
    // steps, the event loop given back between slices (time-slice.ts).
    const slicer = new TimeSlicer();
    const scored: Scored[] = [];
    for (const candidate of inTime) {
      const { features, signals, matchedParty } = await slicer.run(extractFeaturesSteps(prepared, candidate));
      if (features.nameSimilarity < NAME_SIMILARITY_FLOOR && !features.identifierMatch) continue;
      const probability = calibratedProbability(features, query.entityType);
      const nameOnly = calibratedProbability(withoutCorroboration(features), query.entityType);
      const decision = decideMatch(probability, features, query.entityType, { nameOnlyProbability: nameOnly });
      scored.push({ candidate, features, signals, matchedParty, probability, nameOnly, decision, adjudication: null });
    }

    const adjudicatedCount = request.adjudicate ? await this.#adjudicate(scored, request, signal) : 0;
    const shown = scored
      .filter((s) => isShown(s.decision, request.displayThreshold))
      .sort((a, b) => b.decision.probability - a.decision.probability || (a.candidate.caseId < b.candidate.caseId ? -1 : 1));
    const matches = shown.map((s) => this.#match(s));
    const best = matches[0];
    const exhaustiveWithinFilters = complete;
    const exhaustive = complete && request.courtId === null && request.since === null;
    const verdict = screeningVerdict({
      bands: matches.map((m) => m.band),
      exhaustive,
      exhaustiveWithinFilters,
      sinceApplied: request.since !== null,
      someRecordsWithheld: withheld,
      strategyErrors: answered.length < names.length,
      clamped: request.limitClamped,
    });
    return {
      ok: true,
      report: {
        matches,
        summary: {
          verdict,
          matchCount: matches.length,
          bestBand: best?.band ?? null,
          bestProbability: best?.probability ?? null,
          billedAs: billedOutcome(verdict),
          adjudicated: adjudicatedCount > 0,
          adjudicatedCandidates: adjudicatedCount,
        },
        coverage: {
          exhaustive,
          exhaustiveWithinFilters,
          someRecordsWithheld: withheld,
          candidatesConsidered: considered.length,
          limit: request.limit,
          limitClamped: request.limitClamped,
          namesSearched: names.length,
          namesFailed: names.length - answered.length,
        },
      },
    };
  }

  /** Each name's retrieval under the filters; the ones that answered (failures are reported, not thrown). */
  async #retrieve(names: readonly string[], request: ScreeningRequest): Promise<PartySearchResult[]> {
    const courtCodes = request.courtId === null ? undefined : await this.deps.courts.codesFor([request.courtId]);
    // A court the store holds nothing for matches nothing: a complete, empty retrieval.
    if (courtCodes !== undefined && courtCodes.length === 0) return names.map(() => ({ hits: [], complete: true, withheld: false }));
    const filters = {
      ...(courtCodes === undefined ? {} : { courtCodes }),
      ...(request.since === null ? {} : { decidedOnOrAfter: request.since }),
    };
    const settled = await Promise.allSettled(names.map((name) => this.deps.parties.searchParties({ name, filters, limit: request.limit })));
    for (const s of settled) if (s.status === 'rejected') this.deps.onFailure('retrieval', s.reason);
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /**
   * Sends the uncertain middle (past the floor, not decided by an identifier), closest to
   * the display threshold first, at most MAX_ADJUDICATED; returns how many were answered.
   * An adjudicator that fails leaves its candidate with the model's decision.
   */
  async #adjudicate(scored: Scored[], request: ScreeningRequest, signal?: AbortSignal): Promise<number> {
    const middle = scored
      .filter((s) => needsAdjudication(s.features))
      .sort((a, b) => Math.abs(a.probability - request.displayThreshold) - Math.abs(b.probability - request.displayThreshold))
      .slice(0, MAX_ADJUDICATED);
    let answered = 0;
    await forEachBounded(middle, ADJUDICATION_CONCURRENCY, async (s) => {
      try {
        const verdict = await this.deps.adjudicator.adjudicate(
          {
            query: request.query,
            candidate: s.candidate,
            matchedParty: s.matchedParty,
            probability: s.probability,
            signals: s.signals,
          },
          signal,
        );
        s.decision = decideMatch(verdict.probability, s.features, request.query.entityType, {
          adjudicated: true,
          nameOnlyProbability: s.nameOnly,
        });
        s.adjudication = { adjudicator: this.deps.adjudicator.name, probabilityBefore: round(s.probability), reasons: verdict.reasons };
        answered += 1;
      } catch (error) {
        this.deps.onFailure('adjudication', error);
      }
    });
    return answered;
  }

  #match(s: Scored): ScreeningMatch {
    const c = s.candidate;
    return {
      caseId: c.caseId,
      caseNumber: c.caseNumber,
      court: { code: c.courtCode, name: c.courtName },
      title: c.title,
      decisionDate: c.decisionDate,
      filingDate: c.filingDate,
      partyRole: s.features.partyRole,
      matchedName: s.matchedParty?.text ?? null,
      matchedVia: s.features.bestNameVariant,
      nameSimilarity: round(s.features.nameSimilarity),
      probability: round(s.decision.probability),
      band: s.decision.band,
      decidedBy: s.decision.decidedBy,
      cappedBy: s.decision.capped ?? null,
      signals: s.signals,
      adjudication: s.adjudication,
    };
  }
}

/** Three decimals, rounded down so a printed probability never sits in a higher band than its own. */
function round(p: number): number {
  return Math.floor(p * 1000) / 1000;
}
