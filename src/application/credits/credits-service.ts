/**
 * Credit commands on a billing account's ledger: grant, reserve, settle, release, reverse
 * and the fixed-price `chargeNow`. Every command runs in a transaction that first locks
 * the account's credit_balances row (`select ... for update`), so commands on one account
 * serialise there and a charge decides against the balance every earlier charge left.
 * Commands that arrive together share a transaction, across accounts (see `#commitGroup`).
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
 *
 * Charges and reversals are counted for the operators' metrics once their commit is
 * known: a batch's after its transaction, a command run in a caller's transaction after
 * that transaction, which callers open through `transaction` for this reason (a charge
 * rolled back with its run, such as a refused remote-fetch surcharge, is never counted).
 */
import { sql } from 'kysely';
import { VersionConflictError, type EventMetadata, type EventStore, type NewEvent, type StreamAppend } from '../../ports/event-store.ts';
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
import { decideReferenceReuse } from '../../domain/credits/payment-reference.ts';
import type { Clock, IdGenerator } from '../../ports/clock.ts';
import { noMetrics, type Metrics } from '../../ports/metrics.ts';
import { isConnectionLoss } from '../../db/connection-loss.ts';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { KeyedBatcher } from './keyed-batcher.ts';
import { rebuildLots } from './read-model.ts';
import { asDraws } from './stream-fold.ts';
import { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

export { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

/** The account credits are drawn from: the user's organisation when they have one, else the user. */
export function billingAccountOf(user: { readonly userId: string; readonly organizationId: string | null }): string {
  return user.organizationId ?? user.userId;
}

export type CreditsError =
  | LedgerError
  | { tag: 'UserNotFound' }
  /** The payment reference was already used for another account or amount. */
  | { tag: 'PaymentReferenceInUse'; paymentReference: string; accountId: string; amount: number };
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
  /** The external payment this grant is for: a grant is made once per reference. */
  readonly paymentReference?: string;
}

/** What a grant answers: the balance after it, its id, and whether it was made before under the same payment reference. */
export type Granted = Balance & { readonly grantId: string; readonly replayed: boolean };

/** Who asked, for the event metadata: an operator, a user, or the API call charged. */
export interface CreditsContext {
  readonly actor?: string;
  readonly requestId?: string;
}

export interface CreditsDeps {
  readonly db: Db;
  /** Must run `creditsReadModel` inline: the lock row and the loaded state come from it. */
  readonly store: EventStore<Trx>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Where committed charges and reversals are counted; nothing is counted without one. */
  readonly metrics?: Pick<Metrics, 'charged' | 'refunded'>;
}

/** What `#entries` reads, as PostgreSQL's JSON gives it (timestamps as ISO strings with an offset). */
interface EntrySlice {
  readonly lots: readonly { grantId: string; remaining: number; expiresAt: string | null }[];
  readonly reservations: readonly { reservationId: string; amount: number; requestRef: string; status: string; held: unknown }[];
  readonly charges: readonly { chargeId: string; amount: number; reversed: boolean; lots: unknown }[];
}

type Decided = { ok: true; events: LedgerEvent[]; after: Balance } | { ok: false; error: LedgerError };

/** One command of a batch, with the metadata of the call that sent it. */
interface LedgerItem {
  readonly command: LedgerCommand;
  readonly entryId: string | null;
  readonly meta: EventMetadata;
}

/** A balance row as a batch locks it. */
interface BalanceRow {
  readonly balance: number;
  readonly reserved: number;
  readonly version: number;
}

/** What a batch was about to append, so a commit whose answer was lost can be recognised. */
interface Plan {
  version: number;
  events: NewEvent[];
  results: Decided[];
  /** Spendable once the whole batch is applied. */
  balance: number;
}

/** Commands written in one transaction at most, over however many accounts; the next batch takes the rest. */
const MAX_BATCH = 256;
/**
 * Batches of several accounts committing at once. Each is a handful of statements whatever
 * its size; two let one be decided while the other's statements travel.
 */
const BATCHES_IN_FLIGHT = 2;
/** Accounts whose last known balance is kept for the no-round-trip pre-check. */
const KNOWN_BALANCES = 50_000;
/** Waits before asking again whether a batch whose commit went unanswered was recorded. */
const VERIFY_BACKOFF_MS = [0, 100, 400, 1_000];
/**
 * Waits before each further try of a batch whose connection was lost before it was written:
 * after a server restart every pooled connection is dead, and a try at once only finds the
 * next dead one; a moment later the pool has seen them close and opens fresh ones.
 */
const RETRY_BACKOFF_MS = [0, 25, 100, 400];

/** A sweep releases at most this many; the next sweep takes the rest. */
const LAPSED_HOLDS_PER_SWEEP = 500;

/** An ISO instant in one spelling (UTC, milliseconds), so lots compare and print alike; anything unparsable is left for the decider to refuse. */
function instant(value: string): string {
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

/**
 * The ledger ids of a priced call's one charge and one hold, made from the server's call
 * id: a retry that takes over a call whose holder died (see the idempotency record) meets
 * what that call already recorded instead of recording it twice.
 */
export const callChargeId = (callId: string) => `chg_${callId}`;
export const callReservationId = (callId: string) => `rsv_${callId}`;

/** A grant refused inside the transaction that claimed its payment reference: thrown so the claim rolls back. */
class RefusedGrant extends Error {
  constructor(readonly error: LedgerError) {
    super(`grant refused: ${error.tag}`);
  }
}

export class CreditsService {
  readonly #batcher: KeyedBatcher<LedgerItem, Decided>;
  /** Spendable balance each account was left with by the last commit this process saw. */
  readonly #known = new Map<string, number>();
  /** Events decided in a caller's transaction, counted once it commits (see `transaction`). */
  readonly #uncommitted = new WeakMap<Trx, LedgerEvent[]>();

  constructor(private readonly deps: CreditsDeps) {
    this.#batcher = new KeyedBatcher((groups) => this.#commitGroup(groups), { maxItems: MAX_BATCH, maxInFlight: BATCHES_IN_FLIGHT });
  }

  /**
   * Whether `price` looks covered, for the check before a priced call's work: answered
   * from the balance the last commit on this account left when that covers it, so a hot
   * account's calls cost no extra round trip; otherwise (unknown, or short) read fresh, so
   * a grant made elsewhere is never refused on a stale figure. The charge after the work
   * decides exactly; a balance spent elsewhere meanwhile ends there in the same 402.
   */
  async spendable(accountId: string, price: number): Promise<number> {
    const known = this.#known.get(accountId);
    if (known !== undefined && known >= price) return known;
    const fresh = await this.balance(accountId);
    this.#remember(accountId, fresh.balance);
    return fresh.balance;
  }

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

  /**
   * Releases every open hold past its `holdUntil`, whole; returns how many and how many
   * credits went back, counting only the releases this call recorded (a hold its owner
   * settled meanwhile, or another sweeper released, records nothing and is not counted).
   */
  async releaseLapsedHolds(): Promise<{ holds: number; released: number }> {
    const lapsed = await this.deps.db
      .selectFrom('creditReservations')
      .select(['accountId', 'reservationId'])
      .where('status', '=', 'open')
      .where('holdUntil', '<=', this.deps.clock.now())
      .orderBy('holdUntil')
      .limit(LAPSED_HOLDS_PER_SWEEP)
      .execute();
    let holds = 0;
    let released = 0;
    for (const hold of lapsed) {
      const meta = this.#meta({});
      const command: LedgerCommand = {
        type: 'ReleaseReservation',
        accountId: hold.accountId,
        reservationId: hold.reservationId,
        at: meta.occurredAt,
      };
      const decided = await this.#run(hold.accountId, command, hold.reservationId, meta);
      if (!decided.ok) throw new Error(`releasing lapsed hold ${hold.reservationId}: ${decided.error.tag}`);
      const back = decided.events.reduce((n, e) => n + (e.type === 'CreditsReleased' ? e.data.amount : 0), 0);
      if (back === 0) continue;
      holds += 1;
      released += back;
    }
    return { holds, released };
  }

  /**
   * Grants `input.amount`. With a payment reference the grant is made once (see
   * `#grantOnce`); in a caller's transaction a refused grant leaves its claim for that
   * transaction to roll back.
   */
  async grant(accountId: string, input: GrantInput, context: CreditsContext = {}, trx?: Trx): Promise<CreditsResult<Granted>> {
    const meta = this.#meta(context);
    const { paymentReference } = input;
    const command: LedgerCommand = {
      type: 'GrantCredits',
      accountId,
      grantId: `grt_${this.deps.ids.next()}`,
      amount: input.amount,
      source: input.source,
      expiresAt: input.expiresAt === undefined ? null : instant(input.expiresAt),
      note: input.note ?? null,
      ...(paymentReference === undefined ? {} : { paymentReference }),
      at: meta.occurredAt,
    };
    if (paymentReference === undefined) {
      const decided = await this.#run(accountId, command, command.grantId, meta, trx);
      return decided.ok ? { ok: true, value: { ...decided.after, grantId: command.grantId, replayed: false } } : decided;
    }
    if (trx) return this.#grantOnce(trx, command, paymentReference, meta);
    try {
      return await this.deps.db.transaction().execute((own) => this.#grantOnce(own, command, paymentReference, meta, true));
    } catch (error) {
      if (error instanceof RefusedGrant) return { ok: false, error: error.error };
      throw error;
    }
  }

  /**
   * Claims the payment reference, then grants, in one transaction: a concurrent duplicate's
   * insert waits on this claim's row and, once it commits, finds it and grants nothing. In
   * its own transaction (`rollback`) a refused grant is thrown so its claim is undone.
   */
  async #grantOnce(
    trx: Trx,
    command: Extract<LedgerCommand, { type: 'GrantCredits' }>,
    paymentReference: string,
    meta: EventMetadata,
    rollback = false,
  ): Promise<CreditsResult<Granted>> {
    const { accountId, grantId, amount, source, at } = command;
    const claimed = await trx
      .insertInto('creditPaymentReferences')
      .values({ paymentReference, accountId, grantId, amount, source, createdAt: new Date(at) })
      .onConflict((oc) => oc.column('paymentReference').doNothing())
      .returning('grantId')
      .executeTakeFirst();
    if (!claimed) {
      const existing = await trx
        .selectFrom('creditPaymentReferences')
        .select(['accountId', 'amount', 'grantId'])
        .where('paymentReference', '=', paymentReference)
        .executeTakeFirstOrThrow();
      const reuse = decideReferenceReuse(paymentReference, existing, { accountId, amount });
      if (reuse.tag === 'PaymentReferenceInUse')
        return {
          ok: false,
          error: { tag: 'PaymentReferenceInUse', paymentReference, accountId: existing.accountId, amount: existing.amount },
        };
      return { ok: true, value: { ...(await this.balance(accountId, trx)), grantId: reuse.grantId, replayed: true } };
    }
    const decided = await this.#run(accountId, command, grantId, meta, trx);
    if (decided.ok) return { ok: true, value: { ...decided.after, grantId, replayed: false } };
    if (rollback) throw new RefusedGrant(decided.error);
    return decided;
  }

  /** Grants to the billing account of `userId` (their organisation's when they have one). */
  async grantToUser(
    userId: string,
    input: GrantInput,
    context: CreditsContext = {},
  ): Promise<CreditsResult<Granted & { accountId: string }>> {
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
    reservationId = `rsv_${this.deps.ids.next()}`,
  ): Promise<CreditsResult<Balance & { reservationId: string }>> {
    const meta = this.#meta({ requestId: requestRef });
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
    // Settled before (a retry of a call whose holder died after settling): it charged what its charge row says.
    const charged = decided.events.length > 0 ? sum('CreditsCharged') : await this.#chargedUnder(accountId, reservationId, trx);
    return { ok: true, value: { ...decided.after, charged, released: sum('CreditsReleased') } };
  }

  async #chargedUnder(accountId: string, chargeId: string, trx?: Trx): Promise<number> {
    const row = await (trx ?? this.deps.db)
      .selectFrom('creditCharges')
      .select('amount')
      .where('accountId', '=', accountId)
      .where('chargeId', '=', chargeId)
      .executeTakeFirst();
    return row ? row.amount : 0;
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

  /**
   * Runs `work` in a transaction on the ledger's database and counts the charges and
   * reversals decided in it once it commits. Credit commands a caller runs in its own
   * transaction belong in one opened here; any other transaction's are not counted.
   */
  async transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    let decided: readonly LedgerEvent[] = [];
    const result = await this.deps.db.transaction().execute(async (trx) => {
      const value = await work(trx);
      decided = this.#uncommitted.get(trx) ?? [];
      return value;
    });
    this.#count(decided);
    return result;
  }

  #count(events: readonly LedgerEvent[]): void {
    const metrics = this.deps.metrics ?? noMetrics;
    for (const event of events) {
      if (event.type === 'CreditsCharged' && event.data.amount > 0) metrics.charged(event.data.amount);
      if (event.type === 'ChargeReversed' && event.data.amount > 0) metrics.refunded(event.data.amount);
    }
  }

  #meta(context: CreditsContext): EventMetadata {
    return {
      occurredAt: this.deps.clock.now().toISOString(),
      ...(context.actor ? { actor: context.actor } : {}),
      ...(context.requestId ? { requestId: context.requestId } : {}),
    };
  }

  /**
   * Outside a caller's transaction a command joins its account's next batch (see
   * keyed-batcher.ts); inside one it is decided and appended there, and the known balance
   * is forgotten, since that transaction may yet roll back.
   */
  async #run(accountId: string, command: LedgerCommand, entryId: string | null, meta: EventMetadata, trx?: Trx): Promise<Decided> {
    const item = { command, entryId, meta };
    if (!trx) return this.#batcher.submit(accountId, item);
    this.#known.delete(accountId);
    const [decided] = await this.#decideAndAppend(trx, accountId, [item], { version: 0, events: [], results: [], balance: 0 });
    if (decided?.ok) this.#uncommitted.set(trx, [...(this.#uncommitted.get(trx) ?? []), ...decided.events]);
    return decided as Decided;
  }

  /**
   * One transaction for the commands of several accounts: their balance rows locked in one
   * statement, their decision slices read in one, their events appended and projected in one,
   * so concurrent charges of many accounts share a commit. An account whose row another
   * transaction holds is skipped rather than waited for (as is one with no row yet, or lots
   * still to rebuild) and committed on its own afterwards by `#commitBatch`, so one busy
   * account never holds up the rest. A failed commit is handled as in `#commitBatch`: the
   * transaction is all or nothing, so one account's stream tells whether it was written.
   */
  async #commitGroup(
    groups: ReadonlyMap<string, readonly LedgerItem[]>,
    attempt = 1,
  ): Promise<Map<string, Decided[] | Promise<Decided[]>>> {
    const plans = new Map<string, Plan>();
    let skipped = [...groups.keys()];
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        const rows = await this.#lockFree(trx, [...groups.keys()]);
        skipped = [...groups.keys()].filter((accountId) => !rows.has(accountId));
        if (rows.size === 0) return;
        const locked = [...rows.keys()];
        const slices = await this.#entries(trx, locked, entryIdsOf(locked.flatMap((accountId) => groups.get(accountId) ?? [])));
        const appends: StreamAppend[] = [];
        for (const [accountId, row] of rows) {
          const plan = decideBatch(accountId, stateOf(row, slices.get(accountId)), row.version, groups.get(accountId) ?? []);
          plans.set(accountId, plan);
          if (plan.events.length > 0) appends.push({ streamId: ledgerStream(accountId), expected: row.version, events: plan.events });
        }
        const first = groups.values().next().value?.[0];
        if (appends.length > 0 && first)
          await this.deps.store.appendToStreams(appends, { streamType: LEDGER_STREAM_TYPE, metadata: first.meta, trx });
      });
    } catch (error) {
      const written = [...plans].find(([, plan]) => plan.events.length > 0);
      const recorded = written === undefined ? 'nothing' : await this.#wasRecorded(written[0], written[1]);
      if (recorded !== true) {
        if (!retriable(recorded, attempt, error)) throw error;
        await delay(RETRY_BACKOFF_MS[attempt - 1] ?? 0);
        return this.#commitGroup(groups, attempt + 1);
      }
    }
    const outcomes = new Map<string, Decided[] | Promise<Decided[]>>();
    for (const [accountId, plan] of plans) {
      this.#remember(accountId, plan.balance);
      this.#countBatch(plan.results);
      outcomes.set(accountId, plan.results);
    }
    for (const accountId of skipped) outcomes.set(accountId, this.#commitBatch(accountId, groups.get(accountId) ?? []));
    return outcomes;
  }

  /**
   * Locks the balance rows of these accounts that no other transaction holds, whose lots are
   * ready, in one statement; the rest are left out (`skip locked`), so this never waits.
   */
  async #lockFree(trx: Trx, accountIds: readonly string[]): Promise<Map<string, BalanceRow>> {
    const { rows } = await sql<BalanceRow & { accountId: string }>`
      select account_id as "accountId", balance, reserved, version from credit_balances
      where account_id in (select jsonb_array_elements_text(${JSON.stringify(accountIds)}::text::jsonb)) and lots_ready
      for update skip locked`.execute(trx);
    return new Map(rows.map((row) => [row.accountId, row]));
  }

  /**
   * One transaction for the batch. When it fails, a batch that was written all the same
   * (its commit's answer was lost) answers as written; one lost with its connection, and
   * shown not written, is sent again on another connection (a pool can hold several the
   * server has ended), so a dropped connection does not fail paid calls; anything else
   * fails the batch's callers.
   */
  async #commitBatch(accountId: string, items: readonly LedgerItem[], attempt = 1): Promise<Decided[]> {
    const plan: Plan = { version: 0, events: [], results: [], balance: 0 };
    try {
      const results = await this.deps.db.transaction().execute((trx) => this.#decideAndAppend(trx, accountId, items, plan));
      this.#remember(accountId, plan.balance);
      this.#countBatch(results);
      return results;
    } catch (error) {
      const recorded = plan.events.length === 0 ? 'nothing' : await this.#wasRecorded(accountId, plan);
      if (recorded === true) {
        this.#remember(accountId, plan.balance);
        this.#countBatch(plan.results);
        return plan.results;
      }
      if (!retriable(recorded, attempt, error)) throw error;
      await delay(RETRY_BACKOFF_MS[attempt - 1] ?? 0);
      return this.#commitBatch(accountId, items, attempt + 1);
    }
  }

  /**
   * After a failed commit (the connection dropped, the server stopped): whether the batch's
   * events are in the stream all the same, which happens when the commit went through and
   * only its answer was lost. Its positions were claimed at the version the batch read, so
   * they hold its events exactly when it committed; callers then get their results, not an
   * error for a charge that was made. 'unknown' when the database did not answer meanwhile.
   */
  async #wasRecorded(accountId: string, plan: Plan): Promise<boolean | 'unknown'> {
    for (const wait of VERIFY_BACKOFF_MS) {
      await delay(wait);
      try {
        const { events } = await this.deps.store.readStream(ledgerStream(accountId), plan.version + 1);
        const rows = events.slice(0, plan.events.length);
        return (
          rows.length === plan.events.length && rows.every((row, i) => canonicalJson(row.data) === canonicalJson(plan.events[i]?.data))
        );
      } catch {
        continue;
      }
    }
    return 'unknown';
  }

  #countBatch(results: readonly Decided[]): void {
    for (const result of results) if (result.ok) this.#count(result.events);
  }

  #remember(accountId: string, balance: number): void {
    this.#known.delete(accountId);
    this.#known.set(accountId, balance);
    if (this.#known.size > KNOWN_BALANCES) this.#known.delete(this.#known.keys().next().value as string);
  }

  /**
   * Decides the batch on its account's state and appends its events at once: one lock, one
   * version claim, one projection for the batch.
   */
  async #decideAndAppend(trx: Trx, accountId: string, items: readonly LedgerItem[], plan: Plan): Promise<Decided[]> {
    const entryIds = entryIdsOf(items);
    for (let attempt = 0; ; attempt += 1) {
      const { state, version } = await this.#load(trx, accountId, entryIds);
      Object.assign(plan, decideBatch(accountId, state, version, items));
      try {
        if (plan.events.length > 0) {
          await this.deps.store.append(ledgerStream(accountId), version, plan.events, {
            streamType: LEDGER_STREAM_TYPE,
            metadata: items[0]!.meta,
            trx,
          });
        }
        return plan.results;
      } catch (error) {
        // Only an account's very first append can race (there is no row to lock yet); the
        // loser finds the winner's row on the second pass. A conflict is no SQL error, so
        // the transaction is still usable.
        if (!(error instanceof VersionConflictError) || attempt > 0) throw error;
        Object.assign(plan, { version: 0, events: [], results: [], balance: 0 });
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
   * charge under each id the batch's commands name (all: the decider checks the id spaces do not
   * meet): its decision slice. An account whose lots predate lots gets them first.
   */
  async #load(trx: Trx, accountId: string, entryIds: readonly string[]): Promise<{ state: LedgerState; version: number }> {
    const row = await trx
      .selectFrom('creditBalances')
      .select(['balance', 'reserved', 'version', 'lotsReady'])
      .where('accountId', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    if (row) {
      if (!row.lotsReady) await rebuildLots(trx, this.deps.store, accountId, this.deps.clock.now());
      // A statement after the lock's, so it reads what the commit the lock waited for wrote.
      const slices = await this.#entries(trx, [accountId], entryIds);
      return { state: stateOf(row, slices.get(accountId)), version: row.version };
    }
    return { state: { available: 0, reserved: 0, lots: {}, reservations: {}, charges: {} }, version: 0 };
  }

  /**
   * Per account: the lots holding credits (and any the batch names), and the reservations
   * and charges under the batch's ids, in one statement however many accounts: a batch's
   * reads cost one round trip. Its text does not depend on the number of ids (one prepared
   * statement).
   */
  async #entries(trx: Trx, accountIds: readonly string[], entryIds: readonly string[]): Promise<Map<string, EntrySlice>> {
    const { rows } = await sql<EntrySlice & { accountId: string }>`
      with ids as (select jsonb_array_elements_text(${JSON.stringify(entryIds)}::text::jsonb) as id)
      select a.account_id as "accountId",
        (select coalesce(jsonb_agg(jsonb_build_object('grantId', grant_id, 'remaining', remaining, 'expiresAt', expires_at)), '[]'::jsonb)
          from credit_lots where account_id = a.account_id and (remaining > 0 or grant_id in (select id from ids))) as lots,
        (select coalesce(jsonb_agg(jsonb_build_object('reservationId', reservation_id, 'amount', amount, 'requestRef', request_ref, 'status', status, 'held', held)), '[]'::jsonb)
          from credit_reservations where account_id = a.account_id and reservation_id in (select id from ids)) as reservations,
        (select coalesce(jsonb_agg(jsonb_build_object('chargeId', charge_id, 'amount', amount, 'reversed', reversed, 'lots', lots)), '[]'::jsonb)
          from credit_charges where account_id = a.account_id and charge_id in (select id from ids)) as charges
      from jsonb_array_elements_text(${JSON.stringify(accountIds)}::text::jsonb) as a(account_id)`.execute(trx);
    return new Map(rows.map(({ accountId, ...slice }) => [accountId, slice]));
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a batch that failed unwritten (shown so, not just unknown) goes again: its connection was lost, and tries are left. */
function retriable(recorded: boolean | 'nothing' | 'unknown', attempt: number, error: unknown): boolean {
  return recorded !== 'unknown' && recorded !== true && attempt <= RETRY_BACKOFF_MS.length && isConnectionLoss(error);
}

/** The ids a batch's commands name (lots, reservations, charges), each once. */
function entryIdsOf(items: readonly LedgerItem[]): string[] {
  return [...new Set(items.flatMap((i) => (i.entryId === null ? [] : [i.entryId])))];
}

/** A locked balance row and its decision slice as the decider's state. */
function stateOf(row: BalanceRow, slice: EntrySlice | undefined): LedgerState {
  const lots: Record<string, Lot> = {};
  const reservations: Record<string, Reservation> = {};
  const charges: Record<string, Charge> = {};
  for (const lot of slice?.lots ?? [])
    lots[lot.grantId] = { remaining: lot.remaining, expiresAt: lot.expiresAt === null ? null : new Date(lot.expiresAt).toISOString() };
  for (const r of slice?.reservations ?? []) {
    const status = r.status === 'open' ? 'open' : 'settled';
    reservations[r.reservationId] = { amount: r.amount, requestRef: r.requestRef, status, held: asDraws(r.held) };
  }
  for (const charge of slice?.charges ?? [])
    charges[charge.chargeId] = { amount: charge.amount, reversed: charge.reversed, lots: asDraws(charge.lots) };
  return { available: row.balance, reserved: row.reserved, lots, reservations, charges };
}

/**
 * Decides one account's commands in order, each on the state the ones before it left; the
 * events to append at `version`, each caller's result, and the balance after them all.
 */
function decideBatch(accountId: string, state: LedgerState, version: number, items: readonly LedgerItem[]): Plan {
  let current = state;
  const events: NewEvent[] = [];
  const results: Decided[] = [];
  for (const { command, meta } of items) {
    const decision = decideLedger(command, current);
    // A refusal was decided after the expiries due at its time: those are recorded all the same.
    const decided = decision.ok ? decision.events : dueExpiries(current, accountId, command.at);
    current = fold(evolveLedger, current, decided);
    const after = { balance: current.available, reserved: current.reserved };
    results.push(decision.ok ? { ok: true, events: decided, after } : decision);
    for (const event of decided) events.push({ ...event, metadata: meta });
  }
  return { version, events, results, balance: current.available };
}
