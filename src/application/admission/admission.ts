/**
 * The one unit every fixed-price call goes through: entitlement, the price and a balance
 * check, the call's cap, the work, then the charge at the price the outcome earned. It is
 * the application's side of the business transaction the routes used to split with the
 * HTTP layer, so a new priced route cannot copy the rules wrongly.
 *
 * A balance that cannot cover the price is refused before any work; a cap is admitted
 * after the balance check and handed back whenever the call ends uncharged (refused, thrown
 * or earning nothing), so only answered calls count against it. The charge is keyed by the
 * server's own call id, in one ledger transaction; a charge lost to a concurrent call on
 * the same account ends refused with nothing charged, whatever the work produced.
 *
 * Outcome-priced calls (analysis runs, litigation checks, live fetches) go through its
 * other half, `tickets.ts`: admitted in two phases, over the same refusals (`decision.ts`).
 */
import type { Tier, TierLimits } from '../../domain/access/tiers.ts';
import { fixedPrice, type FixedPriceEndpoint } from '../../domain/credits/prices.ts';
import type { ReadQuotas } from '../cases/read-quotas.ts';
import { billingAccountOf, callChargeId, type CreditsService } from '../credits/credits-service.ts';
import { affordability, capRefusal, creditRefusal, earnedCharge, entitlement, type Feature, type Refusal } from './decision.ts';

/** Who pays: an authenticated principal, or anything carrying the same facts. */
export interface Payer {
  readonly userId: string;
  readonly organizationId: string | null;
  readonly tier: Tier;
  readonly limits: TierLimits;
}

/** The cap a call counts against, with what the cap counts (a case read today; each PDF link). */
export type CapRequest = { readonly cap: 'distinctCasesPerDay'; readonly caseId: string } | { readonly cap: 'pdfLinksPerMonth' };

export interface FixedPriceCall<T> {
  readonly payer: Payer;
  /** The server's id of this call: the charge is keyed by it. */
  readonly callId: string;
  /** The price the balance is checked against, and charged unless `earned` says less. */
  readonly endpoint: FixedPriceEndpoint;
  /** A tier feature the call needs. */
  readonly feature?: Feature;
  readonly cap?: CapRequest;
  readonly work: () => Promise<T>;
  /** What the outcome earned: a cheaper endpoint's price, or null for nothing. Default: `endpoint`. */
  readonly earned?: (value: T) => FixedPriceEndpoint | null;
}

/** `remaining` is the balance after the charge; absent when nothing was charged. */
export type Admitted<T> = { readonly ok: true; readonly value: T; readonly charged: number; readonly remaining?: number };
export type Refused = { readonly ok: false; readonly refusal: Refusal };
export type AdmissionResult<T> = Admitted<T> | Refused;

export interface AdmissionDeps {
  /** `spendable` answers a hot account's pre-check from its last commit, with no round trip. */
  readonly credits: Pick<CreditsService, 'spendable' | 'chargeNow'>;
  readonly quotas: Pick<ReadQuotas, 'admitCaseDetail' | 'admitPdfLink'>;
}

/** A cap admitted for the call, and how to hand its slot back. */
type Slot = { readonly ok: true; readonly undo: () => Promise<void> };

const NOTHING_TO_UNDO = async () => undefined;

export class Admission {
  constructor(private readonly deps: AdmissionDeps) {}

  async run<T>(call: FixedPriceCall<T>): Promise<AdmissionResult<T>> {
    const denied = entitlement(call.payer.tier, call.feature);
    if (denied) return { ok: false, refusal: denied };
    const account = billingAccountOf(call.payer);
    const price = fixedPrice(call.endpoint);
    const short = affordability(price, await this.deps.credits.spendable(account, price));
    if (short) return { ok: false, refusal: short };
    const slot = await this.#admitCap(account, call.payer, call.callId, call.cap);
    if (!slot.ok) return slot;
    let result: AdmissionResult<T>;
    try {
      result = await this.#workAndCharge(account, call);
    } catch (error) {
      await slot.undo();
      throw error;
    }
    if (!result.ok || result.charged === 0) await slot.undo();
    return result;
  }

  async #admitCap(account: string, payer: Payer, callId: string, request: CapRequest | undefined): Promise<Slot | Refused> {
    if (request === undefined) return { ok: true, undo: NOTHING_TO_UNDO };
    const decision =
      request.cap === 'distinctCasesPerDay'
        ? await this.deps.quotas.admitCaseDetail(account, request.caseId, payer.limits.distinctCaseDetailsPerDay)
        : await this.deps.quotas.admitPdfLink(account, callId, payer.limits.pdfLinksPerMonth);
    return decision.admitted ? { ok: true, undo: decision.undo } : { ok: false, refusal: capRefusal(request.cap, decision) };
  }

  async #workAndCharge<T>(account: string, call: FixedPriceCall<T>): Promise<AdmissionResult<T>> {
    const value = await call.work();
    const amount = earnedCharge(call.endpoint, call.earned ? call.earned(value) : call.endpoint);
    if (amount === null) return { ok: true, value, charged: 0 };
    const charge = await this.deps.credits.chargeNow(account, amount, call.callId, undefined, callChargeId(call.callId));
    if (charge.ok) return { ok: true, value, charged: amount, remaining: charge.value.balance };
    return { ok: false, refusal: creditRefusal(charge.error, 'a charge') };
  }
}
