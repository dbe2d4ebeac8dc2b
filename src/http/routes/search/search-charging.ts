/**
 * Charging of the two search routes: like any fixed-price call (charging.ts), except that
 * a page answered with the restricted-record check degraded earns nothing. Its listings
 * are masked (no titles, no party names), so the caller will ask again for the page it
 * paid for; charging both answers would bill twice for one usable page, and the cause is
 * ours. The degraded page is marked Cache-Control: no-store, so an idempotent retry with
 * the same key runs again instead of replaying the masked page.
 */
import type { Context } from 'hono';
import type { FixedPriceEndpoint } from '../../../domain/credits/prices.ts';
import { charged, type ChargingDeps } from '../../charging.ts';
import type { AppEnv } from '../../env.ts';

/** meta.restrictedCheckDegraded, as both search routes document it. */
export const RESTRICTED_CHECK_DEGRADED =
  'Every page of hits is checked against the case store for restrictions made since the index was last fed; a case restricted since is left out and counted in someRecordsWithheld. ' +
  'true: that check failed or timed out, and the page was answered anyway with every result masked: title null, parties empty (names and advocates); ' +
  'identifiers, court, bench, judges, dates and citations stay, and GET /cases/:id checks restriction itself. ' +
  'A degraded page is not charged (X-Credits-Charged: 0) and is not stored for Idempotency-Key replay (Cache-Control: no-store): retry it for the unmasked page.';

/** `charged` (same arguments), except that a degraded page earns nothing and is not stored for replay. */
export async function chargedSearch<T extends { readonly restrictedCheckDegraded: boolean }>(
  c: Context<AppEnv>,
  deps: ChargingDeps,
  endpoint: FixedPriceEndpoint,
  work: () => Promise<T>,
  earned: (result: T) => FixedPriceEndpoint = () => endpoint,
): Promise<T> {
  const result = await charged(c, deps, endpoint, work, (r) => (r.restrictedCheckDegraded ? null : earned(r)));
  if (result.restrictedCheckDegraded) c.header('Cache-Control', 'no-store');
  return result;
}
