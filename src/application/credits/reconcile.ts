/**
 * Finance reconciliation of the credit ledger against its read models, the audit trail and
 * ClickHouse usage. Three checks, each reported as typed differences:
 *
 * - Ledger: every credit_balances row (balance, reserved, version), reservation row (with
 *   the lots it holds), charge row (with the lots it was paid from) and credit_lots row
 *   (remaining, expiry) equals the fold of its ledger stream with the domain's
 *   `evolveLedger`; every stream has a balance row and every balance row a stream. Always the whole history (a
 *   balance is the fold of all of it), whatever the range.
 * - Audit: every request charged in the range has one audit event with the same requestId
 *   (or callId: a retry that took over a call its instance died holding),
 *   the same billing account and creditsDeducted equal to the credits charged for it;
 *   every audited request in the range with creditsDeducted > 0 has ledger charges. A
 *   request that succeeded is compared gross: a reversal after the answer (a run that
 *   failed later) is a refund the audit event, written at the answer, cannot show. A
 *   request answered with an error must keep nothing: charges it made before answering
 *   (work admitted, then refused because the workflow engine could not start it) must all
 *   be reversed, and its audit event says 0.
 * - Usage: ClickHouse's sum of credits_deducted (audit_events FINAL) equals the ledger's
 *   charges, counted as the audit check counts them, per billing account and UTC day. A request is dated by its audit event
 *   (the day usage shows it), or by its charge when it has none. Without ClickHouse this
 *   check does not run and the report says so: the reconciliation is then incomplete.
 *
 * Memory: ledger events are read in pages ordered by stream (see stream-fold.ts), so one account's entries are
 * held at a time (in batches of accounts for the read-model lookups); charged requests of
 * the range and their audit matches are held until the end, so reconcile a long history
 * period by period. Audit events are read in pages too.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { AUDIT_EVENT_TYPE, type ApiRequestRecorded } from '../../domain/audit/audit.ts';
import type { Charge, Lot, LotDraw, Reservation } from '../../domain/credits/ledger.ts';
import type { AnalyticsStore } from '../../ports/analytics.ts';
import type { EventStore } from '../../ports/event-store.ts';
import { asDraws, foldLedgerStreams, type StreamFold } from './stream-fold.ts';
import { LEDGER_STREAM_TYPE } from './streams.ts';

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
  /** The event log over the same database: the ledger streams and the audit trail are read through it. */
  readonly events: EventStore<Trx>;
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
  | { kind: 'lot-mismatch'; accountId: string; grantId: string; readModel: Lot | null; ledger: Lot | null }
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
    lots: number;
    chargedRequests: number;
    auditEvents: number;
    usageDays: number;
  };
  /** The ClickHouse check: run, or why not. The reconciliation is complete only when it ran. */
  readonly usage: { ran: true } | { ran: false; reason: string };
  readonly elapsedMs: number;
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

/** Instants compare as instants: an expiry may be spelled differently in an event and read back from a row. */
const sameInstant = (a: string | null, b: string | null) => (a === null || b === null ? a === b : Date.parse(a) === Date.parse(b));
const drawKey = (draws: readonly LotDraw[]) =>
  draws
    .map((d) => `${d.grantId}\u0000${String(d.amount)}\u0000${d.expiresAt === null ? '' : String(Date.parse(d.expiresAt))}`)
    .sort()
    .join('\u0001');
const sameReservation = (a: Reservation, b: Reservation) =>
  a.amount === b.amount && a.requestRef === b.requestRef && a.status === b.status && drawKey(a.held) === drawKey(b.held);
const sameCharge = (a: Charge, b: Charge) => a.amount === b.amount && a.reversed === b.reversed && drawKey(a.lots) === drawKey(b.lots);
const sameLot = (a: Lot, b: Lot) => a.remaining === b.remaining && sameInstant(a.expiresAt, b.expiresAt);

/** Compares a batch of folded streams with their credit_balances, reservation and charge rows. */
async function compareReadModels(db: Db, folds: readonly StreamFold[], differences: ReconcileDifference[]): Promise<void> {
  const ids = folds.map((f) => f.accountId);
  const [balances, reservations, charges, lots] = await Promise.all([
    db.selectFrom('creditBalances').select(['accountId', 'balance', 'reserved', 'version']).where('accountId', 'in', ids).execute(),
    db
      .selectFrom('creditReservations')
      .select(['accountId', 'reservationId', 'amount', 'requestRef', 'status', 'held'])
      .where('accountId', 'in', ids)
      .execute(),
    db.selectFrom('creditCharges').select(['accountId', 'chargeId', 'amount', 'reversed', 'lots']).where('accountId', 'in', ids).execute(),
    db.selectFrom('creditLots').select(['accountId', 'grantId', 'remaining', 'expiresAt']).where('accountId', 'in', ids).execute(),
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
    const status = row.status === 'open' ? 'open' : 'settled';
    const readModel: Reservation = { amount: row.amount, requestRef: row.requestRef, status, held: asDraws(row.held) };
    const ledger = fold.reservations.get(row.reservationId) ?? null;
    seenReservations.add(`${row.accountId}\u0000${row.reservationId}`);
    if (!ledger || !sameReservation(ledger, readModel) || (row.status !== 'open' && row.status !== 'settled')) {
      differences.push({ kind: 'reservation-mismatch', accountId: row.accountId, reservationId: row.reservationId, readModel, ledger });
    }
  }
  const seenCharges = new Set<string>();
  for (const row of charges) {
    const entry = foldOf.get(row.accountId)!.charges.get(row.chargeId);
    const ledger = entry ? { amount: entry.amount, reversed: entry.reversed, lots: entry.lots } : null;
    seenCharges.add(`${row.accountId}\u0000${row.chargeId}`);
    const readModel = { amount: row.amount, reversed: row.reversed, lots: asDraws(row.lots) };
    if (!ledger || !sameCharge(ledger, readModel)) {
      differences.push({ kind: 'charge-row-mismatch', accountId: row.accountId, chargeId: row.chargeId, readModel, ledger });
    }
  }
  const seenLots = new Set<string>();
  for (const row of lots) {
    const ledger = foldOf.get(row.accountId)!.lots[row.grantId] ?? null;
    seenLots.add(`${row.accountId}\u0000${row.grantId}`);
    const readModel = { remaining: row.remaining, expiresAt: row.expiresAt?.toISOString() ?? null };
    if (!ledger || !sameLot(ledger, readModel)) {
      differences.push({ kind: 'lot-mismatch', accountId: row.accountId, grantId: row.grantId, readModel, ledger });
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
        const ledger = { amount: entry.amount, reversed: entry.reversed, lots: entry.lots };
        differences.push({ kind: 'charge-row-mismatch', accountId: fold.accountId, chargeId, readModel: null, ledger });
      }
    }
    for (const [grantId, ledger] of Object.entries(fold.lots)) {
      if (!seenLots.has(`${fold.accountId}\u0000${grantId}`)) {
        differences.push({ kind: 'lot-mismatch', accountId: fold.accountId, grantId, readModel: null, ledger });
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
async function* auditEvents(events: EventStore<Trx>, range: ReconcileRange): AsyncGenerator<ApiRequestRecorded> {
  for (let after = 0; ;) {
    const rows = await events.readEventTypeByPosition({
      type: AUDIT_EVENT_TYPE,
      after,
      limit: PAGE,
      ...(range.from === undefined ? {} : { recordedFrom: new Date(range.from.getTime() - MARGIN_MS) }),
      ...(range.to === undefined ? {} : { recordedBefore: new Date(range.to.getTime() + MARGIN_MS) }),
    });
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
      // A call answered with an error may have been charged and refunded before it answered (work
      // admitted that the workflow engine could not start): its audit row and usage then carry what it
      // kept, nothing; a refund that comes after a success (a failed run) leaves the row's charge as it was.
      const answeredWithError = audit !== undefined && audit.status >= 400;
      const chargedCredits = answeredWithError ? request.gross - request.reversed : request.gross;
      usage.set(key, (usage.get(key) ?? 0) + chargedCredits);
      const { accountId } = request;
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
      if (answeredWithError && chargedCredits > 0) {
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
  const checked = { accounts: 0, ledgerEvents: 0, reservations: 0, charges: 0, lots: 0, chargedRequests: 0, auditEvents: 0, usageDays: 0 };
  const requests = new Map<string, ChargedRequest[]>();

  let batch: StreamFold[] = [];
  const flush = async () => {
    if (batch.length > 0) await compareReadModels(deps.db, batch, differences);
    batch = [];
  };
  for await (const fold of foldLedgerStreams(deps.events, range.accountId, { count: (n) => (checked.ledgerEvents += n) })) {
    checked.accounts += 1;
    checked.reservations += fold.reservations.size;
    checked.charges += fold.charges.size;
    checked.lots += Object.keys(fold.lots).length;
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

  for await (const audit of auditEvents(deps.events, range)) {
    const account = billingAccount(audit);
    const charged = requests.get(audit.callId ?? audit.requestId);
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
