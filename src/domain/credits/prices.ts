/**
 * The price table, as data: what each endpoint costs in credits (10 credits = 1 rupee).
 * Fixed-price endpoints are charged once the call succeeds; outcome-priced ones reserve
 * their worst case before any work (a balance below it is refused, nothing charged) and
 * settle the final price from the outcome afterwards. OpenAPI descriptions and /usage
 * read the same table, so the published prices cannot drift from the charged ones.
 * Prices the spec does not state are ours: keyword search 5, judge lookup 1 and a
 * timeline request 50, charged only when a live fetch actually starts.
 */
import { assertNever } from '../decider.ts';

export const PRICES = {
  keywordSearch: { method: 'POST', path: '/search/cases', credits: 5 },
  semanticSearch: { method: 'POST', path: '/search/cases/semantic', credits: 10 },
  judgeSearch: { method: 'GET', path: '/judges/search', credits: 1 },
  caseDetail: { method: 'GET', path: '/cases/:id', credits: 1 },
  analysisRead: { method: 'GET', path: '/cases/:id/analysis', credits: 1 },
  pdfLink: { method: 'GET', path: '/cases/:id/pdf', credits: 5 },
  analyze: { method: 'POST', path: '/cases/:id/analyze', credits: 100, cacheHit: 1, remoteFetch: 20 },
  analyzeConsolidated: { method: 'POST', path: '/cases/:id/analyze-consolidated', credits: 400, cacheHit: 1 },
  partyScreen: { method: 'POST', path: '/party/screen', match: 100, noMatch: 20, adjudication: 80 },
  partyScreenBatch: { method: 'POST', path: '/party/screen/batch', perItemMatch: 100, perItemNoMatch: 20 },
  requestTimeline: { method: 'POST', path: '/request-timeline', liveFetch: 50 },
  usage: { method: 'GET', path: '/usage', credits: 0 },
  me: { method: 'GET', path: '/me', credits: 0 },
  audit: { method: 'GET', path: '/audit', credits: 0 },
  health: { method: 'GET', path: '/health', credits: 0 },
  coverage: { method: 'GET', path: '/coverage', credits: 0 },
  referenceCourts: { method: 'GET', path: '/reference/courts', credits: 0 },
  referenceCaseTypes: { method: 'GET', path: '/reference/case-types', credits: 0 },
} as const;

export type PricedEndpoint = keyof typeof PRICES;

/** Endpoints whose price is one number, known before the call runs. */
export type FixedPriceEndpoint = {
  [K in PricedEndpoint]: (typeof PRICES)[K] extends { credits: number }
    ? (typeof PRICES)[K] extends { cacheHit: number }
      ? never
      : K
    : never;
}[PricedEndpoint];

export function fixedPrice(endpoint: FixedPriceEndpoint): number {
  return PRICES[endpoint].credits;
}

/** What an outcome-priced call asked for: enough to know the worst case before running it. */
export type PricedRequest =
  | { endpoint: 'analyze'; allowRemoteFetch: boolean }
  | { endpoint: 'analyzeConsolidated' }
  | { endpoint: 'partyScreen' }
  | { endpoint: 'partyScreenBatch'; items: number }
  | { endpoint: 'requestTimeline' };

/**
 * What a litigation check's report is billed as (verdict.ts): a match, a genuine no match,
 * or neither (an inconclusive no match, which could not say "no" and costs nothing).
 */
export type BilledAs = 'match' | 'genuine_no_match' | 'none';

/** What actually happened, which fixes the final price. */
export type PricedOutcome =
  | { endpoint: 'analyze'; cacheHit: boolean; remoteFetched: boolean }
  | { endpoint: 'analyzeConsolidated'; cacheHit: boolean }
  | { endpoint: 'partyScreen'; billedAs: BilledAs; adjudicated: boolean }
  | { endpoint: 'partyScreenBatch'; matchedItems: number; noMatchItems: number }
  | { endpoint: 'requestTimeline'; liveFetchStarted: boolean };

/**
 * The reservation taken before an outcome-priced call runs: the worst case the request can
 * reach. A remote fetch the caller did not allow cannot happen, so it is not reserved.
 * A single litigation check is the exception that reserves a surcharge it may not reach:
 * the spec ("POST /party/screen" rule 3) defines its worst case as the match price plus
 * the adjudication surcharge, 180, with no exception for adjudicate false, so every
 * single check holds 180 and settles at the price it earned. (The batch's rule 1 names
 * its own reservation, 100 per item, and a batch never adjudicates.)
 */
export function worstCase(request: PricedRequest): number {
  switch (request.endpoint) {
    case 'analyze':
      return PRICES.analyze.credits + (request.allowRemoteFetch ? PRICES.analyze.remoteFetch : 0);
    case 'analyzeConsolidated':
      return PRICES.analyzeConsolidated.credits;
    case 'partyScreen':
      return PRICES.partyScreen.match + PRICES.partyScreen.adjudication;
    case 'partyScreenBatch':
      return PRICES.partyScreenBatch.perItemMatch * request.items;
    case 'requestTimeline':
      return PRICES.requestTimeline.liveFetch;
    default:
      return assertNever(request);
  }
}

/** The final price of an outcome; never above the worst case of the request that led to it. */
export function finalPrice(outcome: PricedOutcome): number {
  switch (outcome.endpoint) {
    case 'analyze':
      // A cache hit ran no model; a remote fetch is paid only when one happened.
      return (
        (outcome.cacheHit ? PRICES.analyze.cacheHit : PRICES.analyze.credits) + (outcome.remoteFetched ? PRICES.analyze.remoteFetch : 0)
      );
    case 'analyzeConsolidated':
      return outcome.cacheHit ? PRICES.analyzeConsolidated.cacheHit : PRICES.analyzeConsolidated.credits;
    case 'partyScreen':
      return (
        screenedPrice(outcome.billedAs, PRICES.partyScreen.match, PRICES.partyScreen.noMatch) +
        (outcome.adjudicated ? PRICES.partyScreen.adjudication : 0)
      );
    case 'partyScreenBatch':
      return outcome.matchedItems * PRICES.partyScreenBatch.perItemMatch + outcome.noMatchItems * PRICES.partyScreenBatch.perItemNoMatch;
    case 'requestTimeline':
      return outcome.liveFetchStarted ? PRICES.requestTimeline.liveFetch : 0;
    default:
      return assertNever(outcome);
  }
}

/** One screened name's price at a route's match and no-match prices. */
export function screenedPrice(billedAs: BilledAs, match: number, noMatch: number): number {
  return billedAs === 'match' ? match : billedAs === 'genuine_no_match' ? noMatch : 0;
}

/** One line for an endpoint's OpenAPI description and its /usage entry. */
export function describePrice(endpoint: PricedEndpoint): string {
  const p = PRICES[endpoint];
  switch (p.path) {
    case '/cases/:id/analyze':
      return `${p.credits} credits; ${p.cacheHit} on a cache hit; +${p.remoteFetch} when a remote fetch actually happened.`;
    case '/cases/:id/analyze-consolidated':
      return `${p.credits} credits; ${p.cacheHit} on a cache hit.`;
    case '/party/screen':
      return `${p.match} credits on a match; ${p.noMatch} on a genuine no match; +${p.adjudication} when the adjudication pass ran; reserves ${worstCase({ endpoint: 'partyScreen' })} first.`;
    case '/party/screen/batch':
      return `Per item: ${p.perItemMatch} credits matched, ${p.perItemNoMatch} no match; reserves ${p.perItemMatch} per item first.`;
    case '/request-timeline':
      return `${p.liveFetch} credits, only when a live fetch starts.`;
    default:
      return p.credits === 0 ? 'Free (0 credits).' : `${p.credits} credit${p.credits === 1 ? '' : 's'}.`;
  }
}

/** The whole table for /usage: endpoint, method, path and its price line. */
export function priceList(): { endpoint: PricedEndpoint; method: string; path: string; price: string }[] {
  return (Object.keys(PRICES) as PricedEndpoint[]).map((endpoint) => ({
    endpoint,
    method: PRICES[endpoint].method,
    path: PRICES[endpoint].path,
    price: describePrice(endpoint),
  }));
}
