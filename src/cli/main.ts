/**
 * `court-records <command>`: the operator's CLI. Each command returns an exit code; the
 * bin sets it. Commands open the database from the same environment as the service; on
 * the embedded default only one process may hold it, so while the service (or another
 * command) does, they refuse with one line on stderr and exit 75, having done nothing.
 */
import { DirectoryLockedError } from '../adapters/pglite/directory-lock.ts';
import { loadConfig } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { adminCommand } from './admin.ts';
import { devCommand } from './dev.ts';
import { financeCommand } from './finance.ts';
import { ingestCommand } from './ingest.ts';
import { searchCommand } from './search.ts';
import { watermarkCommand } from './watermark.ts';

const USAGE = `usage: court-records <command>
  migrate          apply the SQL migrations to the configured database
  ingest [PATH]    load the court datasets under PATH (default: CORPUS_DIR or ../shared/data)
  ingest --layout bulk [--rescan] [--reference DIR] PATH
                   load the public bulk datasets synced under PATH (resumable; exit 130 when stopped)
  dev seed         quickstart: an Enterprise account with credits and a key on the running
                   service, printed with a first curl (court-records dev --help)
  admin ...        operator commands against a running service (court-records admin --help)
  admin watermark trace FILE
                   name the billing account a leaked extract was served to (reads the database)
  search reindex   rebuild the Meilisearch index beside the live one and swap it in (MEILI_URL)
  finance export   credit ledger events with running balances (court-records finance --help)
  finance reconcile
                   check balances, charges, audit trail and ClickHouse usage agree
                   (exit 0 clean, 1 differences, 3 incomplete: ClickHouse unreachable)
  finance close --month YYYY-MM
                   the month-end close (IST months), proved against the ledger (exit 1: differences)
Commands that open the embedded database exit 75 while another process (the service) holds it.`;

/** sysexits' EX_TEMPFAIL: the embedded database is held by another process; nothing was done, retry once it is free. */
const DATABASE_HELD = 75;

async function migrateCommand(): Promise<number> {
  const config = loadConfig(process.env);
  const database = await openDatabase(config, 'court-records migrate');
  try {
    const report = await migrate(database.maintenance);
    process.stdout.write(`${JSON.stringify({ database: database.kind, ...report })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'migrate':
        return await migrateCommand();
      case 'ingest':
        return await ingestCommand(rest);
      case 'dev':
        return await devCommand(rest);
      case 'admin':
        return rest[0] === 'watermark' ? await watermarkCommand(rest.slice(1)) : await adminCommand(rest);
      case 'finance':
        return await financeCommand(rest);
      case 'search':
        return await searchCommand(rest);
      default:
        process.stderr.write(`${USAGE}\n`);
        return command === undefined || command === '--help' ? 0 : 2;
    }
  } catch (error) {
    process.stderr.write(`court-records ${command ?? ''}: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof DirectoryLockedError ? DATABASE_HELD : 1;
  }
}
