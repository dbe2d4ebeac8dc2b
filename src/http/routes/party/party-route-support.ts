/** What the litigation check routes are given: the use case, the clock and the links refusals carry. */
import type { LitigationChecks } from '../../../application/screening/litigation-checks.ts';
import type { Clock } from '../../../ports/clock.ts';

export interface PartyRouteDeps {
  readonly checks: LitigationChecks;
  readonly clock: Clock;
  /** Carried in every 402 body. */
  readonly topUpUrl: string;
  /** Carried in the Free tier's API_TIER_NOT_ALLOWED body. */
  readonly upgradeUrl: string;
}
