/**
 * The HTTP side of admission: the one table from the application's refusal tags to the
 * spec's errors (status, code and body shape), the one place a priced call's credit
 * headers and audited charge are set, and the entitlement gate of routes the spec refuses
 * before their body is read.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Admission, Admitted, AdmissionResult } from '../application/admission/admission.ts';
import { entitlement, type Cap, type Feature, type Refusal } from '../application/admission/decision.ts';
import { ApiError } from './api-error.ts';
import type { AppEnv } from './env.ts';
import type { ErrorCode } from './error-codes.ts';
import { principalOf } from './middleware/require-api-key.ts';

/** Where a refused caller goes next: carried in the 402 and 403 bodies. */
export interface RefusalLinks {
  readonly topUpUrl: string;
  readonly upgradeUrl: string;
}

/** What a fixed-price route needs to run its call and answer a refusal. */
export interface PricedRouteDeps {
  readonly admission: Admission;
  readonly links: RefusalLinks;
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

/** The error a refusal answers with; nothing was charged for any of them. */
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
  }
}

/** Records what a call charged: X-Credits-Charged, X-Credits-Remaining when known, and the audit row's figure. */
export function recordCharge(c: Context<AppEnv>, charged: number, remaining?: number): void {
  c.set('creditsDeducted', charged);
  c.header('X-Credits-Charged', String(charged));
  if (remaining !== undefined) c.header('X-Credits-Remaining', String(remaining));
}

/** An admitted call, its charge recorded; a refusal thrown as its error. */
export function admitted<T>(c: Context<AppEnv>, result: AdmissionResult<T>, links: RefusalLinks): Admitted<T> {
  if (!result.ok) throw refusalError(result.refusal, links);
  recordCharge(c, result.charged, result.remaining);
  return result;
}

/** Refuses a tier without `feature` before the body is read, any idempotency record is made or anything is charged. */
export function requireEntitlement(feature: Feature, links: RefusalLinks): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const denied = entitlement(principalOf(c).tier, feature);
    if (denied) throw refusalError(denied, links);
    await next();
  };
}
