/**
 * The credit ledger of one billing account (an organisation, or a user without one).
 * Credits are integers (10 credits = 1 rupee). Nothing is edited: a grant, a reservation,
 * a charge, a release, a reversal and an expiry are each an event, and the balance is
 * their fold. `available` is what a call may spend now; `reserved` is held by open
 * reservations until they are settled (charged in whole or part, the rest released).
 *
 * Expiry (see lots.ts): a grant may carry `expiresAt`, and every grant is a lot. Spending
 * and holding draw from lots soonest-expiry first; the events record the lots drawn. Every
 * command first expires the lots whose time has passed at its `at` (a `CreditsExpired` per
 * lot, its whole unspent remainder), so expired credits are never spendable; held credits
 * are not expired while their reservation is open (the call started in time): a settlement
 * charges the soonest-expiring part of the hold, and the released rest goes back to its
 * lots, where a lot already expired expires it at once, in the same decision. A reversal
 * (a refund) does the same: each drawn part goes back to its own lot with that lot's expiry,
 * so a refund can never turn expiring credits into permanent ones; what lands in a lot
 * already past its expiry expires in the same decision. A grant must expire after its `at`.
 * Events recorded before lots existed carry no `lots`: evolve then draws by the same rule,
 * so an old stream folds to the lots it would have had.
 */
import { accept, assertNever, fold, refuse, type Decision } from '../decider.ts';
import { hasExpired, liveLots, moveLots, take, totalOf, without, type LotDraw, type Lots } from './lots.ts';

export type { Lot, LotDraw, Lots } from './lots.ts';

export const GRANT_SOURCES = ['purchase', 'grant', 'correction'] as const;
export type GrantSource = (typeof GRANT_SOURCES)[number];

/** The lots an event drew from or returned to; absent on events recorded before lots. */
interface Drawn {
  lots?: readonly LotDraw[];
}

export type LedgerEvent =
  | {
      type: 'CreditsGranted';
      data: {
        accountId: string;
        grantId: string;
        amount: number;
        source: GrantSource;
        expiresAt: string | null;
        note: string | null;
        /** The external payment (invoice, payment id) this grant is for; absent when none was given. */
        paymentReference?: string;
        at: string;
      };
    }
  | {
      type: 'CreditsReserved';
      /** `holdUntil`: past it, a hold still open is released by the sweep (absent on holds recorded before holds lapsed). */
      data: { accountId: string; reservationId: string; amount: number; requestRef: string; holdUntil?: string; at: string } & Drawn;
    }
  | {
      type: 'CreditsCharged';
      /** `reservationId` null: a fixed-price charge taken straight from the available balance. */
      data: { accountId: string; chargeId: string; reservationId: string | null; amount: number; requestRef: string; at: string } & Drawn;
    }
  | { type: 'CreditsReleased'; data: { accountId: string; reservationId: string; amount: number; at: string } & Drawn }
  | { type: 'ChargeReversed'; data: { accountId: string; chargeId: string; amount: number; reason: string; at: string } & Drawn }
  /** The unspent rest of a lot, gone at its expiry; `at` is when the ledger recorded it. */
  | { type: 'CreditsExpired'; data: { accountId: string; grantId: string; amount: number; expiresAt: string; at: string } };

export type LedgerCommand =
  | {
      type: 'GrantCredits';
      accountId: string;
      grantId: string;
      amount: number;
      source: GrantSource;
      expiresAt: string | null;
      note: string | null;
      paymentReference?: string;
      at: string;
    }
  | { type: 'ReserveCredits'; accountId: string; reservationId: string; amount: number; requestRef: string; holdUntil?: string; at: string }
  /** Captures `amount` of the reservation (the charge id is the reservation id) and releases the rest. */
  | { type: 'SettleReservation'; accountId: string; reservationId: string; amount: number; at: string }
  | { type: 'ReleaseReservation'; accountId: string; reservationId: string; at: string }
  | { type: 'ChargeCredits'; accountId: string; chargeId: string; amount: number; requestRef: string; at: string }
  | { type: 'ReverseCharge'; accountId: string; chargeId: string; reason: string; at: string }
  /** Only the expiry every command starts with: keeps an idle account's balance current. */
  | { type: 'ExpireCredits'; accountId: string; at: string };

export interface Reservation {
  readonly amount: number;
  readonly requestRef: string;
  readonly status: 'open' | 'settled';
  /** The lots the still-held credits came from (empty once settled). */
  readonly held: readonly LotDraw[];
}

export interface Charge {
  readonly amount: number;
  readonly reversed: boolean;
  /** The lots the charge was paid from: where a reversal returns it. */
  readonly lots: readonly LotDraw[];
}

/**
 * The fold of a ledger stream. The maps may also be a slice of it: the service loads the
 * lots holding credits, the lot a grant names and the reservation or charge a command
 * names, which is all `decideLedger` looks at. `available` is the sum of the lots.
 */
export interface LedgerState {
  readonly available: number;
  readonly reserved: number;
  readonly lots: Lots;
  readonly reservations: Readonly<Record<string, Reservation>>;
  readonly charges: Readonly<Record<string, Charge>>;
}

export type LedgerError =
  | { tag: 'InvalidAmount'; amount: number }
  /** An expiry that is not a time after the grant. */
  | { tag: 'InvalidExpiry'; expiresAt: string; at: string }
  | { tag: 'InsufficientCredits'; required: number; balance: number }
  | { tag: 'ReservationNotFound'; reservationId: string }
  | { tag: 'ChargeExceedsReservation'; reservationId: string; reserved: number; amount: number }
  | { tag: 'ChargeNotFound'; chargeId: string }
  /** A reservation id already used by a fixed-price charge or the other way round, or a grant id used twice. */
  | { tag: 'IdInUse'; id: string };

export const initialLedger: LedgerState = { available: 0, reserved: 0, lots: {}, reservations: {}, charges: {} };

const positive = (n: number): boolean => Number.isSafeInteger(n) && n > 0;
const nonNegative = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/** How one event moves the two balances; `evolveLedger` and the finance export share it. */
export function balanceEffect(event: LedgerEvent): { available: number; reserved: number } {
  switch (event.type) {
    case 'CreditsGranted':
      return { available: event.data.amount, reserved: 0 };
    case 'CreditsReserved':
      return { available: -event.data.amount, reserved: event.data.amount };
    case 'CreditsCharged':
      return event.data.reservationId === null
        ? { available: -event.data.amount, reserved: 0 }
        : { available: 0, reserved: -event.data.amount };
    case 'CreditsReleased':
      return { available: event.data.amount, reserved: -event.data.amount };
    case 'ChargeReversed':
      return { available: event.data.amount, reserved: 0 };
    case 'CreditsExpired':
      return { available: -event.data.amount, reserved: 0 };
    default:
      return assertNever(event);
  }
}

/** The `CreditsExpired` events due at `at`: the whole remainder of each lot past its expiry. */
export function dueExpiries(state: LedgerState, accountId: string, at: string): LedgerEvent[] {
  return liveLots(state.lots).flatMap((lot): LedgerEvent[] =>
    lot.expiresAt !== null && hasExpired(lot.expiresAt, at)
      ? [{ type: 'CreditsExpired', data: { accountId, grantId: lot.grantId, amount: lot.amount, expiresAt: lot.expiresAt, at } }]
      : [],
  );
}

/** Draws `amount` from the live lots. The balance is their sum, so a shortfall is a corrupt state. */
function draw(state: LedgerState, amount: number): LotDraw[] {
  const { taken } = take(liveLots(state.lots), amount);
  if (totalOf(taken) !== amount) throw new Error(`ledger lots hold less than the available balance ${String(state.available)}`);
  return taken;
}

function settle(
  state: LedgerState,
  command: { accountId: string; reservationId: string; amount: number; at: string },
): Decision<LedgerEvent, LedgerError> {
  const reservation = state.reservations[command.reservationId];
  if (!reservation) return refuse({ tag: 'ReservationNotFound', reservationId: command.reservationId });
  // A retried settlement (or a release after a settlement) finds it settled: nothing more to record.
  if (reservation.status === 'settled') return accept();
  if (!nonNegative(command.amount)) return refuse({ tag: 'InvalidAmount', amount: command.amount });
  if (command.amount > reservation.amount) {
    return refuse({
      tag: 'ChargeExceedsReservation',
      reservationId: command.reservationId,
      reserved: reservation.amount,
      amount: command.amount,
    });
  }
  const { accountId, reservationId, at } = command;
  // The soonest-expiring part of the hold is the part charged; the longest-lived goes back.
  const { taken, rest } = take(reservation.held, command.amount);
  const events: LedgerEvent[] = [];
  if (command.amount > 0) {
    const { requestRef } = reservation;
    events.push({
      type: 'CreditsCharged',
      data: { accountId, chargeId: reservationId, reservationId, amount: command.amount, requestRef, at, lots: taken },
    });
  }
  const released = reservation.amount - command.amount;
  if (released > 0) events.push({ type: 'CreditsReleased', data: { accountId, reservationId, amount: released, at, lots: rest } });
  return accept(...events);
}

function decideCommand(command: LedgerCommand, state: LedgerState): Decision<LedgerEvent, LedgerError> {
  switch (command.type) {
    case 'GrantCredits': {
      if (!positive(command.amount)) return refuse({ tag: 'InvalidAmount', amount: command.amount });
      const { expiresAt, at } = command;
      if (expiresAt !== null && (Number.isNaN(Date.parse(expiresAt)) || hasExpired(expiresAt, at)))
        return refuse({ tag: 'InvalidExpiry', expiresAt, at });
      if (state.lots[command.grantId]) return refuse({ tag: 'IdInUse', id: command.grantId });
      const { type: _type, ...data } = command;
      return accept({ type: 'CreditsGranted', data });
    }
    case 'ReserveCredits': {
      if (!positive(command.amount)) return refuse({ tag: 'InvalidAmount', amount: command.amount });
      // The same reservation id twice is a retry of one pre-flight, not a second hold.
      if (state.reservations[command.reservationId]) return accept();
      // A settlement's charge takes the reservation's id, so the two id spaces must not meet.
      if (state.charges[command.reservationId]) return refuse({ tag: 'IdInUse', id: command.reservationId });
      if (state.available < command.amount)
        return refuse({ tag: 'InsufficientCredits', required: command.amount, balance: state.available });
      const { type: _type, ...data } = command;
      return accept({ type: 'CreditsReserved', data: { ...data, lots: draw(state, command.amount) } });
    }
    case 'SettleReservation':
      return settle(state, command);
    case 'ReleaseReservation':
      return settle(state, { ...command, amount: 0 });
    case 'ChargeCredits': {
      if (!nonNegative(command.amount)) return refuse({ tag: 'InvalidAmount', amount: command.amount });
      if (command.amount === 0) return accept();
      if (state.reservations[command.chargeId]) return refuse({ tag: 'IdInUse', id: command.chargeId });
      // A charge id already recorded is the same call again: never charge it twice.
      if (state.charges[command.chargeId]) return accept();
      if (state.available < command.amount)
        return refuse({ tag: 'InsufficientCredits', required: command.amount, balance: state.available });
      const { type: _type, ...rest } = command;
      return accept({ type: 'CreditsCharged', data: { ...rest, reservationId: null, lots: draw(state, command.amount) } });
    }
    case 'ReverseCharge': {
      const charge = state.charges[command.chargeId];
      if (!charge) return refuse({ tag: 'ChargeNotFound', chargeId: command.chargeId });
      if (charge.reversed) return accept();
      const { type: _type, ...rest } = command;
      return accept({ type: 'ChargeReversed', data: { ...rest, amount: charge.amount, lots: charge.lots } });
    }
    case 'ExpireCredits':
      return accept();
    default:
      return assertNever(command);
  }
}

/**
 * Expires what is due at the command's `at`, decides the command on what is left, then
 * expires at once any credits the command returned to a lot already past its expiry.
 */
export function decideLedger(command: LedgerCommand, state: LedgerState): Decision<LedgerEvent, LedgerError> {
  const expired = dueExpiries(state, command.accountId, command.at);
  const current = fold(evolveLedger, state, expired);
  const decision = decideCommand(command, current);
  if (!decision.ok) return decision;
  const lapsed = dueExpiries(fold(evolveLedger, current, decision.events), command.accountId, command.at);
  return accept(...expired, ...decision.events, ...lapsed);
}

export function evolveLedger(state: LedgerState, event: LedgerEvent): LedgerState {
  const effect = balanceEffect(event);
  const balances = { available: state.available + effect.available, reserved: state.reserved + effect.reserved };
  switch (event.type) {
    case 'CreditsGranted': {
      const { grantId, amount, expiresAt } = event.data;
      return { ...state, ...balances, lots: moveLots(state.lots, [{ grantId, amount, expiresAt }], 1) };
    }
    case 'CreditsReserved': {
      const { reservationId, amount, requestRef } = event.data;
      const held = event.data.lots ?? take(liveLots(state.lots), amount).taken;
      return {
        ...state,
        ...balances,
        lots: moveLots(state.lots, held, -1),
        reservations: { ...state.reservations, [reservationId]: { amount, requestRef, status: 'open', held } },
      };
    }
    case 'CreditsCharged': {
      const { reservationId, chargeId, amount } = event.data;
      if (reservationId === null) {
        const lots = event.data.lots ?? take(liveLots(state.lots), amount).taken;
        return {
          ...state,
          ...balances,
          lots: moveLots(state.lots, lots, -1),
          charges: { ...state.charges, [chargeId]: { amount, reversed: false, lots } },
        };
      }
      const reservation = state.reservations[reservationId];
      const lots = event.data.lots ?? take(reservation?.held ?? [], amount).taken;
      return {
        ...state,
        ...balances,
        reservations: reservation
          ? { ...state.reservations, [reservationId]: { ...reservation, status: 'settled', held: without(reservation.held, lots) } }
          : state.reservations,
        charges: { ...state.charges, [chargeId]: { amount, reversed: false, lots } },
      };
    }
    case 'CreditsReleased': {
      const { reservationId } = event.data;
      const reservation = state.reservations[reservationId];
      const lots = event.data.lots ?? reservation?.held ?? [];
      return {
        ...state,
        ...balances,
        lots: moveLots(state.lots, lots, 1),
        reservations: reservation
          ? { ...state.reservations, [reservationId]: { ...reservation, status: 'settled', held: without(reservation.held, lots) } }
          : state.reservations,
      };
    }
    case 'ChargeReversed': {
      const { chargeId } = event.data;
      const charge = state.charges[chargeId];
      const lots = event.data.lots ?? charge?.lots ?? [];
      return {
        ...state,
        ...balances,
        lots: moveLots(state.lots, lots, 1),
        charges: charge ? { ...state.charges, [chargeId]: { ...charge, reversed: true } } : state.charges,
      };
    }
    case 'CreditsExpired': {
      const { grantId, amount, expiresAt } = event.data;
      return { ...state, ...balances, lots: moveLots(state.lots, [{ grantId, amount, expiresAt }], -1) };
    }
    default:
      return assertNever(event);
  }
}
