/**
 * Credit commands on a billing account's ledger: grant, reserve, settle, release, reverse
 * and the fixed-price `chargeNow`. Every command runs in one transaction that first locks
 * the account's credit_balances row (`select ... for update`), so commands on one account
 * serialise there and a charge decides against the balance every earlier charge left.
 * The decider then sees that row plus the one reservation or charge the command names,
 * loaded from the read model rather than folded from the stream (a busy account's stream
 * is long); the append is still guarded by the stream version the row carries, and the
 * inline projection moves the row in the same commit. A decision refused (e.g. too few
 * credits) writes nothing.
 */
import type { PostgresEventStore } from '../../adapters/postgres/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import {
  decideLedger,
  evolveLedger,
  type Charge,
  type GrantSource,
  type LedgerCommand,
  type LedgerError,
  type LedgerEvent,
  type LedgerState,
  type Reservation,
} from '../../domain/credits/ledger.ts';
import { fold } from '../../domain/decider.ts';
import type { Clock, IdGenerator } from '../../ports/clock.ts';
import { VersionConflictError, type EventMetadata } from '../../ports/event-store.ts';

export const LEDGER_STREAM_TYPE = 'credit-ledger';
export const ledgerStream = (accountId: string) => `${LEDGER_STREAM_TYPE}-${accountId}`;

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
  /** Recorded with the grant; it does not (yet) reduce the balance, see the ledger module. */
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

  async balance(accountId: string, trx?: Trx): Promise<Balance> {
    const row = await (trx ?? this.deps.db)
      .selectFrom('creditBalances')
      .select(['balance', 'reserved'])
      .where('accountId', '=', accountId)
      .executeTakeFirst();
    return row ?? { balance: 0, reserved: 0 };
  }

  async grant(accountId: string, input: GrantInput, context: CreditsContext = {}, trx?: Trx): Promise<CreditsResult<Balance>> {
    const meta = this.#meta(context);
    const command: LedgerCommand = {
      type: 'GrantCredits',
      accountId,
      grantId: `grt_${this.deps.ids.next()}`,
      amount: input.amount,
      source: input.source,
      expiresAt: input.expiresAt ?? null,
      note: input.note ?? null,
      at: meta.occurredAt,
    };
    const decided = await this.#run(accountId, command, null, meta, trx);
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

  /** Holds `amount` before an outcome-priced call runs; InsufficientCredits when it is not covered. */
  async reserve(
    accountId: string,
    amount: number,
    requestRef: string,
    trx?: Trx,
  ): Promise<CreditsResult<Balance & { reservationId: string }>> {
    const meta = this.#meta({ requestId: requestRef });
    const reservationId = `rsv_${this.deps.ids.next()}`;
    const command: LedgerCommand = { type: 'ReserveCredits', accountId, reservationId, amount, requestRef, at: meta.occurredAt };
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
   * event. The charge id is `requestRef`, so one request is charged at most once however
   * often this is called for it; pass the request id, not anything shared by requests.
   */
  async chargeNow(
    accountId: string,
    amount: number,
    requestRef: string,
    trx?: Trx,
  ): Promise<CreditsResult<Balance & { chargeId: string }>> {
    const meta = this.#meta({ requestId: requestRef });
    const chargeId = requestRef;
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
      if (!decision.ok) return decision;
      const after = fold(evolveLedger, state, decision.events);
      const balance = { balance: after.available, reserved: after.reserved };
      if (decision.events.length === 0) return { ok: true, events: [], after: balance };
      try {
        await this.deps.store.append(ledgerStream(accountId), version, decision.events, {
          streamType: LEDGER_STREAM_TYPE,
          metadata: meta,
          trx,
        });
        return { ok: true, events: decision.events, after: balance };
      } catch (error) {
        // Only an account's very first append can race (there is no row to lock yet); the
        // loser finds the winner's row on the second pass. A conflict is no SQL error, so
        // the transaction is still usable.
        if (!(error instanceof VersionConflictError) || attempt > 0) throw error;
      }
    }
  }

  /**
   * The balance row (locked) and the reservation and charge under the id the command
   * names (both: the decider checks the two id spaces do not meet): its decision slice.
   */
  async #load(trx: Trx, accountId: string, entryId: string | null): Promise<{ state: LedgerState; version: number }> {
    const row = await trx
      .selectFrom('creditBalances')
      .select(['balance', 'reserved', 'version'])
      .where('accountId', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    const reservations: Record<string, Reservation> = {};
    const charges: Record<string, Charge> = {};
    if (row && entryId !== null) {
      const reservation = await trx
        .selectFrom('creditReservations')
        .select(['amount', 'requestRef', 'status'])
        .where('accountId', '=', accountId)
        .where('reservationId', '=', entryId)
        .executeTakeFirst();
      if (reservation) reservations[entryId] = { ...reservation, status: reservation.status === 'open' ? 'open' : 'settled' };
      const charge = await trx
        .selectFrom('creditCharges')
        .select(['amount', 'reversed'])
        .where('accountId', '=', accountId)
        .where('chargeId', '=', entryId)
        .executeTakeFirst();
      if (charge) charges[entryId] = charge;
    }
    return {
      state: { available: row?.balance ?? 0, reserved: row?.reserved ?? 0, reservations, charges },
      version: row?.version ?? 0,
    };
  }
}
