/**
 * Folds ledger streams straight from the events table with the domain's `evolveLedger`,
 * for the readers that need a whole history: reconciliation and the lots rebuild. Each
 * event is applied to the slice it touches (the balances, the lots, and the one
 * reservation and charge it names): folding whole maps copies them per event, quadratic
 * on a busy account's stream. Events are read in pages ordered by stream, so one
 * account's entries are held at a time.
 */
import type { Trx } from '../../db/database.ts';
import type { EventStore } from '../../ports/event-store.ts';
import { evolveLedger, type Charge, type LedgerEvent, type LotDraw, type Lots, type Reservation } from '../../domain/credits/ledger.ts';
import { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

const PAGE = 1_000;

export interface ChargeEntry extends Charge {
  readonly requestRef: string;
  readonly chargedAt: Date;
}

export interface StreamFold {
  readonly accountId: string;
  available: number;
  reserved: number;
  version: number;
  lots: Lots;
  readonly reservations: Map<string, Reservation>;
  readonly charges: Map<string, ChargeEntry>;
}

/** A jsonb column of lot draws, as read back. */
export function asDraws(value: unknown): LotDraw[] {
  if (!Array.isArray(value)) return [];
  return value.map((d: { grantId: string; amount: number | string; expiresAt: string | null }) => ({
    grantId: d.grantId,
    amount: Number(d.amount),
    expiresAt: d.expiresAt,
  }));
}

function applyEvent(fold: StreamFold, event: LedgerEvent, position: number, recordedAt: Date): void {
  const reservationId = 'reservationId' in event.data ? event.data.reservationId : null;
  const chargeId = 'chargeId' in event.data ? event.data.chargeId : null;
  const reservation = reservationId === null ? undefined : fold.reservations.get(reservationId);
  const charge = chargeId === null ? undefined : fold.charges.get(chargeId);
  const next = evolveLedger(
    {
      available: fold.available,
      reserved: fold.reserved,
      lots: fold.lots,
      reservations: reservationId !== null && reservation ? { [reservationId]: reservation } : {},
      charges: chargeId !== null && charge ? { [chargeId]: charge } : {},
    },
    event,
  );
  fold.available = next.available;
  fold.reserved = next.reserved;
  fold.lots = next.lots;
  fold.version = position;
  const nextReservation = reservationId === null ? undefined : next.reservations[reservationId];
  if (reservationId !== null && nextReservation) fold.reservations.set(reservationId, nextReservation);
  const nextCharge = chargeId === null ? undefined : next.charges[chargeId];
  if (chargeId !== null && nextCharge) {
    const requestRef = event.type === 'CreditsCharged' ? event.data.requestRef : (charge?.requestRef ?? '');
    fold.charges.set(chargeId, { ...nextCharge, requestRef, chargedAt: charge?.chargedAt ?? recordedAt });
  }
}

/** Every ledger stream (or one), folded; yields each in turn with its entries. */
export async function* foldLedgerStreams(
  events: EventStore<Trx>,
  accountId: string | undefined,
  options: { readonly count?: (events: number) => void; readonly trx?: Trx } = {},
): AsyncGenerator<StreamFold> {
  let current: StreamFold | undefined;
  for (let after: [string, number] = ['', 0]; ;) {
    const rows = await events.readStreamTypeByStream({
      streamType: LEDGER_STREAM_TYPE,
      ...(accountId === undefined ? {} : { streamId: ledgerStream(accountId) }),
      after,
      limit: PAGE,
      ...(options.trx ? { trx: options.trx } : {}),
    });
    options.count?.(rows.length);
    for (const recorded of rows) {
      const event = { type: recorded.type, data: recorded.data } as LedgerEvent;
      if (current?.accountId !== event.data.accountId) {
        if (current) yield current;
        const id = event.data.accountId;
        current = { accountId: id, available: 0, reserved: 0, version: 0, lots: {}, reservations: new Map(), charges: new Map() };
      }
      applyEvent(current, event, recorded.streamPosition, recorded.recordedAt);
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) break;
    after = [last.streamId, last.streamPosition];
  }
  if (current) yield current;
}
