/**
 * Inline projection of the ledger events into credit_balances, credit_reservations,
 * credit_charges and credit_lots, in the appending transaction: the balance row always
 * equals the fold of its stream, and its version is the stream version the next command
 * appends at. Lots move by the draws each event records (events appended since lots
 * exist always carry them; older streams are rebuilt by `rebuildLots`).
 */
import { sql } from 'kysely';
import type { InlineProjection, RecordedEvent } from '../../ports/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { assertNever } from '../../domain/decider.ts';
import { balanceEffect, type LedgerEvent, type LotDraw } from '../../domain/credits/ledger.ts';
import { without } from '../../domain/credits/lots.ts';
import { asDraws, foldLedgerStreams } from './stream-fold.ts';

export const LEDGER_EVENT_TYPES: readonly LedgerEvent['type'][] = [
  'CreditsGranted',
  'CreditsReserved',
  'CreditsCharged',
  'CreditsReleased',
  'ChargeReversed',
  'CreditsExpired',
];

const expiry = (expiresAt: string | null): Date | null => (expiresAt === null ? null : new Date(expiresAt));

function drawn(event: LedgerEvent & { data: { lots?: readonly LotDraw[] } }): readonly LotDraw[] {
  if (!event.data.lots) throw new Error(`${event.type} of ${event.data.accountId} records no lots: rebuild the account's lots`);
  return event.data.lots;
}

/** Credits back into lots: a lot a refund creates is inserted, any other is topped up. */
async function creditLots(trx: Trx, accountId: string, draws: readonly LotDraw[], at: Date): Promise<void> {
  for (const draw of draws) {
    await trx
      .insertInto('creditLots')
      .values({ accountId, grantId: draw.grantId, remaining: draw.amount, expiresAt: expiry(draw.expiresAt), updatedAt: at })
      .onConflict((oc) =>
        oc
          .columns(['accountId', 'grantId'])
          .doUpdateSet({ remaining: sql<number>`credit_lots.remaining + excluded.remaining`, updatedAt: at }),
      )
      .execute();
  }
}

async function debitLots(trx: Trx, accountId: string, draws: readonly LotDraw[], at: Date): Promise<void> {
  for (const draw of draws) {
    const updated = await trx
      .updateTable('creditLots')
      .set({ remaining: sql<number>`remaining - ${draw.amount}`, updatedAt: at })
      .where('accountId', '=', accountId)
      .where('grantId', '=', draw.grantId)
      .executeTakeFirst();
    if (updated.numUpdatedRows !== 1n) throw new Error(`credit_lots has no lot ${draw.grantId} for ${accountId}`);
  }
}

/** A reservation's hold less `draws`; settled, since a charge or a release only ever settles one. */
async function settleReservation(trx: Trx, accountId: string, reservationId: string, draws: readonly LotDraw[], at: Date): Promise<void> {
  const row = await trx
    .selectFrom('creditReservations')
    .select('held')
    .where('accountId', '=', accountId)
    .where('reservationId', '=', reservationId)
    .executeTakeFirst();
  await trx
    .updateTable('creditReservations')
    .set({ status: 'settled', settledAt: at, held: jsonb(without(asDraws(row?.held), draws)) })
    .where('accountId', '=', accountId)
    .where('reservationId', '=', reservationId)
    .execute();
}

/**
 * The row changes of a run of events, gathered so a batch of charges costs a few
 * statements rather than a few per charge: new charge and reservation rows go in as one
 * insert each, and each lot moves once by its net change. Events that read a row an
 * earlier one may have written (settlements, releases, reversals) are applied one by one
 * after whatever was gathered before them, so the order of effects is the events' order.
 */
class EntryWriter {
  #charges: { accountId: string; chargeId: string; amount: number; requestRef: string; lots: readonly LotDraw[] }[] = [];
  #reservations: { accountId: string; reservationId: string; amount: number; requestRef: string; held: readonly LotDraw[]; holdUntil: string | undefined }[] = [];
  #lots = new Map<string, { accountId: string; draw: LotDraw; net: number }>();

  constructor(
    private readonly trx: Trx,
    private readonly at: Date,
  ) {}

  async apply(event: LedgerEvent): Promise<void> {
    switch (event.type) {
      case 'CreditsGranted': {
        const { accountId, grantId, amount, expiresAt } = event.data;
        this.#moveLots(accountId, [{ grantId, amount, expiresAt }], 1);
        return;
      }
      case 'CreditsReserved': {
        const { accountId, reservationId, amount, requestRef, holdUntil } = event.data;
        const held = drawn(event);
        this.#reservations.push({ accountId, reservationId, amount, requestRef, held, holdUntil });
        this.#moveLots(accountId, held, -1);
        return;
      }
      case 'CreditsCharged': {
        const { accountId, chargeId, reservationId, amount, requestRef } = event.data;
        const lots = drawn(event);
        if (reservationId === null) {
          // Held credits left their lots when reserved; a fixed-price charge takes them now.
          this.#charges.push({ accountId, chargeId, amount, requestRef, lots });
          this.#moveLots(accountId, lots, -1);
          return;
        }
        await this.flush();
        await this.trx
          .insertInto('creditCharges')
          .values({ accountId, chargeId, reservationId, amount, requestRef, reversed: false, chargedAt: this.at, lots: jsonb(lots) })
          .execute();
        await settleReservation(this.trx, accountId, reservationId, lots, this.at);
        return;
      }
      case 'CreditsReleased': {
        const lots = drawn(event);
        await this.flush();
        await settleReservation(this.trx, event.data.accountId, event.data.reservationId, lots, this.at);
        this.#moveLots(event.data.accountId, lots, 1);
        return;
      }
      case 'ChargeReversed':
        await this.flush();
        await this.trx
          .updateTable('creditCharges')
          .set({ reversed: true })
          .where('accountId', '=', event.data.accountId)
          .where('chargeId', '=', event.data.chargeId)
          .execute();
        this.#moveLots(event.data.accountId, drawn(event), 1);
        return;
      case 'CreditsExpired': {
        const { accountId, grantId, amount, expiresAt } = event.data;
        this.#moveLots(accountId, [{ grantId, amount, expiresAt }], -1);
        return;
      }
      default:
        assertNever(event);
    }
  }

  async flush(): Promise<void> {
    const { trx, at } = this;
    const charges = this.#charges;
    const reservations = this.#reservations;
    const lots = [...this.#lots.values()];
    this.#charges = [];
    this.#reservations = [];
    this.#lots = new Map();
    if (charges.length > 0) {
      await trx
        .insertInto('creditCharges')
        .values(
          charges.map((c) => ({
            accountId: c.accountId,
            chargeId: c.chargeId,
            reservationId: null,
            amount: c.amount,
            requestRef: c.requestRef,
            reversed: false,
            chargedAt: at,
            lots: jsonb(c.lots),
          })),
        )
        .execute();
    }
    if (reservations.length > 0) {
      await trx
        .insertInto('creditReservations')
        .values(
          reservations.map((r) => ({
            accountId: r.accountId,
            reservationId: r.reservationId,
            amount: r.amount,
            requestRef: r.requestRef,
            status: 'open',
            held: jsonb(r.held),
            createdAt: at,
            settledAt: null,
            holdUntil: r.holdUntil === undefined ? null : new Date(r.holdUntil),
          })),
        )
        .execute();
    }
    for (const { accountId, draw, net } of lots) {
      if (net >= 0) await creditLots(trx, accountId, [{ ...draw, amount: net }], at);
      else await debitLots(trx, accountId, [{ ...draw, amount: -net }], at);
    }
  }

  #moveLots(accountId: string, draws: readonly LotDraw[], sign: 1 | -1): void {
    for (const draw of draws) {
      const key = `${accountId}\u0000${draw.grantId}`;
      const lot = this.#lots.get(key);
      if (lot) lot.net += sign * draw.amount;
      else this.#lots.set(key, { accountId, draw, net: sign * draw.amount });
    }
  }
}

export const creditsReadModel: InlineProjection = {
  name: 'credits-read-model',
  handles: LEDGER_EVENT_TYPES,
  apply: async (trx, recorded: readonly RecordedEvent[]) => {
    const events = recorded.map((e) => ({ type: e.type, data: e.data }) as LedgerEvent);
    // One append has one recording time, so the batch's rows share it.
    const writer = new EntryWriter(trx, recorded[0]!.recordedAt);
    for (const event of events) await writer.apply(event);
    await writer.flush();
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
        lotsReady: true,
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

/**
 * Gives an account whose stream predates lots its lot rows and the draws of its
 * reservation and charge rows, from a fold of its whole stream, and marks it ready. Run in
 * the transaction that holds the account's balance row lock (the credits service does so
 * before the account's first command since the migration). Idempotent.
 */
export async function rebuildLots(trx: Trx | Db, accountId: string, at: Date): Promise<void> {
  for await (const fold of foldLedgerStreams(trx, accountId)) {
    await trx.deleteFrom('creditLots').where('accountId', '=', accountId).execute();
    const lots = Object.entries(fold.lots).map(([grantId, lot]) => ({
      accountId,
      grantId,
      remaining: lot.remaining,
      expiresAt: expiry(lot.expiresAt),
      updatedAt: at,
    }));
    if (lots.length > 0) await trx.insertInto('creditLots').values(lots).execute();
    for (const [reservationId, reservation] of fold.reservations) {
      await trx
        .updateTable('creditReservations')
        .set({ held: jsonb(reservation.held) })
        .where('accountId', '=', accountId)
        .where('reservationId', '=', reservationId)
        .execute();
    }
    for (const [chargeId, charge] of fold.charges) {
      await trx
        .updateTable('creditCharges')
        .set({ lots: jsonb(charge.lots) })
        .where('accountId', '=', accountId)
        .where('chargeId', '=', chargeId)
        .execute();
    }
  }
  await trx.updateTable('creditBalances').set({ lotsReady: true }).where('accountId', '=', accountId).execute();
}
