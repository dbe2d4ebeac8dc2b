/**
 * The two-phase half of admission, for calls whose price depends on their outcome
 * (analyses, litigation checks and batches, live fetches): `admit` checks entitlement and
 * holds the worst case the domain gives for the request, handing back a ticket; `settle`
 * charges the domain's final price for the outcome out of the hold and releases the rest;
 * `release` gives the whole hold back. Each may run inside the caller's transaction, so the
 * run or job a call pays for commits with its hold or its charge, or neither does.
 *
 * It needs only the ledger, so the worker apart (which settles what the API admitted)
 * builds it too; a ticket is plain data that a run or a job keeps in its row.
 */
import type { Trx } from '../../db/database.ts';
import type { Tier } from '../../domain/access/tiers.ts';
import { finalPrice, worstCase, type PricedOutcome, type PricedRequest } from '../../domain/credits/prices.ts';
import { callReservationId, type CreditsService } from '../credits/credits-service.ts';
import { creditRefusal, entitlement, type Feature, type InsufficientCredits, type TierNotAllowed } from './decision.ts';

/** An outcome-priced call to admit: who pays, for what, and how long its hold may stay open. */
export interface PricedCall {
  /** The billing account (`billingAccountOf`). */
  readonly account: string;
  /** The server's id of the call: the hold's request reference, joined to its audit row. */
  readonly callId: string;
  readonly request: PricedRequest;
  /** Past the longest the caller can still settle: a lapsed hold is released by the expiry sweeper. */
  readonly holdForMs: number;
  /** A tier feature the call needs, with the payer's tier. */
  readonly entitled?: { readonly tier: Tier; readonly feature: Feature };
}

/** An admitted outcome-priced call: its hold, settled or released once. */
export interface Ticket {
  readonly account: string;
  readonly reservationId: string;
  readonly request: PricedRequest;
}

export type TicketResult =
  | { readonly ok: true; readonly ticket: Ticket; readonly balance: number }
  | { readonly ok: false; readonly refusal: TierNotAllowed | InsufficientCredits };

/** What a settled ticket charged and the spendable balance after it. */
export interface Settled {
  readonly charged: number;
  readonly balance: number;
}

export class Tickets {
  constructor(private readonly deps: { readonly credits: Pick<CreditsService, 'reserve' | 'settle' | 'release'> }) {}

  /** Entitlement, then the request's worst case held; nothing is held when refused. */
  async admit(call: PricedCall, trx?: Trx): Promise<TicketResult> {
    const denied = call.entitled ? entitlement(call.entitled.tier, call.entitled.feature) : null;
    if (denied) return { ok: false, refusal: denied };
    const held = await this.deps.credits.reserve(
      call.account,
      worstCase(call.request),
      call.callId,
      call.holdForMs,
      trx,
      callReservationId(call.callId),
    );
    if (!held.ok) return { ok: false, refusal: creditRefusal(held.error, 'a reservation') };
    const ticket = { account: call.account, reservationId: held.value.reservationId, request: call.request };
    return { ok: true, ticket, balance: held.value.balance };
  }

  /** Charges the outcome's final price out of the ticket's hold and releases the rest; a second settlement records nothing. */
  async settle(ticket: Ticket, outcome: PricedOutcome, trx?: Trx): Promise<Settled> {
    if (outcome.endpoint !== ticket.request.endpoint)
      throw new Error(`a ${ticket.request.endpoint} ticket cannot settle a ${outcome.endpoint} outcome`);
    const settled = await this.deps.credits.settle(ticket.account, ticket.reservationId, finalPrice(outcome), trx);
    if (!settled.ok) throw new Error(`settling ${ticket.reservationId}: ${settled.error.tag}`);
    return { charged: settled.value.charged, balance: settled.value.balance };
  }

  /** Gives the whole hold back: the call ended costing nothing. */
  async release(ticket: Ticket, trx?: Trx): Promise<void> {
    const released = await this.deps.credits.release(ticket.account, ticket.reservationId, trx);
    if (!released.ok) throw new Error(`releasing ${ticket.reservationId}: ${released.error.tag}`);
  }
}
