/**
 * Inline projection of the ledger events into credit_balances, credit_reservations,
 * credit_charges and credit_lots, in the appending transaction: the balance row always
 * equals the fold of its stream, and its version is the stream version the next command
 * appends at. Lots move by the draws each event records (events appended since lots
 * exist always carry them; older streams are rebuilt by `rebuildLots`).
 */
import { sql } from 'kysely';
import type { EventStore, InlineProjection, RecordedEvent } from '../../ports/event-store.ts';
import type { Trx } from '../../db/database.ts';
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

/** A balance row's move by one stream's events in an append, written with the append's last rows. */
interface BalanceMove {
  readonly accountId: string;
  readonly available: number;
  readonly reserved: number;
  readonly version: number;
}

/** A JSON array parameter for jsonb_to_recordset. */
const rows = (items: readonly object[]) => sql`${JSON.stringify(items)}::text::jsonb`;

/**
 * The row changes of a run of events, gathered so a batch of charges costs a few
 * statements rather than a few per charge: new charge and reservation rows go in as one
 * insert each, and each lot moves once by its net change. Events that read a row an
 * earlier one may have written (settlements, releases, reversals) are applied one by one
 * after whatever was gathered before them, so the order of effects is the events' order.
 */
class EntryWriter {
  #charges: { accountId: string; chargeId: string; amount: number; requestRef: string; lots: readonly LotDraw[] }[] = [];
  #reservations: {
    accountId: string;
    reservationId: string;
    amount: number;
    requestRef: string;
    held: readonly LotDraw[];
    holdUntil: string | undefined;
  }[] = [];
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

  /**
   * Writes what was gathered, and the balance rows' moves, in one statement.
   * Lots credited (net at least zero) are upserted, lots debited are updated: a debit of
   * a lot that is missing, or one that would go below zero, is an error, as is a balance
   * row that is missing.
   */
  async flush(moves: readonly BalanceMove[] = []): Promise<void> {
    const { trx, at } = this;
    const charges = this.#charges;
    const reservations = this.#reservations;
    const lots = [...this.#lots.values()];
    this.#charges = [];
    this.#reservations = [];
    this.#lots = new Map();
    if (charges.length === 0 && reservations.length === 0 && lots.length === 0 && moves.length === 0) return;
    const credits = lots
      .filter((l) => l.net >= 0)
      .map((l) => ({ account_id: l.accountId, grant_id: l.draw.grantId, amount: l.net, expires_at: l.draw.expiresAt }));
    const debits = lots.filter((l) => l.net < 0).map((l) => ({ account_id: l.accountId, grant_id: l.draw.grantId, amount: -l.net }));
    const parts = [
      ...(charges.length === 0
        ? []
        : [
            sql`charged as (insert into credit_charges (account_id, charge_id, reservation_id, amount, request_ref, reversed, charged_at, lots)
              select account_id, charge_id, null, amount, request_ref, false, ${at}, lots
              from jsonb_to_recordset(${rows(charges.map((c) => ({ account_id: c.accountId, charge_id: c.chargeId, amount: c.amount, request_ref: c.requestRef, lots: c.lots })))})
                as x(account_id text, charge_id text, amount bigint, request_ref text, lots jsonb))`,
          ]),
      ...(reservations.length === 0
        ? []
        : [
            sql`held as (insert into credit_reservations (account_id, reservation_id, amount, request_ref, status, held, created_at, settled_at, hold_until)
              select account_id, reservation_id, amount, request_ref, 'open', held, ${at}, null, hold_until
              from jsonb_to_recordset(${rows(reservations.map((r) => ({ account_id: r.accountId, reservation_id: r.reservationId, amount: r.amount, request_ref: r.requestRef, held: r.held, hold_until: r.holdUntil ?? null })))})
                as x(account_id text, reservation_id text, amount bigint, request_ref text, held jsonb, hold_until timestamptz))`,
          ]),
      ...(credits.length === 0
        ? []
        : [
            sql`credited as (insert into credit_lots (account_id, grant_id, remaining, expires_at, updated_at)
              select account_id, grant_id, amount, expires_at, ${at}
              from jsonb_to_recordset(${rows(credits)}) as x(account_id text, grant_id text, amount bigint, expires_at timestamptz)
              on conflict (account_id, grant_id) do update set remaining = credit_lots.remaining + excluded.remaining, updated_at = excluded.updated_at)`,
          ]),
      sql`debited as (update credit_lots l set remaining = l.remaining - x.amount, updated_at = ${at}
        from jsonb_to_recordset(${rows(debits)}) as x(account_id text, grant_id text, amount bigint)
        where l.account_id = x.account_id and l.grant_id = x.grant_id
        returning 1)`,
      sql`moved as (update credit_balances b set balance = b.balance + x.available, reserved = b.reserved + x.reserved,
          version = x.version, updated_at = ${at}
        from jsonb_to_recordset(${rows(moves.map((m) => ({ account_id: m.accountId, available: m.available, reserved: m.reserved, version: m.version })))})
          as x(account_id text, available bigint, reserved bigint, version int)
        where b.account_id = x.account_id
        returning 1)`,
    ];
    const { rows: counts } = await sql<{ debited: number; moved: number }>`
      with ${sql.join(parts)}
      select (select count(*) from debited)::int as debited, (select count(*) from moved)::int as moved`.execute(trx);
    const { debited, moved } = counts[0]!;
    if (debited !== debits.length) throw new Error(`credit_lots lacks ${String(debits.length - debited)} of the lots debited`);
    if (moved !== moves.length)
      throw new Error(`credit_balances lacks ${String(moves.length - moved)} of the ${String(moves.length)} rows moved`);
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

export const creditsReadModel: InlineProjection<Trx> = {
  name: 'credits-read-model',
  handles: LEDGER_EVENT_TYPES,
  acrossStreams: true,
  apply: async (trx, recorded: readonly RecordedEvent[]) => {
    // One append has one recording time, so the batch's rows share it.
    const writer = new EntryWriter(trx, recorded[0]!.recordedAt);
    const streams = new Map<string, RecordedEvent[]>();
    for (const event of recorded) {
      const stream = streams.get(event.streamId);
      if (stream) stream.push(event);
      else streams.set(event.streamId, [event]);
    }
    const moves: BalanceMove[] = [];
    const started: BalanceMove[] = [];
    for (const stream of streams.values()) {
      const events = stream.map((e) => ({ type: e.type, data: e.data }) as LedgerEvent);
      for (const event of events) await writer.apply(event);
      // One balance write per stream, however many events it carried (a settlement is two).
      const total = events
        .map(balanceEffect)
        .reduce((a, b) => ({ available: a.available + b.available, reserved: a.reserved + b.reserved }));
      const move = { accountId: events[0]!.data.accountId, ...total, version: stream[stream.length - 1]!.streamPosition };
      // A stream's first append: from zero, the totals are the balances.
      (stream[0]!.streamPosition > 1 ? moves : started).push(move);
    }
    await writer.flush(moves);
    if (started.length === 0) return;
    await trx
      .insertInto('creditBalances')
      .values(
        started.map((s) => ({
          accountId: s.accountId,
          balance: s.available,
          reserved: s.reserved,
          version: s.version,
          updatedAt: recorded[0]!.recordedAt,
          lotsReady: true,
        })),
      )
      .execute();
  },
};

/**
 * Gives an account whose stream predates lots its lot rows and the draws of its
 * reservation and charge rows, from a fold of its whole stream, and marks it ready. Run in
 * the transaction that holds the account's balance row lock (the credits service does so
 * before the account's first command since the migration). Idempotent.
 */
export async function rebuildLots(trx: Trx, events: EventStore<Trx>, accountId: string, at: Date): Promise<void> {
  for await (const fold of foldLedgerStreams(events, accountId, { trx })) {
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
