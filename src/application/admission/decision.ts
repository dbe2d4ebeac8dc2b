/**
 * The pure rules of admitting a priced call, with no IO so they unit-test on their own:
 * whether the caller's tier is entitled to a feature, whether a balance covers a price,
 * what a cap's refusal is, and what an outcome earned. Every refusal is a tagged value
 * without an HTTP status; the HTTP layer maps the tags through its one table.
 */
import { TIER_FEATURES, type Tier, type TierFeatures } from '../../domain/access/tiers.ts';
import { fixedPrice, type FixedPriceEndpoint } from '../../domain/credits/prices.ts';
import type { CreditsError } from '../credits/credits-service.ts';

export type Feature = keyof TierFeatures;

/** The per-account caps a fixed-price call can count against. */
export type Cap = 'distinctCasesPerDay' | 'pdfLinksPerMonth';

export type TierNotAllowed = { readonly tag: 'TierNotAllowed'; readonly feature: Feature };
export type InsufficientCredits = { readonly tag: 'InsufficientCredits'; readonly required: number; readonly balance: number };

/**
 * Every refusal of a priced call, whichever route made it: entitlement, balance, caps and
 * limits, and the call's own preconditions. One union, so the HTTP layer renders each tag
 * once (src/http/refusals.ts); each service answers with the members it can reach
 * (`RefusalOf`). Nothing was charged for any of them.
 */
export type Refusal =
  | TierNotAllowed
  | InsufficientCredits
  | { readonly tag: 'CapReached'; readonly cap: Cap; readonly retryAfterSeconds: number }
  /** The cap's store could not answer: the call fails closed. `cause` is for the log only. */
  | { readonly tag: 'StandingUnavailable'; readonly cap: Cap; readonly cause: unknown }
  /** Analyses running at once, at the tier's most. */
  | { readonly tag: 'ConcurrencyLimit'; readonly running: number }
  /** Live fetches today, at the tier's most; the count resets at 00:00 UTC. */
  | { readonly tag: 'DailyLimit'; readonly used: number; readonly cap: number; readonly retryAfterSeconds: number; readonly resetAt: Date }
  /** Screening requests this minute, at the key's most. */
  | { readonly tag: 'RateLimited'; readonly limit: number; readonly retryAfterSeconds: number; readonly resetAt: Date }
  | { readonly tag: 'MonthlyChecksUsed'; readonly cap: number; readonly remaining: number; readonly retryAfterSeconds: number }
  | { readonly tag: 'DistinctNamesCapReached'; readonly window: 'minute' | 'day'; readonly retryAfterSeconds: number }
  /** The screening allowances' store could not answer: the call fails closed. */
  | { readonly tag: 'AllowanceStoreUnavailable' }
  /** Every retrieval of a litigation check failed. */
  | { readonly tag: 'SearchDegraded' }
  /** The workflow engine cannot take the call's work. */
  | { readonly tag: 'WorkflowsUnavailable'; readonly work: 'analysis run' | 'live fetch' }
  /** Nothing to analyse: no text, no stored document, no remote fetch allowed. */
  | { readonly tag: 'NoReadableSource'; readonly courtLevel: string }
  | { readonly tag: 'RemoteFetchNotAllowed'; readonly host: string }
  | { readonly tag: 'CaseNotFound'; readonly cnr: string | null }
  | { readonly tag: 'CaseRestricted' }
  /** Not an eCourts registry case (a Supreme Court judgment, a tribunal record): no portal holds it. */
  | { readonly tag: 'NotLiveFetchable'; readonly courtLevel: string }
  | { readonly tag: 'LiveFetchNotConfigured' }
  /** A search page larger than the tier's page size (search/page-window.ts). */
  | { readonly tag: 'PageTooLarge'; readonly limit: number; readonly maxPageSize: number }
  /** A searchAfter cursor that is malformed, forged or issued for another search. */
  | { readonly tag: 'CursorInvalid' }
  /** A search page reaching past the depth cap (the tier's, or the index's when lower). */
  | {
      readonly tag: 'PageTooDeep';
      readonly search: 'keyword' | 'semantic';
      readonly offset: number;
      readonly limit: number;
      readonly depth: number;
    }
  /** The search's index did not answer (for semantic search: neither index). `cause` is for the log only. */
  | { readonly tag: 'SearchIndexUnavailable'; readonly search: 'keyword' | 'semantic'; readonly cause: unknown };

export type RefusalOf<T extends Refusal['tag']> = Extract<Refusal, { readonly tag: T }>;

/** A cap's refusal, as the quota store gives it. */
export type CapRefused =
  | { readonly admitted: false; readonly refusal: 'CapReached'; readonly retryAfterSeconds: number }
  | { readonly admitted: false; readonly refusal: 'StoreUnavailable'; readonly cause: unknown };

export function entitlement(tier: Tier, feature: Feature | undefined): TierNotAllowed | null {
  return feature === undefined || TIER_FEATURES[tier][feature] ? null : { tag: 'TierNotAllowed', feature };
}

export function affordability(required: number, balance: number): InsufficientCredits | null {
  return balance >= required ? null : { tag: 'InsufficientCredits', required, balance };
}

/** A ledger refusal as the caller's refusal: only a short balance is the caller's; anything else is a bug. */
export function creditRefusal(error: CreditsError, what: string): InsufficientCredits {
  if (error.tag === 'InsufficientCredits') return { tag: 'InsufficientCredits', required: error.required, balance: error.balance };
  throw new Error(`${what} refused by the ledger: ${error.tag}`);
}

export function capRefusal(cap: Cap, decision: CapRefused): RefusalOf<'CapReached' | 'StandingUnavailable'> {
  return decision.refusal === 'CapReached'
    ? { tag: 'CapReached', cap, retryAfterSeconds: decision.retryAfterSeconds }
    : { tag: 'StandingUnavailable', cap, cause: decision.cause };
}

/**
 * What a call priced at `endpoint` charges once its outcome earned `earned`: never more
 * than the price its balance was checked against, and null when it earned nothing.
 */
export function earnedCharge(endpoint: FixedPriceEndpoint, earned: FixedPriceEndpoint | null): number | null {
  return earned === null ? null : Math.min(fixedPrice(endpoint), fixedPrice(earned));
}

/**
 * What a search page earns: its endpoint's price, or nothing when the restricted-record
 * check was degraded. Such a page is masked (no titles, no party names), so the caller
 * will ask again for the page it paid for; charging both answers would bill twice for
 * one usable page, and the cause is ours.
 */
export function searchPageEarns(
  page: { readonly restrictedCheckDegraded: boolean },
  endpoint: FixedPriceEndpoint,
): FixedPriceEndpoint | null {
  return page.restrictedCheckDegraded ? null : endpoint;
}
