/**
 * Charging a fixed-price call, the way every priced read route does it: a balance that
 * cannot cover the price is refused with 402 before any work; the work runs; then the
 * price is charged in one ledger transaction keyed by the request id, and only then does
 * the route answer. A call that fails with an error is therefore never charged, a charge
 * lost to a concurrent call on the same account still ends in a 402 with nothing charged,
 * and the audit row of the call carries the credits actually deducted.
 */
import type { Context } from 'hono';
import { billingAccountOf, type CreditsService } from '../application/credits/credits-service.ts';
import { fixedPrice, type FixedPriceEndpoint } from '../domain/credits/prices.ts';
import { ApiError } from './api-error.ts';
import type { AppEnv } from './env.ts';
import { principalOf } from './middleware/require-api-key.ts';

export interface ChargingDeps {
  readonly credits: CreditsService;
  /** Where a caller tops up; carried in every 402 body. */
  readonly topUpUrl: string;
}

/** The spec's 402: what the call needs, what the account holds, the gap and where to top up. */
export function insufficientCredits(required: number, balance: number, topUpUrl: string): ApiError {
  const shortfall = required - balance;
  return new ApiError('INSUFFICIENT_API_CREDITS', {
    message: `This call costs ${required} credits; the balance is ${balance}. Nothing was charged.`,
    extra: { required, balance, shortfall, topUpUrl },
  });
}

/**
 * Runs `work` and charges the endpoint's fixed price if it succeeds; see the module header.
 * `earned` names a cheaper price the outcome earned (e.g. a semantic search answered by the
 * keyword fallback), or null when it earned nothing (a search page answered degraded); the
 * balance is checked against the endpoint's own price first.
 */
export async function charged<T>(
  c: Context<AppEnv>,
  deps: ChargingDeps,
  endpoint: FixedPriceEndpoint,
  work: () => Promise<T>,
  earned?: (result: T) => FixedPriceEndpoint | null,
): Promise<T> {
  const price = fixedPrice(endpoint);
  const account = billingAccountOf(principalOf(c));
  const before = await deps.credits.balance(account);
  if (before.balance < price) throw insufficientCredits(price, before.balance, deps.topUpUrl);
  const result = await work();
  const earnedEndpoint = earned ? earned(result) : endpoint;
  if (earnedEndpoint === null) {
    c.set('creditsDeducted', 0);
    c.header('X-Credits-Charged', '0');
    return result;
  }
  const final = Math.min(price, fixedPrice(earnedEndpoint));
  const charge = await deps.credits.chargeNow(account, final, c.get('requestId'));
  if (!charge.ok) {
    const error = charge.error;
    if (error.tag === 'InsufficientCredits') throw insufficientCredits(error.required, error.balance, deps.topUpUrl);
    throw new Error(`charge refused: ${error.tag}`);
  }
  c.set('creditsDeducted', final);
  c.header('X-Credits-Charged', String(final));
  c.header('X-Credits-Remaining', String(charge.value.balance));
  return result;
}
