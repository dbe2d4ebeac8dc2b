/**
 * The HTTP side of admission: the one place a priced call's credit headers and audited
 * charge are set, a fixed-price call's answer or refusal, and the entitlement gate of
 * routes the spec refuses before their body is read. Refusals render through refusals.ts.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Admission, Admitted, AdmissionResult } from '../application/admission/admission.ts';
import { entitlement, type Feature } from '../application/admission/decision.ts';
import type { AppEnv } from './env.ts';
import { principalOf } from './middleware/require-api-key.ts';
import { refusalError, type RefusalLinks } from './refusals.ts';

export { refusalError, type RefusalLinks } from './refusals.ts';

/** What a fixed-price route needs to run its call and answer a refusal. */
export interface PricedRouteDeps {
  readonly admission: Admission;
  readonly links: RefusalLinks;
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
