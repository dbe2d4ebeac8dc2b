/**
 * Inline projection of the ledger events into credit_balances, credit_reservations and
 * credit_charges, in the appending transaction: the balance row always equals the fold of
 * its stream, and its version is the stream version the next command appends at.
 */
import { sql } from 'kysely';
import type { InlineProjection } from '../../adapters/postgres/event-store.ts';
import type { Trx } from '../../db/database.ts';
import { assertNever } from '../../domain/decider.ts';
import { balanceEffect, type LedgerEvent } from '../../domain/credits/ledger.ts';
import type { RecordedEvent } from '../../ports/event-store.ts';

export const LEDGER_EVENT_TYPES: readonly LedgerEvent['type'][] = [
  'CreditsGranted',
  'CreditsReserved',
  'CreditsCharged',
  'CreditsReleased',
  'ChargeReversed',
];

async function applyEntries(trx: Trx, event: LedgerEvent, at: Date): Promise<void> {
  switch (event.type) {
    case 'CreditsGranted':
      return;
    case 'CreditsReserved': {
      const { accountId, reservationId, amount, requestRef } = event.data;
      await trx
        .insertInto('creditReservations')
        .values({ accountId, reservationId, amount, requestRef, status: 'open', createdAt: at, settledAt: null })
        .execute();
      return;
    }
    case 'CreditsCharged': {
      const { accountId, chargeId, reservationId, amount, requestRef } = event.data;
      await trx
        .insertInto('creditCharges')
        .values({ accountId, chargeId, reservationId, amount, requestRef, reversed: false, chargedAt: at })
        .execute();
      if (reservationId !== null) await settleReservation(trx, accountId, reservationId, at);
      return;
    }
    case 'CreditsReleased':
      await settleReservation(trx, event.data.accountId, event.data.reservationId, at);
      return;
    case 'ChargeReversed':
      await trx
        .updateTable('creditCharges')
        .set({ reversed: true })
        .where('accountId', '=', event.data.accountId)
        .where('chargeId', '=', event.data.chargeId)
        .execute();
      return;
    default:
      assertNever(event);
  }
}

async function settleReservation(trx: Trx, accountId: string, reservationId: string, at: Date): Promise<void> {
  await trx
    .updateTable('creditReservations')
    .set({ status: 'settled', settledAt: at })
    .where('accountId', '=', accountId)
    .where('reservationId', '=', reservationId)
    .execute();
}

export const creditsReadModel: InlineProjection = {
  name: 'credits-read-model',
  handles: LEDGER_EVENT_TYPES,
  apply: async (trx, recorded: readonly RecordedEvent[]) => {
    const events = recorded.map((e) => ({ type: e.type, data: e.data }) as LedgerEvent);
    for (const [i, event] of events.entries()) await applyEntries(trx, event, recorded[i]!.recordedAt);
    // One balance write per append, however many events it carried (a settlement is two).
    const total = events.map(balanceEffect).reduce((a, b) => ({ available: a.available + b.available, reserved: a.reserved + b.reserved }));
    const last = recorded[recorded.length - 1]!;
    const accountId = events[0]!.data.accountId;
    if (recorded[0]!.streamPosition === 1) {
      // The stream's first append: from zero, the totals are the balances.
      const row = {
        accountId,
        balance: total.available,
        reserved: total.reserved,
        version: last.streamPosition,
        updatedAt: last.recordedAt,
      };
      await trx.insertInto('creditBalances').values(row).execute();
      return;
    }
    const updated = await trx
      .updateTable('creditBalances')
      .set({
        balance: sql<number>`balance + ${total.available}`,
        reserved: sql<number>`reserved + ${total.reserved}`,
        version: last.streamPosition,
        updatedAt: last.recordedAt,
      })
      .where('accountId', '=', accountId)
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n)
      throw new Error(`credit_balances has no row for ${accountId} at version ${recorded[0]!.streamPosition - 1}`);
  },
};
