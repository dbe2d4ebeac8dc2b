/**
 * `court-records finance export --from ISO --to ISO [--account ID] --format csv|jsonl`:
 * every credit ledger event recorded in [from, to) with its account's running balance
 * after it, on stdout, for reconciliation against payments. csv has a header row; jsonl
 * is one JSON object per line.
 *
 * `court-records finance reconcile [--from ISO --to ISO] [--account ID] [--format text|json]`:
 * checks balances against the ledger, charges against the audit trail and ClickHouse
 * usage against charges (see application/credits/reconcile.ts), prints each difference and
 * a summary. Exit 0: clean; 1: differences; 3: no differences, but the ClickHouse check
 * could not run, so the books are not known to agree.
 *
 * `court-records finance close --month YYYY-MM [--account ID] [--format text|json|csv] [--out DIR]`:
 * the month-end close (see domain/credits/close.ts), months in IST: per account and in
 * total, opening balance, purchases, grants, corrections, consumption by endpoint, refunds,
 * expiries and closing balance, in credits and rupees, proved against the ledger and the
 * stored balances. `--out` also writes close-YYYY-MM.txt, .json and .csv there. Exit 0:
 * balanced; 1: differences (each printed with its account and event).
 *
 * All read the database the service uses (DATABASE_URL, else PGlite in DATA_DIR), and
 * reconcile the analytics store it uses (CLICKHOUSE_URL, else chdb in DATA_DIR). A bad
 * command line prints usage on stderr and exits 2.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openAnalyticsStore, type OpenedAnalyticsStore } from '../adapters/clickhouse/open.ts';
import { exportLedger, LEDGER_ROW_COLUMNS, type LedgerRow } from '../application/credits/ledger-export.ts';
import { closeMonth } from '../application/credits/month-close.ts';
import { monthWindow, type MonthWindow } from '../domain/credits/close.ts';
import { closeCsv, closeJson, closeText, differenceText } from './finance-close-render.ts';
import { reconcileLedger, type ReconcileDifference, type ReconcileReport } from '../application/credits/reconcile.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open.ts';
import { eventStoreOf } from '../wiring.ts';
import { csvField } from '../domain/csv.ts';

const USAGE = `usage: court-records finance export --from ISO --to ISO [--account ID] --format csv|jsonl
       court-records finance reconcile [--from ISO --to ISO] [--account ID] [--format text|json]
       court-records finance close --month YYYY-MM [--account ID] [--format text|json|csv] [--out DIR]`;
const FORMATS = ['csv', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];
const RECONCILE_FORMATS = ['text', 'json'] as const;
type ReconcileFormat = (typeof RECONCILE_FORMATS)[number];
const CLOSE_FORMATS = ['text', 'json', 'csv'] as const;
type CloseFormat = (typeof CLOSE_FORMATS)[number];
/** Reconciliation found no difference but could not run every check. */
const INCOMPLETE = 3;

export interface FinanceIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

class UsageError extends Error {}

interface ExportRequest {
  readonly action: 'export';
  readonly from: Date;
  readonly to: Date;
  readonly accountId?: string;
  readonly format: Format;
}

interface ReconcileRequest {
  readonly action: 'reconcile';
  readonly from?: Date;
  readonly to?: Date;
  readonly accountId?: string;
  readonly format: ReconcileFormat;
}

interface CloseRequest {
  readonly action: 'close';
  readonly window: MonthWindow;
  readonly accountId?: string;
  readonly format: CloseFormat;
  readonly out?: string;
}

type Request = ExportRequest | ReconcileRequest | CloseRequest;

/** An ISO 8601 date or timestamp; a bare date is midnight UTC. */
function instant(value: string | undefined, name: string): Date {
  const parsed = value !== undefined && /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? new Date(value) : null;
  if (!parsed || Number.isNaN(parsed.getTime())) throw new UsageError(`--${name} must be an ISO 8601 date or timestamp`);
  return parsed;
}

function parse(args: readonly string[]): Request | 'help' {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') return 'help';
  if (action !== 'export' && action !== 'reconcile' && action !== 'close') throw new UsageError(`unknown command: finance ${action}`);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        account: { type: 'string' },
        format: { type: 'string' },
        ...(action === 'close' ? { month: { type: 'string' }, out: { type: 'string' } } : {}),
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const accountId = text('account')?.trim();
  if (accountId === '') throw new UsageError('--account must not be empty');
  const account = accountId === undefined ? {} : { accountId };
  if (action === 'close') {
    if (text('from') !== undefined || text('to') !== undefined) throw new UsageError('finance close takes --month, not --from/--to');
    const window = monthWindow(text('month') ?? '');
    if (!window) throw new UsageError('--month must be YYYY-MM');
    const format = CLOSE_FORMATS.find((f) => f === (text('format') ?? 'text'));
    if (!format) throw new UsageError(`--format must be one of ${CLOSE_FORMATS.join(', ')}`);
    const out = text('out');
    if (out === '') throw new UsageError('--out must not be empty');
    return { action, window, format, ...account, ...(out === undefined ? {} : { out }) };
  }
  if (action === 'reconcile') {
    const from = text('from') === undefined ? undefined : instant(text('from'), 'from');
    const to = text('to') === undefined ? undefined : instant(text('to'), 'to');
    if (from && to && from >= to) throw new UsageError('--from must be before --to');
    const format = RECONCILE_FORMATS.find((f) => f === (text('format') ?? 'text'));
    if (!format) throw new UsageError(`--format must be one of ${RECONCILE_FORMATS.join(', ')}`);
    return { action, format, ...(from ? { from } : {}), ...(to ? { to } : {}), ...account };
  }
  const from = instant(text('from'), 'from');
  const to = instant(text('to'), 'to');
  if (from >= to) throw new UsageError('--from must be before --to');
  const format = FORMATS.find((f) => f === text('format'));
  if (!format) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  return { action, from, to, format, ...account };
}

function csvLine(row: LedgerRow): string {
  return `${LEDGER_ROW_COLUMNS.map((column) => csvField(row[column])).join(',')}\n`;
}

/** One line per difference: its kind, then its fields as name=value. */
function differenceLine(difference: ReconcileDifference): string {
  const { kind, ...fields } = difference;
  const rendered = Object.entries(fields).map(
    ([name, value]) => `${name}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`,
  );
  return `${[kind, ...rendered].join(' ')}\n`;
}

function summaryLine(report: ReconcileReport): string {
  const c = report.checked;
  const usage = report.usage.ran ? `usage check ran over ${c.usageDays} account-days` : `usage check NOT RUN: ${report.usage.reason}`;
  return (
    `${report.differences.length} difference(s); checked ${c.accounts} accounts, ${c.ledgerEvents} ledger events, ` +
    `${c.reservations} reservations, ${c.charges} charges, ${c.chargedRequests} charged requests, ${c.auditEvents} audit events; ` +
    `${usage}; ${report.elapsedMs} ms\n`
  );
}

/** The analytics store the service would use, or why it cannot be opened. */
async function openAnalytics(config: { CLICKHOUSE_URL?: string | undefined; DATA_DIR: string }): Promise<OpenedAnalyticsStore | string> {
  try {
    return await openAnalyticsStore(config);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function reconcile(request: ReconcileRequest, io: FinanceIo): Promise<number> {
  const config = loadConfig(io.env);
  const database = await openDatabase(config, 'court-records finance reconcile');
  const analytics = await openAnalytics(config);
  try {
    const db = database.maintenance;
    const report = await reconcileLedger(
      typeof analytics === 'string'
        ? { db, events: eventStoreOf(db), analytics: null, analyticsUnavailable: analytics }
        : { db, events: eventStoreOf(db), analytics },
      request,
    );
    if (request.format === 'json') io.stdout.write(`${JSON.stringify(report)}\n`);
    else {
      for (const difference of report.differences) io.stdout.write(differenceLine(difference));
      io.stdout.write(summaryLine(report));
    }
    if (report.differences.length > 0) return 1;
    return report.usage.ran ? 0 : INCOMPLETE;
  } finally {
    if (typeof analytics !== 'string') await analytics.close();
    await database.close();
  }
}

async function close(request: CloseRequest, io: FinanceIo): Promise<number> {
  const database = await openDatabase(loadConfig(io.env), 'court-records finance close');
  try {
    const db = database.maintenance;
    const report = await closeMonth({ db, events: eventStoreOf(db) }, request.window, request.accountId);
    const rendered = { text: closeText(report), json: closeJson(report), csv: closeCsv(report) };
    if (request.out !== undefined) {
      await mkdir(request.out, { recursive: true });
      const base = join(request.out, `close-${request.window.month}${request.accountId === undefined ? '' : `-${request.accountId}`}`);
      await writeFile(`${base}.txt`, rendered.text);
      await writeFile(`${base}.json`, rendered.json);
      await writeFile(`${base}.csv`, rendered.csv);
    }
    io.stdout.write(rendered[request.format]);
    if (report.differences.length === 0) return 0;
    // On stderr as well, so a close whose stdout went to a file still says it failed, and where.
    for (const difference of report.differences) io.stderr.write(`${differenceText(difference)}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

export async function runFinance(args: readonly string[], io: FinanceIo): Promise<number> {
  let request: Request | 'help';
  try {
    request = parse(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`court-records finance: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (request === 'help') {
    io.stderr.write(`${USAGE}\n`);
    return 0;
  }
  if (request.action === 'reconcile') return reconcile(request, io);
  if (request.action === 'close') return close(request, io);
  const database = await openDatabase(loadConfig(io.env), 'court-records finance export');
  try {
    if (request.format === 'csv') io.stdout.write(`${LEDGER_ROW_COLUMNS.join(',')}\n`);
    for await (const row of exportLedger(eventStoreOf(database.maintenance), request)) {
      io.stdout.write(request.format === 'csv' ? csvLine(row) : `${JSON.stringify(row)}\n`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

export function financeCommand(args: readonly string[]): Promise<number> {
  return runFinance(args, { stdout: process.stdout, stderr: process.stderr, env: process.env });
}
