/**
 * The month-end close of the credit ledger, decided over ledger events alone (no IO). An
 * account's credits are what it may still spend plus what open calls hold, so the close
 * counts `available + reserved`: a hold or its release moves credits between the two and
 * is no movement. In the month: purchases, grants and corrections add; consumption
 * (charges, by endpoint) and expiries take away; refunds (reversed charges) give back.
 *
 * The proof, per account: the opening balance (the fold of every event before the month)
 * plus the month's movements equals the closing balance (the fold of every event before
 * its end); the stream has every position from 1 with no gap, each event names the
 * account of its stream, and no balance went below zero; and the closing balance plus the
 * events after the month equals the balance row the service keeps (credit_balances), which
 * is maintained event by event as they were appended, so an event edited or deleted since
 * shows there. Any failure is a difference naming the account and, where it can, the event.
 *
 * Months are calendar months in India Standard Time (UTC+05:30, no daylight saving):
 * October 2026 is [2026-09-30T18:30Z, 2026-10-31T18:30Z). Money is integers: 10 credits =
 * Rs 1, so one credit is 10 paise.
 */
import { balanceEffect, type LedgerEvent } from './ledger.ts';

/** India Standard Time's offset from UTC, in minutes. */
const IST_OFFSET_MINUTES = 330;
export const CLOSE_TIMEZONE = 'Asia/Kolkata (IST, UTC+05:30)';
export const PAISE_PER_CREDIT = 10;
/** Consumption whose request has no audit event naming its endpoint. */
export const UNATTRIBUTED = 'unattributed';

export interface MonthWindow {
  readonly month: string;
  /** Inclusive: the first instant of the month in IST. */
  readonly from: Date;
  /** Exclusive: the first instant of the next month in IST. */
  readonly to: Date;
}

/** The IST calendar month `YYYY-MM` as UTC instants; null when it is no month. */
export function monthWindow(month: string): MonthWindow | null {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) return null;
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  const start = (y: number, m: number) => new Date(Date.UTC(y, m, 1) - IST_OFFSET_MINUTES * 60_000);
  return { month, from: start(year, index), to: start(year, index + 1) };
}

/** The IST month an instant falls in, as `YYYY-MM`. */
export function monthOf(at: Date): string {
  return new Date(at.getTime() + IST_OFFSET_MINUTES * 60_000).toISOString().slice(0, 7);
}

export interface RecordedLedgerEvent {
  readonly event: LedgerEvent;
  readonly streamPosition: number;
  readonly recordedAt: Date;
}

export interface Balances {
  readonly available: number;
  readonly reserved: number;
  /** available + reserved: the account's credits. */
  readonly total: number;
}

export interface AccountClose {
  readonly accountId: string;
  readonly opening: Balances;
  readonly purchases: number;
  readonly grants: number;
  readonly corrections: number;
  /** Charged credits by endpoint (`METHOD /path`), before refunds. */
  readonly consumption: Readonly<Record<string, number>>;
  readonly consumed: number;
  readonly refunds: number;
  readonly expiries: number;
  readonly closing: Balances;
  /** The month's purchases, grants and corrections with their payment references, for matching against payments. */
  readonly credits: readonly { grantId: string; source: string; amount: number; paymentReference: string | null; at: string }[];
}

export type CloseDifference =
  | { kind: 'movements-do-not-add-up'; accountId: string; opening: number; movements: number; closing: number }
  | { kind: 'stream-gap'; accountId: string; expectedPosition: number; foundPosition: number }
  | { kind: 'event-of-another-account'; accountId: string; streamPosition: number; eventAccountId: string }
  | { kind: 'negative-balance'; accountId: string; streamPosition: number; available: number; reserved: number }
  | {
      kind: 'stored-balance-mismatch';
      accountId: string;
      ledger: { available: number; reserved: number };
      stored: { available: number; reserved: number } | null;
    };

export interface StoredBalance {
  readonly available: number;
  readonly reserved: number;
}

const zero = { available: 0, reserved: 0 };
const balances = (b: { available: number; reserved: number }): Balances => ({ ...b, total: b.available + b.reserved });
const plus = (a: { available: number; reserved: number }, b: { available: number; reserved: number }) => ({
  available: a.available + b.available,
  reserved: a.reserved + b.reserved,
});

/** The net movement of an account's close: what must join the opening to give the closing. */
export function netMovements(close: AccountClose): number {
  return close.purchases + close.grants + close.corrections - close.consumed + close.refunds - close.expiries;
}

/**
 * Closes one account's month over its whole stream in order (`events`), checked against
 * its stored balance row now (`stored`, null when it has none). `endpointOf` names the
 * endpoint a charge's request was for.
 */
export function closeAccount(
  accountId: string,
  events: readonly RecordedLedgerEvent[],
  window: MonthWindow,
  stored: StoredBalance | null,
  endpointOf: (requestRef: string) => string | undefined,
): { close: AccountClose; differences: CloseDifference[] } {
  const differences: CloseDifference[] = [];
  let running = zero;
  let opening = zero;
  let closing: { available: number; reserved: number } | null = null;
  const movement = { purchases: 0, grants: 0, corrections: 0, consumed: 0, refunds: 0, expiries: 0 };
  const consumption: Record<string, number> = {};
  const credits: AccountClose['credits'][number][] = [];
  let expected = 1;
  for (const { event, streamPosition, recordedAt } of events) {
    if (streamPosition !== expected)
      differences.push({ kind: 'stream-gap', accountId, expectedPosition: expected, foundPosition: streamPosition });
    expected = streamPosition + 1;
    if (event.data.accountId !== accountId)
      differences.push({ kind: 'event-of-another-account', accountId, streamPosition, eventAccountId: event.data.accountId });
    if (recordedAt < window.from) opening = plus(opening, balanceEffect(event));
    if (recordedAt >= window.to && closing === null) closing = running;
    if (recordedAt >= window.from && recordedAt < window.to) {
      const { amount } = event.data;
      switch (event.type) {
        case 'CreditsGranted': {
          const key = event.data.source === 'purchase' ? 'purchases' : event.data.source === 'grant' ? 'grants' : 'corrections';
          movement[key] += amount;
          const { grantId, source, paymentReference } = event.data;
          credits.push({ grantId, source, amount, paymentReference: paymentReference ?? null, at: recordedAt.toISOString() });
          break;
        }
        case 'CreditsCharged': {
          movement.consumed += amount;
          const endpoint = endpointOf(event.data.requestRef) ?? UNATTRIBUTED;
          consumption[endpoint] = (consumption[endpoint] ?? 0) + amount;
          break;
        }
        case 'ChargeReversed':
          movement.refunds += amount;
          break;
        case 'CreditsExpired':
          movement.expiries += amount;
          break;
        case 'CreditsReserved':
        case 'CreditsReleased':
          break;
      }
    }
    running = plus(running, balanceEffect(event));
    if (running.available < 0 || running.reserved < 0)
      differences.push({ kind: 'negative-balance', accountId, streamPosition, available: running.available, reserved: running.reserved });
  }
  const close: AccountClose = {
    accountId,
    opening: balances(opening),
    ...movement,
    consumption,
    closing: balances(closing ?? running),
    credits,
  };
  const movements = netMovements(close);
  if (close.opening.total + movements !== close.closing.total)
    differences.push({ kind: 'movements-do-not-add-up', accountId, opening: close.opening.total, movements, closing: close.closing.total });
  const storedNow = stored ?? zero;
  if (stored === null ? events.length > 0 : running.available !== storedNow.available || running.reserved !== storedNow.reserved)
    differences.push({ kind: 'stored-balance-mismatch', accountId, ledger: running, stored });
  return { close, differences };
}

export interface MonthClose {
  readonly month: string;
  readonly timezone: string;
  readonly from: string;
  readonly to: string;
  readonly accounts: readonly AccountClose[];
  readonly total: Omit<AccountClose, 'accountId' | 'credits'>;
  readonly differences: readonly CloseDifference[];
}

/** Sums the accounts' closes into the month's total. */
export function closeTotal(window: MonthWindow, accounts: readonly AccountClose[], differences: readonly CloseDifference[]): MonthClose {
  const consumption: Record<string, number> = {};
  const sum = (pick: (a: AccountClose) => number) => accounts.reduce((n, a) => n + pick(a), 0);
  for (const account of accounts)
    for (const [endpoint, amount] of Object.entries(account.consumption)) consumption[endpoint] = (consumption[endpoint] ?? 0) + amount;
  const sorted = Object.fromEntries(Object.entries(consumption).sort(([a], [b]) => a.localeCompare(b)));
  return {
    month: window.month,
    timezone: CLOSE_TIMEZONE,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    accounts,
    total: {
      opening: balances({ available: sum((a) => a.opening.available), reserved: sum((a) => a.opening.reserved) }),
      purchases: sum((a) => a.purchases),
      grants: sum((a) => a.grants),
      corrections: sum((a) => a.corrections),
      consumption: sorted,
      consumed: sum((a) => a.consumed),
      refunds: sum((a) => a.refunds),
      expiries: sum((a) => a.expiries),
      closing: balances({ available: sum((a) => a.closing.available), reserved: sum((a) => a.closing.reserved) }),
    },
    differences,
  };
}

/** Integer paise as rupees for people: `Rs 1,234.50`, in Indian digit grouping. */
export function rupees(credits: number): string {
  const paise = credits * PAISE_PER_CREDIT;
  const sign = paise < 0 ? '-' : '';
  const whole = Math.trunc(Math.abs(paise) / 100);
  const fraction = String(Math.abs(paise) % 100).padStart(2, '0');
  const digits = String(whole);
  // Indian grouping: the last three digits, then pairs.
  const head = digits.slice(0, -3);
  const pairs: string[] = [];
  for (let end = head.length; end > 0; end -= 2) pairs.unshift(head.slice(Math.max(0, end - 2), end));
  const grouped = head === '' ? digits : `${pairs.join(',')},${digits.slice(-3)}`;
  return `${sign}Rs ${grouped}.${fraction}`;
}
