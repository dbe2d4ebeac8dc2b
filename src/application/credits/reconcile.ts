/**
 * Finance reconciliation of the credit ledger against its read models, the audit trail and
 * ClickHouse usage. Three checks, each reported as typed differences:
 *
 * - Ledger: every credit_balances row (balance, reserved, version), reservation row and
 *   charge row equals the fold of its ledger stream with the domain's `evolveLedger`; every
 *   stream has a balance row and every balance row a stream. Always the whole history (a
 *   balance is the fold of all of it), whatever the range.
 * - Audit: every request charged in the range has one audit event with the same requestId,
 *   the same billing account, creditsDeducted equal to the credits charged for it, and a
 *   success status (< 400) unless its charges were all reversed; every audited request in
 *   the range with creditsDeducted > 0 has ledger charges. A reversal is a refund recorded
 *   after the answer: the audit event keeps what was deducted when the call answered, so
 *   charges are compared gross and reversals only lift the success requirement.
 * - Usage: ClickHouse's sum of credits_deducted (audit_events FINAL) equals the ledger's
 *   gross charges per billing account and UTC day. A request is dated by its audit event
 *   (the day usage shows it), or by its charge when it has none. Without ClickHouse this
 *   check does not run and the report says so: the reconciliation is then incomplete.
 *
 * Memory: ledger events are read in pages ordered by stream, so one account's entries are
 * held at a time (in batches of accounts for the read-model lookups); charged requests of
 * the range and their audit matches are held until the end, so reconcile a long history
 * period by period. Audit events are read in pages too.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { toRecorded } from '../../adapters/postgres/event-store.ts';
import { AUDIT_EVENT_TYPE, type ApiRequestRecorded } from '../../domain/audit/audit.ts';
import { evolveLedger, type Charge, type LedgerEvent, type Reservation } from '../../domain/credits/ledger.ts';
import type { AnalyticsStore } from '../../ports/analytics.ts';
import { LEDGER_STREAM_TYPE, ledgerStream } from './credits-service.ts';

const PAGE = 1_000;
const ACCOUNT_BATCH = 200;
/** Charges and audit events this close outside the range are read to match the ones inside. */
const MARGIN_MS = 24 * 60 * 60 * 1000;

export interface ReconcileRange {
  /** Inclusive; undefined: from the beginning. */
  readonly from?: Date | undefined;
  /** Exclusive; undefined: up to now. */
  readonly to?: Date | undefined;
  readonly accountId?: string | undefined;
}

export interface ReconcileDeps {
  readonly db: Db;
  /** null when it could not be opened; `analyticsUnavailable` then says why. */
  readonly analytics: AnalyticsStore | null;
  readonly analyticsUnavailable?: string;
  /** Milliseconds, for the elapsed time. */
  readonly now?: () => number;
}

interface Balances {
  readonly balance: number;
  readonly reserved: number;
  readonly version: number;
}

export type ReconcileDifference =
  | { kind: 'balance-mismatch'; accountId: string; readModel: Balances; ledger: Balances }
  | { kind: 'balance-row-missing'; accountId: string; ledger: Balances }
  | { kind: 'balance-row-without-ledger'; accountId: string; readModel: Balances }
  | { kind: 'reservation-mismatch'; accountId: string; reservationId: string; readModel: Reservation | null; ledger: Reservation | null }
  | { kind: 'charge-row-mismatch'; accountId: string; chargeId: string; readModel: Charge | null; ledger: Charge | null }
  | { kind: 'charge-without-audit'; accountId: string; requestId: string; charged: number }
  | { kind: 'charge-account-mismatch'; requestId: string; ledgerAccountId: string; auditAccountId: string; charged: number }
  | { kind: 'audit-credits-mismatch'; accountId: string; requestId: string; audited: number; charged: number }
  | { kind: 'charge-on-failed-request'; accountId: string; requestId: string; status: number; charged: number }
  | { kind: 'audit-without-charge'; accountId: string; requestId: string; audited: number }
  | { kind: 'audit-duplicated'; accountId: string; requestId: string; events: number }
  | { kind: 'usage-mismatch'; accountId: string; day: string; clickhouse: number; ledger: number };

export interface ReconcileReport {
  readonly range: { from: string | null; to: string | null; accountId: string | null };
  readonly differences: ReconcileDifference[];
  readonly checked: {
    accounts: number;
    ledgerEvents: number;
    reservations: number;
    charges: number;
    chargedRequests: number;
    auditEvents: number;
    usageDays: number;
  };
  /** The ClickHouse check: run, or why not. The reconciliation is complete only when it ran. */
  readonly usage: { ran: true } | { ran: false; reason: string };
  readonly elapsedMs: number;
}

interface ChargeEntry extends Charge {
  readonly requestRef: string;
  readonly chargedAt: Date;
}

/** One stream's fold, with the entry maps the domain's evolve touches one entry at a time. */
interface StreamFold {
  readonly accountId: string;
  available: number;
  reserved: number;
  version: number;
  readonly reservations: Map<string, Reservation>;
  readonly charges: Map<string, ChargeEntry>;
}

interface ChargedRequest {
  readonly accountId: string;
  gross: number;
  reversed: number;
  readonly firstChargedAt: Date;
  audits: ApiRequestRecorded[];
}

const billingAccount = (audit: ApiRequestRecorded) => audit.organizationId ?? audit.userId;
const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const inRange = (at: Date, range: ReconcileRange) =>
  (range.from === undefined || at >= range.from) && (range.to === undefined || at < range.to);
const inWindow = (at: Date, range: ReconcileRange) =>
  (range.from === undefined || at.getTime() >= range.from.getTime() - MARGIN_MS) &&
  (range.to === undefined || at.getTime() < range.to.getTime() + MARGIN_MS);

/**
 * Applies one event with `evolveLedger` to the slice of state it touches (the balances and
 * the one reservation and charge it names), as the credits service decides on a slice:
 * folding whole maps copies them per event, quadratic on a busy account's stream.
 */
function applyEvent(fold: StreamFold, event: LedgerEvent, position: number, recordedAt: Date): void {
  const reservationId = 'reservationId' in event.data ? event.data.reservationId : null;
  const chargeId = 'chargeId' in event.data ? event.data.chargeId : null;
  const reservation = reservationId === null ? undefined : fold.reservations.get(reservationId);
  const charge = chargeId === null ? undefined : fold.charges.get(chargeId);
  const next = evolveLedger(
    {
      available: fold.available,
      reserved: fold.reserved,
      reservations: reservationId !== null && reservation ? { [reservationId]: reservation } : {},
      charges: chargeId !== null && charge ? { [chargeId]: charge } : {},
    },
    event,
  );
  fold.available = next.available;
  fold.reserved = next.reserved;
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
async function* foldStreams(db: Db, accountId: string | undefined, count: (events: number) => void): AsyncGenerator<StreamFold> {
  let current: StreamFold | undefined;
  for (let after: [string, number] = ['', 0]; ;) {
    const rows = await db
      .selectFrom('events')
      .innerJoin('streams', 'streams.streamId', 'events.streamId')
      .selectAll('events')
      .where('streams.streamType', '=', LEDGER_STREAM_TYPE)
      .$if(accountId !== undefined, (qb) => qb.where('events.streamId', '=', ledgerStream(accountId ?? '')))
      .where((eb) => eb(eb.refTuple('events.streamId', 'events.streamPosition'), '>', eb.tuple(after[0], after[1])))
      .orderBy('events.streamId')
      .orderBy('events.streamPosition')
      .limit(PAGE)
      .execute();
    count(rows.length);
    for (const recorded of rows.map(toRecorded)) {
      const event = { type: recorded.type, data: recorded.data } as LedgerEvent;
      if (current?.accountId !== event.data.accountId) {
        if (current) yield current;
        current = { accountId: event.data.accountId, available: 0, reserved: 0, version: 0, reservations: new Map(), charges: new Map() };
      }
      applyEvent(current, event, recorded.streamPosition, recorded.recordedAt);
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) break;
    after = [last.streamId, last.streamPosition];
  }
  if (current) yield current;
}

const sameReservation = (a: Reservation, b: Reservation) => a.amount === b.amount && a.requestRef === b.requestRef && a.status === b.status;

/** Compares a batch of folded streams with their credit_balances, reservation and charge rows. */
async function compareReadModels(db: Db, folds: readonly StreamFold[], differences: ReconcileDifference[]): Promise<void> {
  const ids = folds.map((f) => f.accountId);
  const [balances, reservations, charges] = await Promise.all([
    db.selectFrom('creditBalances').select(['accountId', 'balance', 'reserved', 'version']).where('accountId', 'in', ids).execute(),
    db
      .selectFrom('creditReservations')
      .select(['accountId', 'reservationId', 'amount', 'requestRef', 'status'])
      .where('accountId', 'in', ids)
      .execute(),
    db.selectFrom('creditCharges').select(['accountId', 'chargeId', 'amount', 'reversed']).where('accountId', 'in', ids).execute(),
  ]);
  const balanceOf = new Map(balances.map((b) => [b.accountId, b]));
  for (const fold of folds) {
    const ledger = { balance: fold.available, reserved: fold.reserved, version: fold.version };
    const row = balanceOf.get(fold.accountId);
    if (!row) differences.push({ kind: 'balance-row-missing', accountId: fold.accountId, ledger });
    else if (row.balance !== ledger.balance || row.reserved !== ledger.reserved || row.version !== ledger.version) {
      const { accountId, ...readModel } = row;
      differences.push({ kind: 'balance-mismatch', accountId, readModel, ledger });
    }
  }
  const foldOf = new Map(folds.map((f) => [f.accountId, f]));
  const seenReservations = new Set<string>();
  for (const row of reservations) {
    const fold = foldOf.get(row.accountId)!;
    const readModel: Reservation = { amount: row.amount, requestRef: row.requestRef, status: row.status === 'open' ? 'open' : 'settled' };
    const ledger = fold.reservations.get(row.reservationId) ?? null;
    seenReservations.add(`${row.accountId}\u0000${row.reservationId}`);
    if (!ledger || !sameReservation(ledger, readModel) || (row.status !== 'open' && row.status !== 'settled')) {
      differences.push({ kind: 'reservation-mismatch', accountId: row.accountId, reservationId: row.reservationId, readModel, ledger });
    }
  }
  const seenCharges = new Set<string>();
  for (const row of charges) {
    const entry = foldOf.get(row.accountId)!.charges.get(row.chargeId);
    const ledger = entry ? { amount: entry.amount, reversed: entry.reversed } : null;
    seenCharges.add(`${row.accountId}\u0000${row.chargeId}`);
    if (ledger?.amount !== row.amount || ledger.reversed !== row.reversed) {
      const readModel = { amount: row.amount, reversed: row.reversed };
      differences.push({ kind: 'charge-row-mismatch', accountId: row.accountId, chargeId: row.chargeId, readModel, ledger });
    }
  }
  for (const fold of folds) {
    for (const [reservationId, ledger] of fold.reservations) {
      if (!seenReservations.has(`${fold.accountId}\u0000${reservationId}`)) {
        differences.push({ kind: 'reservation-mismatch', accountId: fold.accountId, reservationId, readModel: null, ledger });
      }
    }
    for (const [chargeId, entry] of fold.charges) {
      if (!seenCharges.has(`${fold.accountId}\u0000${chargeId}`)) {
        const ledger = { amount: entry.amount, reversed: entry.reversed };
        differences.push({ kind: 'charge-row-mismatch', accountId: fold.accountId, chargeId, readModel: null, ledger });
      }
    }
  }
}

/** credit_balances rows whose account has no ledger stream at all. */
async function balancesWithoutLedger(db: Db, accountId: string | undefined, differences: ReconcileDifference[]): Promise<void> {
  const rows = await db
    .selectFrom('creditBalances')
    .select(['accountId', 'balance', 'reserved', 'version'])
    .$if(accountId !== undefined, (qb) => qb.where('accountId', '=', accountId ?? ''))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('streams')
            .select('streamId')
            .where('streams.streamId', '=', sql<string>`${`${LEDGER_STREAM_TYPE}-`}::text || credit_balances.account_id`),
        ),
      ),
    )
    .execute();
  for (const { accountId: id, ...readModel } of rows) differences.push({ kind: 'balance-row-without-ledger', accountId: id, readModel });
}

/** Audit events recorded in the range widened by the margin, page by page. */
async function* auditEvents(db: Db, range: ReconcileRange): AsyncGenerator<ApiRequestRecorded> {
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('events')
      .select(['globalPosition', 'data'])
      .where('type', '=', AUDIT_EVENT_TYPE)
      .where('globalPosition', '>', after)
      .$if(range.from !== undefined, (qb) => qb.where('recordedAt', '>=', new Date((range.from?.getTime() ?? 0) - MARGIN_MS)))
      .$if(range.to !== undefined, (qb) => qb.where('recordedAt', '<', new Date((range.to?.getTime() ?? 0) + MARGIN_MS)))
      .orderBy('globalPosition')
      .limit(PAGE)
      .execute();
    for (const row of rows) yield row.data as ApiRequestRecorded;
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) return;
    after = last.globalPosition;
  }
}

/** Checks each charged request of the range against its audit event; returns the ledger's usage per account and day. */
function compareRequests(
  requests: ReadonlyMap<string, ChargedRequest[]>,
  range: ReconcileRange,
  differences: ReconcileDifference[],
): Map<string, number> {
  const usage = new Map<string, number>();
  for (const [requestId, charged] of requests) {
    for (const request of charged) {
      const audit = request.audits[0];
      const day = audit ? new Date(audit.occurredAt) : request.firstChargedAt;
      if (!inRange(day, range)) continue;
      const key = `${request.accountId}\u0000${utcDay(day)}`;
      usage.set(key, (usage.get(key) ?? 0) + request.gross);
      const { accountId, gross: chargedCredits } = request;
      if (!audit) {
        differences.push({ kind: 'charge-without-audit', accountId, requestId, charged: chargedCredits });
        continue;
      }
      if (request.audits.length > 1) differences.push({ kind: 'audit-duplicated', accountId, requestId, events: request.audits.length });
      if (billingAccount(audit) !== accountId) {
        const auditAccountId = billingAccount(audit);
        differences.push({
          kind: 'charge-account-mismatch',
          requestId,
          ledgerAccountId: accountId,
          auditAccountId,
          charged: chargedCredits,
        });
      } else if (audit.creditsDeducted !== chargedCredits) {
        differences.push({ kind: 'audit-credits-mismatch', accountId, requestId, audited: audit.creditsDeducted, charged: chargedCredits });
      }
      if (audit.status >= 400 && request.reversed < request.gross) {
        differences.push({ kind: 'charge-on-failed-request', accountId, requestId, status: audit.status, charged: chargedCredits });
      }
    }
  }
  return usage;
}

/** ClickHouse usage per account and day against the ledger's; returns how many account-days were compared. */
async function compareUsage(
  analytics: AnalyticsStore,
  range: ReconcileRange,
  ledger: ReadonlyMap<string, number>,
  differences: ReconcileDifference[],
): Promise<number> {
  const clauses = ['credits_deducted > 0'];
  const params: Record<string, Date | string> = {};
  if (range.from) {
    clauses.push("occurred_at >= {from:DateTime64(3, 'UTC')}");
    params.from = range.from;
  }
  if (range.to) {
    clauses.push("occurred_at < {to:DateTime64(3, 'UTC')}");
    params.to = range.to;
  }
  if (range.accountId !== undefined) {
    clauses.push('coalesce(organization_id, user_id) = {account:String}');
    params.account = range.accountId;
  }
  const rows = await analytics.query<{ account: string; day: string; credits: string }>(
    `SELECT coalesce(organization_id, user_id) AS account, toString(toDate(occurred_at)) AS day, sum(credits_deducted) AS credits
     FROM audit_events FINAL WHERE ${clauses.join(' AND ')}
     GROUP BY account, day`,
    params,
  );
  const clickhouse = new Map(rows.map((r) => [`${r.account}\u0000${r.day}`, Number(r.credits)]));
  const keys = new Set([...clickhouse.keys(), ...ledger.keys()]);
  for (const key of [...keys].sort()) {
    const [accountId = '', day = ''] = key.split('\u0000');
    const fromClickHouse = clickhouse.get(key) ?? 0;
    const fromLedger = ledger.get(key) ?? 0;
    if (fromClickHouse !== fromLedger)
      differences.push({ kind: 'usage-mismatch', accountId, day, clickhouse: fromClickHouse, ledger: fromLedger });
  }
  return keys.size;
}

export async function reconcileLedger(deps: ReconcileDeps, range: ReconcileRange): Promise<ReconcileReport> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const differences: ReconcileDifference[] = [];
  const checked = { accounts: 0, ledgerEvents: 0, reservations: 0, charges: 0, chargedRequests: 0, auditEvents: 0, usageDays: 0 };
  const requests = new Map<string, ChargedRequest[]>();

  let batch: StreamFold[] = [];
  const flush = async () => {
    if (batch.length > 0) await compareReadModels(deps.db, batch, differences);
    batch = [];
  };
  for await (const fold of foldStreams(deps.db, range.accountId, (n) => (checked.ledgerEvents += n))) {
    checked.accounts += 1;
    checked.reservations += fold.reservations.size;
    checked.charges += fold.charges.size;
    for (const charge of fold.charges.values()) {
      if (!inWindow(charge.chargedAt, range)) continue;
      const list = requests.get(charge.requestRef) ?? [];
      let request = list.find((r) => r.accountId === fold.accountId);
      if (!request) {
        request = { accountId: fold.accountId, gross: 0, reversed: 0, firstChargedAt: charge.chargedAt, audits: [] };
        list.push(request);
        requests.set(charge.requestRef, list);
      }
      request.gross += charge.amount;
      if (charge.reversed) request.reversed += charge.amount;
    }
    batch.push(fold);
    if (batch.length >= ACCOUNT_BATCH) await flush();
  }
  await flush();
  await balancesWithoutLedger(deps.db, range.accountId, differences);

  for await (const audit of auditEvents(deps.db, range)) {
    const account = billingAccount(audit);
    const charged = requests.get(audit.requestId);
    if (charged) {
      for (const request of charged) request.audits.push(audit);
      continue;
    }
    if (range.accountId !== undefined && account !== range.accountId) continue;
    if (!inRange(new Date(audit.occurredAt), range)) continue;
    checked.auditEvents += 1;
    if (audit.creditsDeducted > 0) {
      differences.push({ kind: 'audit-without-charge', accountId: account, requestId: audit.requestId, audited: audit.creditsDeducted });
    }
  }
  for (const charged of requests.values()) {
    for (const request of charged) {
      const audit = request.audits[0];
      if (inRange(audit ? new Date(audit.occurredAt) : request.firstChargedAt, range)) {
        checked.chargedRequests += 1;
        if (audit) checked.auditEvents += 1;
      }
    }
  }
  const ledgerUsage = compareRequests(requests, range, differences);

  let usage: ReconcileReport['usage'] = { ran: true };
  if (deps.analytics === null) usage = { ran: false, reason: deps.analyticsUnavailable ?? 'analytics store not configured' };
  else {
    try {
      checked.usageDays = await compareUsage(deps.analytics, range, ledgerUsage, differences);
    } catch (error) {
      usage = { ran: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }
  return {
    range: { from: range.from?.toISOString() ?? null, to: range.to?.toISOString() ?? null, accountId: range.accountId ?? null },
    differences,
    checked,
    usage,
    elapsedMs: Math.round(now() - started),
  };
}
