/**
 * The one table from the application's refusals (decision.ts's `Refusal`, every priced
 * route's) to the spec's errors: status, code, body shape and Retry-After. Nothing was
 * charged for any of them, and each message says so where the spec's wording allows.
 */
import type { Refusal } from '../application/admission/decision.ts';
import type { Cap, Feature } from '../application/admission/decision.ts';
import { ApiError, workflowEngineUnavailable } from './api-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** Where a refused caller goes next: carried in the 402 and 403 bodies. */
export interface RefusalLinks {
  readonly topUpUrl: string;
  readonly upgradeUrl: string;
}

/** Each gated feature's refusal, as the spec words it: semantic search has its own code and no upgrade link. */
const FEATURES: Record<Feature, { readonly code: ErrorCode; readonly message?: string; readonly upgrade: boolean }> = {
  semanticSearch: { code: 'SEMANTIC_NOT_ALLOWED', upgrade: false },
  liveFetch: {
    code: 'LIVE_FETCH_NOT_ALLOWED',
    message: 'Live fetches (refresh true) are not available on the Free tier. Nothing was charged.',
    upgrade: true,
  },
  aiAnalysis: {
    code: 'API_TIER_NOT_ALLOWED',
    message: 'AI analysis is not available on the Free tier. Nothing was charged.',
    upgrade: true,
  },
  adjudication: {
    code: 'API_TIER_NOT_ALLOWED',
    message: 'Adjudication is not available on the Free tier. Nothing was charged.',
    upgrade: true,
  },
  batchScreening: {
    code: 'API_TIER_NOT_ALLOWED',
    message: 'Batch screening is not available on the Free tier. Nothing was charged.',
    upgrade: true,
  },
};

const CAPS: Record<Cap, { readonly code: ErrorCode; readonly allowance: string }> = {
  distinctCasesPerDay: { code: 'DISTINCT_CASES_LIMIT_REACHED', allowance: 'daily distinct-case allowance' },
  pdfLinksPerMonth: { code: 'PDF_LIMIT_REACHED', allowance: 'monthly PDF allowance' },
};

/** What to do about a case with nothing to analyse, by its court level. */
const NO_SOURCE_HINT: Readonly<Record<string, string>> = {
  supreme:
    'This judgment is held as an index entry only. Retry with allowRemoteFetch true to fetch it from the Supreme Court’s site (+20 credits, only if fetched).',
  high: 'No document is held for this case. Use POST /request-timeline with refresh true to fetch its orders from the court portal, then analyse again.',
  district:
    'No document is held for this case. Use POST /request-timeline with refresh true to fetch its orders from the court portal, then analyse again.',
  tribunal: 'No document is held for this tribunal case, and tribunal documents cannot be fetched through this API.',
};

/** Why a case cannot be fetched live, by its court level. */
const COURT_WORDS: Readonly<Record<string, string>> = {
  supreme: 'a Supreme Court judgment',
  tribunal: 'a tribunal record',
  high: 'a High Court case without a CNR',
  district: 'a District Court case without a CNR',
};

/** How long a caller should wait after a degraded litigation check. */
const SEARCH_RETRY_AFTER_SECONDS = 30;

export function refusalError(refusal: Refusal, links: RefusalLinks): ApiError {
  switch (refusal.tag) {
    case 'TierNotAllowed': {
      const { code, message, upgrade } = FEATURES[refusal.feature];
      return new ApiError(code, {
        ...(message === undefined ? {} : { message }),
        ...(upgrade ? { extra: { upgradeUrl: links.upgradeUrl } } : {}),
      });
    }
    case 'InsufficientCredits': {
      const { required, balance } = refusal;
      return new ApiError('INSUFFICIENT_API_CREDITS', {
        message: `This call costs ${required} credits; the balance is ${balance}. Nothing was charged.`,
        extra: { required, balance, shortfall: required - balance, topUpUrl: links.topUpUrl },
      });
    }
    case 'CapReached':
      return new ApiError(CAPS[refusal.cap].code, { headers: { 'Retry-After': String(refusal.retryAfterSeconds) } });
    case 'StandingUnavailable':
      return new ApiError('ACCOUNT_STANDING_UNAVAILABLE', {
        message: `The ${CAPS[refusal.cap].allowance} could not be checked, so the call is refused (fails closed); nothing was charged. Retry shortly.`,
        cause: refusal.cause,
      });
    case 'ConcurrencyLimit':
      return new ApiError('CONCURRENT_ANALYSIS_LIMIT', {
        message: `${String(refusal.running)} analyses of yours are running, the most your tier allows at once; retry in 30 seconds. Nothing was charged.`,
        headers: { 'Retry-After': '30' },
      });
    case 'DailyLimit':
      return new ApiError('LIVE_FETCH_LIMIT_REACHED', {
        message: `${refusal.used} live fetches today, the most your tier allows (${refusal.cap}); the count resets at 00:00 UTC. Nothing was charged.`,
        headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
        extra: { limit: refusal.cap, used: refusal.used, retryAfter: refusal.retryAfterSeconds, resetTime: refusal.resetAt.toISOString() },
      });
    case 'RateLimited':
      return new ApiError('RATE_LIMITED', {
        shape: 'rate-limit',
        message: `Rate limit exceeded: at most ${refusal.limit} screening requests per minute for this key.`,
        headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
        extra: { retryAfter: refusal.retryAfterSeconds, resetTime: refusal.resetAt.toISOString() },
      });
    case 'MonthlyChecksUsed':
      return new ApiError('PARTY_SCREEN_LIMIT_REACHED', {
        message: `The monthly litigation check allowance (${refusal.cap}) is used up or too short for this call (${refusal.remaining} left); nothing was charged.`,
        headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
      });
    case 'DistinctNamesCapReached':
      return new ApiError('DISTINCT_NAMES_LIMIT_REACHED', {
        message: `The ${refusal.window === 'minute' ? 'per-minute' : 'daily'} cap on distinct screened names is reached; names already screened today are not counted again. Nothing was charged.`,
        headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
        extra: { retryAfter: refusal.retryAfterSeconds },
      });
    case 'AllowanceStoreUnavailable':
      return new ApiError('ACCOUNT_STANDING_UNAVAILABLE', {
        message:
          'The screening allowances could not be checked, so the call is refused (fails closed); nothing was charged. Retry shortly.',
      });
    case 'SearchDegraded':
      return new ApiError('PARTY_SCREEN_SEARCH_DEGRADED', { headers: { 'Retry-After': String(SEARCH_RETRY_AFTER_SECONDS) } });
    case 'WorkflowsUnavailable':
      return workflowEngineUnavailable(refusal.work);
    case 'NoReadableSource':
      return new ApiError('PDF_NOT_STORED', {
        message: 'This case has no readable text and no stored document to analyse; nothing was charged.',
        extra: { hint: NO_SOURCE_HINT[refusal.courtLevel] ?? NO_SOURCE_HINT.high },
      });
    case 'RemoteFetchNotAllowed':
      return new ApiError('REMOTE_FETCH_NOT_ALLOWED', {
        message: `The document's host ${refusal.host} is not on the remote-fetch allowlist; nothing was charged.`,
      });
    case 'CaseNotFound':
      return new ApiError('CASE_NOT_FOUND', {
        message:
          refusal.cnr === null
            ? 'No case matches this identifier.'
            : `No case with CNR ${refusal.cnr} is held. Send refresh true to fetch it live from the court portal.`,
      });
    case 'CaseRestricted':
      return new ApiError('CASE_RESTRICTED');
    case 'NotLiveFetchable': {
      const detail = `caseId: ${COURT_WORDS[refusal.courtLevel] ?? 'this case'} cannot be fetched live; live fetches reach the eCourts High Court and District Court registries only`;
      return new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${detail}. Nothing was charged.`, details: [detail] });
    }
    case 'LiveFetchNotConfigured':
      return new ApiError('UPSTREAM_UNAVAILABLE', {
        message:
          'Live fetches are not configured on this service (no court portal is set up); nothing was charged. refresh false answers from the stored record.',
      });
    case 'PageTooLarge':
      return new ApiError('PAGE_LIMIT_EXCEEDED', {
        message: `limit ${refusal.limit} is above the maximum page size of ${refusal.maxPageSize} for your tier.`,
      });
    case 'CursorInvalid':
      return new ApiError('CURSOR_INVALID');
    case 'PageTooDeep': {
      const { offset, limit, depth } = refusal;
      const reach = `Results ${offset + 1} to ${offset + limit} reach past`;
      return new ApiError('PAGINATION_DEPTH_EXCEEDED', {
        message:
          refusal.search === 'keyword'
            ? `${reach} the depth cap of ${depth} for your tier; narrow the search.`
            : `${reach} semantic search's depth cap of ${depth}; narrow the query or the filters.`,
      });
    }
    case 'SearchIndexUnavailable':
      return refusal.search === 'keyword'
        ? new ApiError('UPSTREAM_UNAVAILABLE', {
            message: 'The search index did not respond; nothing was charged. Retry shortly.',
            cause: refusal.cause,
          })
        : // Semantic search answers a failure after the search ran in band: the spec's quirk (that route's STATUS_RULE).
          new ApiError('UPSTREAM_UNAVAILABLE', {
            message: 'Neither the vector nor the keyword index answered; nothing was charged. Retry shortly.',
            cause: refusal.cause,
            inBand: true,
          });
  }
}
