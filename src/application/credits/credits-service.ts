/**
 * Credit commands on a billing account's ledger: grant, reserve, settle, release, reverse
 * and the fixed-price `chargeNow`. Every command runs in one transaction that first locks
 * the account's credit_balances row (`select ... for update`), so commands on one account
 * serialise there and a charge decides against the balance every earlier charge left.
 * The decider then sees that row plus the one reservation or charge the command names,
 * loaded from the read model rather than folded from the stream (a busy account's stream
 * is long); the append is still guarded by the stream version the row carries, and the
 * inline projection moves the row in the same commit. The decision also sees the lots that
 * hold credits (and the lot a grant names), so it can draw soonest-expiring first and
 * expire what is due at the command's time. A refused decision (e.g. too few credits)
 * writes nothing but the expiries due before it, which it was decided after.
 *
 * Expiry needs no clock in the domain: the service's clock stamps each command's `at`.
 * `balance` is what is spendable now (the row less lots already due but not yet recorded
 * as expired); `expireDue` records those expiries for one account and `expireAllDue` for
 * every account holding any, which the expiry sweeper runs periodically.
 */
import { sql } from 'kysely';
import type { PostgresEventStore } from '../../adapters/postgres/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import {
  decideLedger,
  dueExpiries,
  evolveLedger,
  type Charge,
  type GrantSource,
  type LedgerCommand,
  type LedgerError,
  type LedgerEvent,
  type LedgerState,
  type Lot,
  type Reservation,
} from '../../domain/credits/ledger.ts';
import { fold } from '../../domain/decider.ts';
import type { Clock, IdGenerator } from '../../ports/clock.ts';
import { VersionConflictError, type EventMetadata } from '../../ports/event-store.ts';
import { rebuildLots } from './read-model.ts';
import { asDraws } from './stream-fold.ts';
import { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

export { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

/** The account credits are drawn from: the user's organisation when they have one, else the user. */
export function billingAccountOf(user: { readonly userId: string; readonly organizationId: string | null }): string {
  return user.organizationId ?? user.userId;
}

export type CreditsError = LedgerError | { tag: 'UserNotFound' };
export type CreditsResult<T> = { ok: true; value: T } | { ok: false; error: CreditsError };

export interface Balance {
  /** Spendable now. */
  readonly balance: number;
  /** Held by open reservations. */
  readonly reserved: number;
}

export interface GrantInput {
  readonly amount: number;
  readonly source: GrantSource;
  readonly note?: string;
  /** ISO 8601, after now: the unspent rest of this grant then leaves the balance. */
  readonly expiresAt?: string;
}

/** Who asked, for the event metadata: an operator, a user, or the API call charged. */
export interface CreditsContext {
  readonly actor?: string;
  readonly requestId?: string;
}

export interface CreditsDeps {
  readonly db: Db;
  /** Must run `creditsReadModel` inline: the lock row and the loaded state come from it. */
  readonly store: PostgresEventStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

type Decided = { ok: true; events: LedgerEvent[]; after: Balance } | { ok: false; error: LedgerError };

/** A sweep releases at most this many; the next sweep takes the rest. */
const LAPSED_HOLDS_PER_SWEEP = 500;

/** An ISO instant in one spelling (UTC, milliseconds), so lots compare and print alike; anything unparsable is left for the decider to refuse. */
function instant(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

export class CreditsService {
  constructor(private readonly deps: CreditsDeps) {}

  async billingAccountForUser(userId: string, trx?: Trx): Promise<string | null> {
    const user = await (trx ?? this.deps.db)
      .selectFrom('users')
      .select(['userId', 'organizationId'])
      .where('userId', '=', userId)
      .executeTakeFirst();
    return user ? billingAccountOf(user) : null;
  }

  /** Spendable now: the balance row less credits already past their expiry (see `expireDue`). */
  async balance(accountId: string, trx?: Trx): Promise<Balance> {
    const row = await this.#balanceRow(accountId, this.deps.clock.now(), trx);
    return row ? { balance: row.balance - row.due, reserved: row.reserved } : { balance: 0, reserved: 0 };
  }

  /**
   * Records the expiry of this account's lots past their time, so the ledger (and what
   * GET /usage and finance exports show) is current on an idle account. Only reads when
   * nothing is due.
   */
  async expireDue(accountId: string, trx?: Trx): Promise<Balance & { expired: number }> {
    const row = await this.#balanceRow(accountId, this.deps.clock.now(), trx);
    if (!row) return { balance: 0, reserved: 0, expired: 0 };
    if (row.due === 0 && row.lotsReady) return { balance: row.balance, reserved: row.reserved, expired: 0 };
    const meta = this.#meta({});
    const decided = await this.#run(accountId, { type: 'ExpireCredits', accountId, at: meta.occurredAt }, null, meta, trx);
    if (!decided.ok) throw new Error(`expiry refused: ${decided.error.tag}`);
    const expired = decided.events.reduce((n, e) => n + (e.type === 'CreditsExpired' ? e.data.amount : 0), 0);
    return { ...decided.after, expired };
  }

  /** `expireDue` on every account holding credits past their expiry (and any whose lots predate lots). */
  async expireAllDue(): Promise<{ accounts: number; expired: number }> {
    const now = this.deps.clock.now();
    const due = await this.deps.db
      .selectFrom('creditLots')
      .select('accountId')
      .where('remaining', '>', 0)
      .where('expiresAt', '<=', now)
      .union(this.deps.db.selectFrom('creditBalances').select('accountId').where('lotsReady', '=', false))
      .execute();
    let expired = 0;
    for (const { accountId } of due) expired += (await this.expireDue(accountId)).expired;
    return { accounts: due.length, expired };
  }

  /** Releases every open hold past its `holdUntil`, whole; returns how many and how many credits went back. */
  async releaseLapsedHolds(): Promise<{ holds: number; released: number }> {
    const lapsed = await this.deps.db
      .selectFrom('creditReservations')
      .select(['accountId', 'reservationId', 'amount'])
      .where('status', '=', 'open')
      .where('holdUntil', '<=', this.deps.clock.now())
      .orderBy('holdUntil')
      .limit(LAPSED_HOLDS_PER_SWEEP)
      .execute();
    let released = 0;
    for (const hold of lapsed) {
      const result = await this.release(hold.accountId, hold.reservationId);
      if (!result.ok) throw new Error(`releasing lapsed hold ${hold.reservationId}: ${result.error.tag}`);
      released += hold.amount;
    }
    return { holds: lapsed.length, released };
  }

  async grant(accountId: string, input: GrantInput, context: CreditsContext = {}, trx?: Trx): Promise<CreditsResult<Balance>> {
    const meta = this.#meta(context);
    const command: LedgerCommand = {
      type: 'GrantCredits',
      accountId,
      grantId: `grt_${this.deps.ids.next()}`,
      amount: input.amount,
      source: input.source,
      expiresAt: input.expiresAt === undefined ? null : instant(input.expiresAt),
      note: input.note ?? null,
      at: meta.occurredAt,
    };
    const decided = await this.#run(accountId, command, command.grantId, meta, trx);
    return decided.ok ? { ok: true, value: decided.after } : decided;
  }

  /** Grants to the billing account of `userId` (their organisation's when they have one). */
  async grantToUser(
    userId: string,
    input: GrantInput,
    context: CreditsContext = {},
  ): Promise<CreditsResult<Balance & { accountId: string }>> {
    const accountId = await this.billingAccountForUser(userId);
    if (accountId === null) return { ok: false, error: { tag: 'UserNotFound' } };
    const granted = await this.grant(accountId, input, context);
    return granted.ok ? { ok: true, value: { accountId, ...granted.value } } : granted;
  }

  /**
   * Holds `amount` before an outcome-priced call runs; InsufficientCredits when it is not
   * covered. Every hold lapses `holdForMs` after it is made: a hold its owner never settled
   * or released (the process died mid-call) is then released by `releaseLapsedHolds`, so no
   * credits stay held for ever. Choose it longer than the owner can still settle: a hold
   * released first is settled at nothing.
   */
  async reserve(
    accountId: string,
    amount: number,
    requestRef: string,
    holdForMs: number,
    trx?: Trx,
  ): Promise<CreditsResult<Balance & { reservationId: string }>> {
    const meta = this.#meta({ requestId: requestRef });
    const reservationId = `rsv_${this.deps.ids.next()}`;
    const holdUntil = new Date(Date.parse(meta.occurredAt) + holdForMs).toISOString();
    const command: LedgerCommand = { type: 'ReserveCredits', accountId, reservationId, amount, requestRef, holdUntil, at: meta.occurredAt };
    const decided = await this.#run(accountId, command, reservationId, meta, trx);
    return decided.ok ? { ok: true, value: { reservationId, ...decided.after } } : decided;
  }

  /**
   * Charges the final price out of a reservation and releases the rest. The charge id is
   * the reservation id. Settling an already settled reservation records nothing.
   */
  async settle(
    accountId: string,
    reservationId: string,
    amount: number,
    trx?: Trx,
  ): Promise<CreditsResult<Balance & { charged: number; released: number }>> {
    const meta = this.#meta({});
    const command: LedgerCommand = { type: 'SettleReservation', accountId, reservationId, amount, at: meta.occurredAt };
    const decided = await this.#run(accountId, command, reservationId, meta, trx);
    if (!decided.ok) return decided;
    const sum = (type: LedgerEvent['type']) => decided.events.filter((e) => e.type === type).reduce((n, e) => n + e.data.amount, 0);
    return { ok: true, value: { ...decided.after, charged: sum('CreditsCharged'), released: sum('CreditsReleased') } };
  }

  /** Gives a whole reservation back (the call failed before it cost anything). */
  async release(accountId: string, reservationId: string, trx?: Trx): Promise<CreditsResult<Balance>> {
    const meta = this.#meta({});
    const command: LedgerCommand = { type: 'ReleaseReservation', accountId, reservationId, at: meta.occurredAt };
    const decided = await this.#run(accountId, command, reservationId, meta, trx);
    return decided.ok ? { ok: true, value: decided.after } : decided;
  }

  /** Refunds a charge in full (e.g. a failed analysis job); a second reversal records nothing. */
  async reverse(accountId: string, chargeId: string, reason: string, trx?: Trx): Promise<CreditsResult<Balance & { reversed: number }>> {
    const meta = this.#meta({});
    const command: LedgerCommand = { type: 'ReverseCharge', accountId, chargeId, reason, at: meta.occurredAt };
    const decided = await this.#run(accountId, command, chargeId, meta, trx);
    if (!decided.ok) return decided;
    const reversed = decided.events.reduce((n, e) => n + (e.type === 'ChargeReversed' ? e.data.amount : 0), 0);
    return { ok: true, value: { ...decided.after, reversed } };
  }

  /**
   * Charges a fixed price straight from the available balance, as one `CreditsCharged`
   * event. The charge id is made here (`chg_`), never taken from a request: a charge id
   * seen before is "already charged", so an id a caller could choose would let them make
   * a paid call free. `chargeId` names the charge otherwise, always with an id of the
   * server's own namespace (e.g. the analysis run it pays for, so the run can reverse it);
   * `requestRef` ties it to the request that was charged, for the audit join.
   */
  async chargeNow(
    accountId: string,
    amount: number,
    requestRef: string,
    trx?: Trx,
    chargeId = `chg_${this.deps.ids.next()}`,
  ): Promise<CreditsResult<Balance & { chargeId: string }>> {
    const meta = this.#meta({ requestId: requestRef });
    const command: LedgerCommand = { type: 'ChargeCredits', accountId, chargeId, amount, requestRef, at: meta.occurredAt };
    const decided = await this.#run(accountId, command, chargeId, meta, trx);
    return decided.ok ? { ok: true, value: { chargeId, ...decided.after } } : decided;
  }

  #meta(context: CreditsContext): EventMetadata {
    return {
      occurredAt: this.deps.clock.now().toISOString(),
      ...(context.actor ? { actor: context.actor } : {}),
      ...(context.requestId ? { requestId: context.requestId } : {}),
    };
  }

  #run(accountId: string, command: LedgerCommand, entryId: string | null, meta: EventMetadata, trx?: Trx): Promise<Decided> {
    if (trx) return this.#decideAndAppend(trx, accountId, command, entryId, meta);
    return this.deps.db.transaction().execute((t) => this.#decideAndAppend(t, accountId, command, entryId, meta));
  }

  async #decideAndAppend(
    trx: Trx,
    accountId: string,
    command: LedgerCommand,
    entryId: string | null,
    meta: EventMetadata,
  ): Promise<Decided> {
    for (let attempt = 0; ; attempt += 1) {
      const { state, version } = await this.#load(trx, accountId, entryId);
      const decision = decideLedger(command, state);
      // A refusal was decided after the expiries due at its time: those are recorded all the same.
      const events = decision.ok ? decision.events : dueExpiries(state, accountId, command.at);
      const after = fold(evolveLedger, state, events);
      const balance = { balance: after.available, reserved: after.reserved };
      try {
        if (events.length > 0) {
          await this.deps.store.append(ledgerStream(accountId), version, events, { streamType: LEDGER_STREAM_TYPE, metadata: meta, trx });
        }
        return decision.ok ? { ok: true, events, after: balance } : decision;
      } catch (error) {
        // Only an account's very first append can race (there is no row to lock yet); the
        // loser finds the winner's row on the second pass. A conflict is no SQL error, so
        // the transaction is still usable.
        if (!(error instanceof VersionConflictError) || attempt > 0) throw error;
      }
    }
  }

  async #balanceRow(
    accountId: string,
    now: Date,
    trx?: Trx,
  ): Promise<{ balance: number; reserved: number; lotsReady: boolean; due: number } | undefined> {
    const row = await (trx ?? this.deps.db)
      .selectFrom('creditBalances')
      .select(['balance', 'reserved', 'lotsReady'])
      .select(
        sql<string>`(select coalesce(sum(l.remaining), 0) from credit_lots l
          where l.account_id = credit_balances.account_id and l.remaining > 0 and l.expires_at <= ${now})`.as('due'),
      )
      .where('accountId', '=', accountId)
      .executeTakeFirst();
    return row && { ...row, due: Number(row.due) };
  }

  /**
   * The balance row (locked), the lots holding credits, and the lot, reservation and
   * charge under the id the command names (all: the decider checks the id spaces do not
   * meet): its decision slice. An account whose lots predate lots gets them first.
   */
  async #load(trx: Trx, accountId: string, entryId: string | null): Promise<{ state: LedgerState; version: number }> {
    const row = await trx
      .selectFrom('creditBalances')
      .select(['balance', 'reserved', 'version', 'lotsReady'])
      .where('accountId', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    const lots: Record<string, Lot> = {};
    const reservations: Record<string, Reservation> = {};
    const charges: Record<string, Charge> = {};
    if (row) {
      if (!row.lotsReady) await rebuildLots(trx, accountId, this.deps.clock.now());
      const rows = await trx
        .selectFrom('creditLots')
        .select(['grantId', 'remaining', 'expiresAt'])
        .where('accountId', '=', accountId)
        .where((eb) => (entryId === null ? eb('remaining', '>', 0) : eb.or([eb('remaining', '>', 0), eb('grantId', '=', entryId)])))
        .execute();
      for (const lot of rows) lots[lot.grantId] = { remaining: lot.remaining, expiresAt: lot.expiresAt?.toISOString() ?? null };
    }
    if (row && entryId !== null) {
      const reservation = await trx
        .selectFrom('creditReservations')
        .select(['amount', 'requestRef', 'status', 'held'])
        .where('accountId', '=', accountId)
        .where('reservationId', '=', entryId)
        .executeTakeFirst();
      if (reservation) {
        const status = reservation.status === 'open' ? 'open' : 'settled';
        reservations[entryId] = { amount: reservation.amount, requestRef: reservation.requestRef, status, held: asDraws(reservation.held) };
      }
      const charge = await trx
        .selectFrom('creditCharges')
        .select(['amount', 'reversed', 'lots'])
        .where('accountId', '=', accountId)
        .where('chargeId', '=', entryId)
        .executeTakeFirst();
      if (charge) charges[entryId] = { amount: charge.amount, reversed: charge.reversed, lots: asDraws(charge.lots) };
    }
    return {
      state: { available: row?.balance ?? 0, reserved: row?.reserved ?? 0, lots, reservations, charges },
      version: row?.version ?? 0,
    };
  }
}
