/**
 * The tier entitlement gate of the paid features (AI analysis, adjudication, batch
 * screening): a Free-tier key gets 403 API_TIER_NOT_ALLOWED with an upgradeUrl, before the
 * body is read, any idempotency record is made or anything is charged.
 */
import type { MiddlewareHandler } from 'hono';
import { TIER_FEATURES, type TierFeatures } from '../domain/access/tiers.ts';
import { ApiError } from './api-error.ts';
import type { AppEnv } from './env.ts';
import { principalOf } from './middleware/require-api-key.ts';

export type GatedFeature = Exclude<keyof TierFeatures, 'semanticSearch' | 'liveFetch'>;

export function tierNotAllowed(what: string, upgradeUrl: string): ApiError {
  return new ApiError('API_TIER_NOT_ALLOWED', {
    message: `${what} is not available on the Free tier. Nothing was charged.`,
    extra: { upgradeUrl },
  });
}

/** Middleware refusing tiers without `feature`. */
export function requireFeature(feature: GatedFeature, what: string, upgradeUrl: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!TIER_FEATURES[principalOf(c).tier][feature]) throw tierNotAllowed(what, upgradeUrl);
    await next();
  };
}
