/**
 * Every ledger event of a time range, with the running balances of its account after it,
 * for reconciliation. Balances run from the account's first event, so the events before
 * the range are folded (not returned) to give each account its opening balance. Events
 * are read in pages by global position, so an export of any size holds one page in memory.
 * A `CreditsExpired` row is the unspent rest of one grant leaving the balance at its
 * expiry; `lots` names the grants each debit or credit drew on (empty on events recorded
 * before lots were tracked).
 */
import type { Trx } from '../../db/database.ts';
import type { EventStore } from '../../ports/event-store.ts';
import { assertNever } from '../../domain/decider.ts';
import { balanceEffect, type LedgerEvent, type LotDraw } from '../../domain/credits/ledger.ts';
import { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

const PAGE = 1_000;

export interface ExportRange {
  /** Inclusive. */
  readonly from: Date;
  /** Exclusive. */
  readonly to: Date;
  readonly accountId?: string;
}

export interface LedgerRow {
  readonly globalPosition: number;
  readonly recordedAt: string;
  readonly accountId: string;
  readonly streamPosition: number;
  readonly type: LedgerEvent['type'];
  readonly amount: number;
  /** Change of the spendable balance this event made (a capture of a reservation: 0). */
  readonly balanceChange: number;
  /** Spendable balance after the event. */
  readonly balance: number;
  /** Credits held by open reservations after the event. */
  readonly reserved: number;
  readonly source: string | null;
  readonly grantId: string | null;
  readonly reservationId: string | null;
  readonly chargeId: string | null;
  readonly requestRef: string | null;
  readonly note: string | null;
  readonly expiresAt: string | null;
  /** The external payment a grant was for. */
  readonly paymentReference: string | null;
  readonly actor: string | null;
  /** The grants drawn on or credited back, as `grantId:amount` joined by `;`. */
  readonly lots: string | null;
}

export const LEDGER_ROW_COLUMNS = [
  'globalPosition',
  'recordedAt',
  'accountId',
  'streamPosition',
  'type',
  'amount',
  'balanceChange',
  'balance',
  'reserved',
  'source',
  'grantId',
  'reservationId',
  'chargeId',
  'requestRef',
  'note',
  'expiresAt',
  'paymentReference',
  'actor',
  'lots',
] as const satisfies readonly (keyof LedgerRow)[];

function details(
  event: LedgerEvent,
): Pick<LedgerRow, 'source' | 'grantId' | 'reservationId' | 'chargeId' | 'requestRef' | 'note' | 'expiresAt' | 'paymentReference'> {
  const none = {
    source: null,
    grantId: null,
    reservationId: null,
    chargeId: null,
    requestRef: null,
    note: null,
    expiresAt: null,
    paymentReference: null,
  };
  switch (event.type) {
    case 'CreditsGranted': {
      const { source, grantId, note, expiresAt, paymentReference } = event.data;
      return { ...none, source, grantId, note, expiresAt, paymentReference: paymentReference ?? null };
    }
    case 'CreditsReserved':
      return { ...none, reservationId: event.data.reservationId, requestRef: event.data.requestRef };
    case 'CreditsCharged':
      return { ...none, reservationId: event.data.reservationId, chargeId: event.data.chargeId, requestRef: event.data.requestRef };
    case 'CreditsReleased':
      return { ...none, reservationId: event.data.reservationId };
    case 'ChargeReversed':
      return { ...none, chargeId: event.data.chargeId, note: event.data.reason };
    case 'CreditsExpired':
      return { ...none, grantId: event.data.grantId, expiresAt: event.data.expiresAt };
    default:
      return assertNever(event);
  }
}

const lotsColumn = (draws: readonly LotDraw[]): string => draws.map((d) => `${d.grantId}:${String(d.amount)}`).join(';');

export async function* exportLedger(events: EventStore<Trx>, range: ExportRange): AsyncGenerator<LedgerRow> {
  const running = new Map<string, { balance: number; reserved: number }>();
  for (let after = 0; ;) {
    const rows = await events.readStreamTypeByPosition({
      streamType: LEDGER_STREAM_TYPE,
      ...(range.accountId === undefined ? {} : { streamId: ledgerStream(range.accountId) }),
      recordedBefore: range.to,
      after,
      limit: PAGE,
    });
    for (const recorded of rows) {
      const event = { type: recorded.type, data: recorded.data } as LedgerEvent;
      const { accountId } = event.data;
      const before = running.get(accountId) ?? { balance: 0, reserved: 0 };
      const effect = balanceEffect(event);
      const now = { balance: before.balance + effect.available, reserved: before.reserved + effect.reserved };
      running.set(accountId, now);
      if (recorded.recordedAt < range.from) continue;
      yield {
        globalPosition: recorded.globalPosition,
        recordedAt: recorded.recordedAt.toISOString(),
        accountId,
        streamPosition: recorded.streamPosition,
        type: event.type,
        amount: event.data.amount,
        balanceChange: effect.available,
        ...now,
        ...details(event),
        actor: recorded.metadata.actor ?? null,
        lots: 'lots' in event.data && event.data.lots ? lotsColumn(event.data.lots) : null,
      };
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) return;
    after = last.globalPosition;
  }
}
