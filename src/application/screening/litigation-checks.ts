/**
 * A litigation check as a priced, limited call, single or batched. In order: the
 * per-endpoint rate limit; the worst case reserved on the ledger (180 for a single check,
 * 100 per item for a batch; a balance below it is refused and nothing else happens); the
 * monthly check allowance; the distinct-names caps; then the screening itself, and the
 * reservation settled at the price the outcome earned.
 * Anything refused or failed after the reservation releases it and hands back the
 * allowances it took, so a refused or failed call costs nothing and counts for nothing.
 * Every call, answered or refused, is recorded by its shape only: purpose, entity types,
 * lengths and counts, outcome and price (`CheckRecord`), never a name or a value.
 *
 * Prices (spec "POST /party/screen" rule 2, and the batch's rule 1), by what the domain
 * bills the verdict as (verdict.ts):
 * - a report with at least one match (match_found, possible_match): 100 (per item in a batch);
 * - a genuine no match, which is exactly no_matches_found (an exhaustive retrieval with
 *   no error, no plan clamp of the limit, no `since` filter and no withheld record): 20;
 * - an inconclusive no match: 0, since the check could not say "no";
 * - a check where every retrieval failed is refused (502 PARTY_SCREEN_SEARCH_DEGRADED): 0;
 * - +80 on a single check when the adjudication pass answered for at least one candidate.
 */
import { billingAccountOf } from '../credits/credits-service.ts';
import { PRICES, screenedPrice, type PricedRequest } from '../../domain/credits/prices.ts';
import type { Ticket, Tickets } from '../admission/tickets.ts';
import type { RefusalOf } from '../admission/decision.ts';
import type { RateLimitDecision } from '../../ports/rate-limiter.ts';
import type { Principal } from '../access/key-authenticator.ts';
import { forEachBounded } from './bounded.ts';
import { failureSummary, scrubbed } from './failure-summary.ts';
import { AllowanceStoreUnavailable, type ScreeningAllowances } from './screening-allowances.ts';
import type { ScreenedNameKey } from './screened-name-key.ts';
import { namesToSearch, type ScreeningReport, type ScreeningRequest, type ScreeningService } from './screening-service.ts';

/** Batch items screened at once. */
export const BATCH_CONCURRENCY = 5;

/**
 * How long a check's hold may stay open: far longer than any check runs (the adjudicator's
 * model calls are bounded), so only a hold whose process died mid-check ever lapses.
 */
const SCREENING_HOLD_MS = 15 * 60_000;

export interface CheckContext {
  readonly principal: Principal;
  readonly requestId: string;
  /** The caller's declared purpose (kyc, bgv, ...): recorded with every check. */
  readonly purpose: string;
}

/** One screened item as it may be recorded: counts, lengths and flags, never a name or a value. */
export interface CheckShape {
  readonly entityType: 'person' | 'company';
  readonly nameLength: number;
  readonly aliases: number;
  readonly identifiers: number;
  readonly knownPersons: number;
  readonly address: boolean;
  readonly court: boolean;
  readonly since: boolean;
  readonly adjudicate: boolean;
}

/** What is recorded about each call, answered or refused (spec "POST /party/screen" rule 5). */
export interface CheckRecord {
  readonly requestId: string;
  readonly keyId: string;
  readonly endpoint: 'screen' | 'batch';
  readonly purpose: string;
  readonly items: readonly CheckShape[];
  readonly invalidItems: number;
  readonly outcome: 'Answered' | CheckRefusal['tag'];
  readonly charged: number;
}

export function shapeOf(request: ScreeningRequest): CheckShape {
  const { query } = request;
  return {
    entityType: query.entityType,
    nameLength: query.name.length,
    aliases: query.aliases.length,
    identifiers: Object.values(query.identifiers).length,
    knownPersons: query.knownPersons.length,
    address: query.address !== undefined,
    court: request.courtId !== null,
    since: request.since !== null,
    adjudicate: request.adjudicate,
  };
}

export type CheckRefusal = RefusalOf<
  | 'RateLimited'
  | 'TierNotAllowed'
  | 'InsufficientCredits'
  | 'MonthlyChecksUsed'
  | 'DistinctNamesCapReached'
  | 'SearchDegraded'
  | 'AllowanceStoreUnavailable'
>;

export type Refused = { readonly ok: false; readonly refusal: CheckRefusal };

export interface Charged {
  readonly charged: number;
  /** Spendable balance after the settlement. */
  readonly balance: number;
}

export type SingleOutcome = ({ readonly ok: true; readonly report: ScreeningReport } & Charged) | Refused;

export type BatchItemInput =
  { readonly ok: true; readonly request: ScreeningRequest } | { readonly ok: false; readonly problems: readonly string[] };

export type BatchItemFailure = 'Invalid' | 'DistinctNamesCapReached' | 'SearchDegraded' | 'Failed';

export type BatchItemResult =
  | { readonly index: number; readonly ok: true; readonly report: ScreeningReport; readonly charged: number }
  | { readonly index: number; readonly ok: false; readonly failure: BatchItemFailure; readonly problems: readonly string[] };

export type BatchOutcome =
  | ({
      readonly ok: true;
      readonly results: readonly BatchItemResult[];
      /** Items left out at the distinct-names cap. */
      readonly truncated: { readonly window: 'minute' | 'day'; readonly retryAfterSeconds: number } | null;
    } & Charged)
  | Refused;

export interface LitigationChecksDeps {
  readonly screening: ScreeningService;
  readonly allowances: ScreeningAllowances;
  readonly tickets: Pick<Tickets, 'admit' | 'settle' | 'release'>;
  readonly nameKey: ScreenedNameKey;
  /** Told about every call; see CheckRecord for what it holds. */
  readonly record: (record: CheckRecord) => void;
  /** A batch item that failed unexpectedly, by the error's class only (see failure-summary.ts). */
  readonly onItemFailure: (summary: string) => void;
}

const refused = (refusal: CheckRefusal): Refused => ({ ok: false, refusal });

function rateLimited(decision: RateLimitDecision, now: Date): CheckRefusal {
  const retryAfterSeconds = Math.max(1, Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000));
  return { tag: 'RateLimited', limit: decision.limit, retryAfterSeconds, resetAt: decision.resetAt };
}

function monthEndsIn(now: Date): number {
  return Math.max(1, Math.ceil((Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000));
}

export class LitigationChecks {
  constructor(private readonly deps: LitigationChecksDeps) {}

  async single(ctx: CheckContext, request: ScreeningRequest, now: Date): Promise<SingleOutcome> {
    const outcome = await this.#single(ctx, request, now);
    this.#record(ctx, 'screen', [shapeOf(request)], 0, outcome);
    return outcome;
  }

  async batch(ctx: CheckContext, items: readonly BatchItemInput[], now: Date): Promise<BatchOutcome> {
    const outcome = await this.#batch(ctx, items, now);
    const valid = items.flatMap((item) => (item.ok ? [shapeOf(item.request)] : []));
    this.#record(ctx, 'batch', valid, items.length - valid.length, outcome);
    return outcome;
  }

  #record(
    ctx: CheckContext,
    endpoint: 'screen' | 'batch',
    items: CheckShape[],
    invalidItems: number,
    outcome: SingleOutcome | BatchOutcome,
  ): void {
    this.deps.record({
      requestId: ctx.requestId,
      keyId: ctx.principal.keyId,
      endpoint,
      purpose: ctx.purpose,
      items,
      invalidItems,
      outcome: outcome.ok ? 'Answered' : outcome.refusal.tag,
      charged: outcome.ok ? outcome.charged : 0,
    });
  }

  async #single(ctx: CheckContext, request: ScreeningRequest, now: Date): Promise<SingleOutcome> {
    const { principal } = ctx;
    const account = billingAccountOf(principal);
    const undo: (() => Promise<void>)[] = [];
    let ticket: Ticket | null = null;
    const giveBack = async () => {
      if (ticket !== null) await this.deps.tickets.release(ticket);
      for (const u of undo.reverse()) await u();
    };
    try {
      const rate = await this.deps.allowances.hitRate(principal.keyId, 'screen', principal.limits.screeningRequestsPerMinute);
      if (!rate.allowed) return refused(rateLimited(rate, now));
      // Rule 3: 180 whether or not adjudicate is set (see worstCase); the settlement releases the rest.
      const admitted = await this.#admit(account, ctx.requestId, { endpoint: 'partyScreen' });
      if (!admitted.ok) return admitted;
      ticket = admitted.ticket;

      const cap = principal.limits.litigationChecksPerMonth;
      const checks = await this.deps.allowances.admitChecks(account, ctx.requestId, 1, cap);
      if (!checks.admitted) {
        await giveBack();
        return refused({ tag: 'MonthlyChecksUsed', cap: cap ?? 0, remaining: checks.remaining, retryAfterSeconds: monthEndsIn(now) });
      }
      undo.push(() => checks.undo());
      const keys = await Promise.all(namesToSearch(request.query).map((n) => this.deps.nameKey(n, request.query.entityType)));
      const names = await this.deps.allowances.admitNames(account, [keys], principal.limits.distinctScreenedNamesPerDay);
      undo.push(() => names.undo());
      if (!names.admitted[0]) {
        await giveBack();
        return refused({ tag: 'DistinctNamesCapReached', window: names.refusedBy ?? 'day', retryAfterSeconds: names.retryAfterSeconds });
      }

      const outcome = await this.#screen(request);
      if (!outcome.ok) {
        await giveBack();
        return refused({ tag: 'SearchDegraded' });
      }
      const { report } = outcome;
      const { summary } = report;
      const settled = await this.deps.tickets.settle(ticket, {
        endpoint: 'partyScreen',
        billedAs: summary.billedAs,
        adjudicated: summary.adjudicated,
      });
      return { ok: true, report, ...settled };
    } catch (error) {
      await giveBack().catch(() => undefined);
      if (error instanceof AllowanceStoreUnavailable) return refused({ tag: 'AllowanceStoreUnavailable' });
      throw error;
    }
  }

  async #batch(ctx: CheckContext, items: readonly BatchItemInput[], now: Date): Promise<BatchOutcome> {
    const { principal } = ctx;
    const account = billingAccountOf(principal);
    const undo: (() => Promise<void>)[] = [];
    let ticket: Ticket | null = null;
    const giveBack = async () => {
      if (ticket !== null) await this.deps.tickets.release(ticket);
      for (const u of undo.reverse()) await u();
    };
    try {
      const rate = await this.deps.allowances.hitRate(principal.keyId, 'batch', principal.limits.screeningRequestsPerMinute);
      if (!rate.allowed) return refused(rateLimited(rate, now));
      const held = await this.#admit(account, ctx.requestId, { endpoint: 'partyScreenBatch', items: items.length });
      if (!held.ok) return held;
      ticket = held.ticket;

      const valid = items.flatMap((item, index) => (item.ok ? [{ index, request: item.request }] : []));
      // Item by item: reading 25 items' names at once held the event loop for tens of milliseconds.
      const keys: string[][] = [];
      for (const { request } of valid)
        keys.push(await Promise.all(namesToSearch(request.query).map((n) => this.deps.nameKey(n, request.query.entityType))));
      const names = await this.deps.allowances.admitNames(account, keys, principal.limits.distinctScreenedNamesPerDay);
      undo.push(() => names.undo());
      const admitted = valid.filter((_, k) => names.admitted[k] === true);
      if (valid.length > 0 && admitted.length === 0) {
        await giveBack();
        return refused({ tag: 'DistinctNamesCapReached', window: names.refusedBy ?? 'day', retryAfterSeconds: names.retryAfterSeconds });
      }
      const cap = principal.limits.litigationChecksPerMonth;
      const checks = await this.deps.allowances.admitChecks(account, ctx.requestId, admitted.length, cap);
      if (!checks.admitted) {
        await giveBack();
        return refused({ tag: 'MonthlyChecksUsed', cap: cap ?? 0, remaining: checks.remaining, retryAfterSeconds: monthEndsIn(now) });
      }
      undo.push(() => checks.undo());

      const results = new Map<number, BatchItemResult>();
      items.forEach((item, index) => {
        if (!item.ok) results.set(index, { index, ok: false, failure: 'Invalid', problems: item.problems });
      });
      valid.forEach(({ index }, k) => {
        if (names.admitted[k] !== true) results.set(index, { index, ok: false, failure: 'DistinctNamesCapReached', problems: [] });
      });
      let failed = 0;
      await forEachBounded(admitted, BATCH_CONCURRENCY, async ({ index, request }) => {
        const k = valid.findIndex((v) => v.index === index);
        try {
          const outcome = await this.#screen(request);
          if (outcome.ok) {
            const { perItemMatch, perItemNoMatch } = PRICES.partyScreenBatch;
            const charged = screenedPrice(outcome.report.summary.billedAs, perItemMatch, perItemNoMatch);
            results.set(index, { index, ok: true, report: outcome.report, charged });
            return;
          }
          results.set(index, { index, ok: false, failure: 'SearchDegraded', problems: [] });
        } catch (error) {
          this.deps.onItemFailure(failureSummary(error));
          results.set(index, { index, ok: false, failure: 'Failed', problems: [] });
        }
        failed += 1;
        await names.undoItem(k);
      });
      if (admitted.length > 0 && failed === admitted.length) {
        await giveBack();
        return refused({ tag: 'SearchDegraded' });
      }
      if (failed > 0) await checks.undo(failed);
      const ordered = items.map((_, index) => results.get(index)).filter((r): r is BatchItemResult => r !== undefined);
      const billed = (as: string) => ordered.filter((r) => r.ok && r.report.summary.billedAs === as).length;
      const settled = await this.deps.tickets.settle(ticket, {
        endpoint: 'partyScreenBatch',
        matchedItems: billed('match'),
        noMatchItems: billed('genuine_no_match'),
      });
      return {
        ok: true,
        results: ordered,
        truncated: names.refusedBy === null ? null : { window: names.refusedBy, retryAfterSeconds: names.retryAfterSeconds },
        ...settled,
      };
    } catch (error) {
      await giveBack().catch(() => undefined);
      if (error instanceof AllowanceStoreUnavailable) return refused({ tag: 'AllowanceStoreUnavailable' });
      throw error;
    }
  }

  async #screen(request: ScreeningRequest): ReturnType<ScreeningService['screen']> {
    try {
      return await this.deps.screening.screen(request);
    } catch (error) {
      throw scrubbed('screening', error);
    }
  }

  async #admit(account: string, callId: string, request: PricedRequest): Promise<{ ok: true; ticket: Ticket } | Refused> {
    const admitted = await this.deps.tickets.admit({ account, callId, request, holdForMs: SCREENING_HOLD_MS });
    return admitted.ok ? admitted : refused(admitted.refusal);
  }
}
