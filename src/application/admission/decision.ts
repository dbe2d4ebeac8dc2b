/**
 * The pure rules of admitting a priced call, with no IO so they unit-test on their own:
 * whether the caller's tier is entitled to a feature, whether a balance covers a price,
 * what a cap's refusal is, and what an outcome earned. Every refusal is a tagged value
 * without an HTTP status; the HTTP layer maps the tags through its one table.
 */
import { TIER_FEATURES, type Tier, type TierFeatures } from '../../domain/access/tiers.ts';
import { fixedPrice, type FixedPriceEndpoint } from '../../domain/credits/prices.ts';

export type Feature = keyof TierFeatures;

/** The per-account caps a fixed-price call can count against. */
export type Cap = 'distinctCasesPerDay' | 'pdfLinksPerMonth';

export type TierNotAllowed = { readonly tag: 'TierNotAllowed'; readonly feature: Feature };
export type InsufficientCredits = { readonly tag: 'InsufficientCredits'; readonly required: number; readonly balance: number };

export type Refusal =
  | TierNotAllowed
  | InsufficientCredits
  | { readonly tag: 'CapReached'; readonly cap: Cap; readonly retryAfterSeconds: number }
  /** The cap's store could not answer: the call fails closed. `cause` is for the log only. */
  | { readonly tag: 'StandingUnavailable'; readonly cap: Cap; readonly cause: unknown };

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

export function capRefusal(cap: Cap, decision: CapRefused): Refusal {
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
