/**
 * `court-records finance export --from ISO --to ISO [--account ID] --format csv|jsonl`:
 * every credit ledger event recorded in [from, to) with its account's running balance
 * after it, on stdout, for reconciliation against payments. csv has a header row; jsonl
 * is one JSON object per line. It reads the database the service uses (DATABASE_URL,
 * else PGlite in DATA_DIR). A bad command line prints usage on stderr and exits 2.
 */
import { parseArgs } from 'node:util';
import { exportLedger, LEDGER_ROW_COLUMNS, type LedgerRow } from '../application/credits/ledger-export.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open.ts';

const USAGE = 'usage: court-records finance export --from ISO --to ISO [--account ID] --format csv|jsonl';
const FORMATS = ['csv', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

export interface FinanceIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

class UsageError extends Error {}

interface Request {
  readonly from: Date;
  readonly to: Date;
  readonly accountId?: string;
  readonly format: Format;
}

/** An ISO 8601 date or timestamp; a bare date is midnight UTC. */
function instant(value: string | undefined, name: string): Date {
  const parsed = value !== undefined && /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? new Date(value) : null;
  if (!parsed || Number.isNaN(parsed.getTime())) throw new UsageError(`--${name} must be an ISO 8601 date or timestamp`);
  return parsed;
}

function parse(args: readonly string[]): Request | 'help' {
  const [action, ...rest] = args;
  if (action === undefined || action === '--help' || action === '-h') return 'help';
  if (action !== 'export') throw new UsageError(`unknown command: finance ${action}`);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: { from: { type: 'string' }, to: { type: 'string' }, account: { type: 'string' }, format: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string) => (typeof values[name] === 'string' ? values[name] : undefined);
  const from = instant(text('from'), 'from');
  const to = instant(text('to'), 'to');
  if (from >= to) throw new UsageError('--from must be before --to');
  const format = FORMATS.find((f) => f === text('format'));
  if (!format) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const accountId = text('account')?.trim();
  if (accountId === '') throw new UsageError('--account must not be empty');
  return { from, to, format, ...(accountId === undefined ? {} : { accountId }) };
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(value: string | number | null): string {
  const s = value === null ? '' : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvLine(row: LedgerRow): string {
  return `${LEDGER_ROW_COLUMNS.map((column) => csvField(row[column])).join(',')}\n`;
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
  const database = await openDatabase(loadConfig(io.env));
  try {
    if (request.format === 'csv') io.stdout.write(`${LEDGER_ROW_COLUMNS.join(',')}\n`);
    for await (const row of exportLedger(database.db, request)) {
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
