/**
 * The credit ledger of one billing account (an organisation, or a user without one).
 * Credits are integers (10 credits = 1 rupee). Nothing is edited: a grant, a reservation,
 * a charge, a release and a reversal are each an event, and the balance is their fold.
 * `available` is what a call may spend now; `reserved` is held by open reservations until
 * they are settled (charged in whole or part, the rest released).
 *
 * Expiry: a grant may carry `expiresAt`. It is recorded metadata only (in the events and
 * the finance export); it does not reduce the balance. Enforcing it needs lot accounting
 * (which grant a charge drew on), which the ledger does not do yet.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';

export const GRANT_SOURCES = ['purchase', 'grant', 'correction'] as const;
export type GrantSource = (typeof GRANT_SOURCES)[number];

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
        at: string;
      };
    }
  | { type: 'CreditsReserved'; data: { accountId: string; reservationId: string; amount: number; requestRef: string; at: string } }
  | {
      type: 'CreditsCharged';
      /** `reservationId` null: a fixed-price charge taken straight from the available balance. */
      data: { accountId: string; chargeId: string; reservationId: string | null; amount: number; requestRef: string; at: string };
    }
  | { type: 'CreditsReleased'; data: { accountId: string; reservationId: string; amount: number; at: string } }
  | { type: 'ChargeReversed'; data: { accountId: string; chargeId: string; amount: number; reason: string; at: string } };

export type LedgerCommand =
  | {
      type: 'GrantCredits';
      accountId: string;
      grantId: string;
      amount: number;
      source: GrantSource;
      expiresAt: string | null;
      note: string | null;
      at: string;
    }
  | { type: 'ReserveCredits'; accountId: string; reservationId: string; amount: number; requestRef: string; at: string }
  /** Captures `amount` of the reservation (the charge id is the reservation id) and releases the rest. */
  | { type: 'SettleReservation'; accountId: string; reservationId: string; amount: number; at: string }
  | { type: 'ReleaseReservation'; accountId: string; reservationId: string; at: string }
  | { type: 'ChargeCredits'; accountId: string; chargeId: string; amount: number; requestRef: string; at: string }
  | { type: 'ReverseCharge'; accountId: string; chargeId: string; reason: string; at: string };

export interface Reservation {
  readonly amount: number;
  readonly requestRef: string;
  readonly status: 'open' | 'settled';
}

export interface Charge {
  readonly amount: number;
  readonly reversed: boolean;
}

/**
 * The fold of a ledger stream. The maps may also be a slice of it: the service loads only
 * the reservation or charge a command names, which is all `decideLedger` looks at.
 */
export interface LedgerState {
  readonly available: number;
  readonly reserved: number;
  readonly reservations: Readonly<Record<string, Reservation>>;
  readonly charges: Readonly<Record<string, Charge>>;
}

export type LedgerError =
  | { tag: 'InvalidAmount'; amount: number }
  | { tag: 'InsufficientCredits'; required: number; balance: number }
  | { tag: 'ReservationNotFound'; reservationId: string }
  | { tag: 'ChargeExceedsReservation'; reservationId: string; reserved: number; amount: number }
  | { tag: 'ChargeNotFound'; chargeId: string }
  /** A reservation id already used by a fixed-price charge, or the other way round. */
  | { tag: 'IdInUse'; id: string };

export const initialLedger: LedgerState = { available: 0, reserved: 0, reservations: {}, charges: {} };

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
    default:
      return assertNever(event);
  }
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
  const rest = reservation.amount - command.amount;
  const events: LedgerEvent[] = [];
  if (command.amount > 0) {
    events.push({
      type: 'CreditsCharged',
      data: { accountId, chargeId: reservationId, reservationId, amount: command.amount, requestRef: reservation.requestRef, at },
    });
  }
  if (rest > 0) events.push({ type: 'CreditsReleased', data: { accountId, reservationId, amount: rest, at } });
  return accept(...events);
}

export function decideLedger(command: LedgerCommand, state: LedgerState): Decision<LedgerEvent, LedgerError> {
  switch (command.type) {
    case 'GrantCredits': {
      if (!positive(command.amount)) return refuse({ tag: 'InvalidAmount', amount: command.amount });
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
      return accept({ type: 'CreditsReserved', data });
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
      return accept({ type: 'CreditsCharged', data: { ...rest, reservationId: null } });
    }
    case 'ReverseCharge': {
      const charge = state.charges[command.chargeId];
      if (!charge) return refuse({ tag: 'ChargeNotFound', chargeId: command.chargeId });
      if (charge.reversed) return accept();
      const { type: _type, ...rest } = command;
      return accept({ type: 'ChargeReversed', data: { ...rest, amount: charge.amount } });
    }
    default:
      return assertNever(command);
  }
}

export function evolveLedger(state: LedgerState, event: LedgerEvent): LedgerState {
  const effect = balanceEffect(event);
  const balances = { available: state.available + effect.available, reserved: state.reserved + effect.reserved };
  switch (event.type) {
    case 'CreditsGranted':
      return { ...state, ...balances };
    case 'CreditsReserved':
      return {
        ...state,
        ...balances,
        reservations: {
          ...state.reservations,
          [event.data.reservationId]: { amount: event.data.amount, requestRef: event.data.requestRef, status: 'open' },
        },
      };
    case 'CreditsCharged': {
      const { reservationId, chargeId, amount } = event.data;
      const reservation = reservationId === null ? undefined : state.reservations[reservationId];
      return {
        ...state,
        ...balances,
        reservations:
          reservationId === null || !reservation
            ? state.reservations
            : { ...state.reservations, [reservationId]: { ...reservation, status: 'settled' } },
        charges: { ...state.charges, [chargeId]: { amount, reversed: false } },
      };
    }
    case 'CreditsReleased': {
      const reservation = state.reservations[event.data.reservationId];
      return {
        ...state,
        ...balances,
        reservations: reservation
          ? { ...state.reservations, [event.data.reservationId]: { ...reservation, status: 'settled' } }
          : state.reservations,
      };
    }
    case 'ChargeReversed': {
      const charge = state.charges[event.data.chargeId];
      return {
        ...state,
        ...balances,
        charges: charge ? { ...state.charges, [event.data.chargeId]: { ...charge, reversed: true } } : state.charges,
      };
    }
    default:
      return assertNever(event);
  }
}
