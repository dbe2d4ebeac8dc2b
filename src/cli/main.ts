/**
 * `court-records <command>`: the operator's CLI. Each command returns an exit code; the
 * bin sets it. Commands open the database from the same environment as the service.
 */
import { loadConfig } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { adminCommand } from './admin.ts';
import { financeCommand } from './finance.ts';
import { ingestCommand } from './ingest.ts';
import { watermarkCommand } from './watermark.ts';

const USAGE = `usage: court-records <command>
  migrate          apply the SQL migrations to the configured database
  ingest [PATH]    load the court datasets under PATH (default: CORPUS_DIR or ../shared/data)
  admin ...        operator commands against a running service (court-records admin --help)
  admin watermark trace FILE
                   name the billing account a leaked extract was served to (reads the database)
  finance export   credit ledger events with running balances (court-records finance --help)
  finance reconcile
                   check balances, charges, audit trail and ClickHouse usage agree
                   (exit 0 clean, 1 differences, 3 incomplete: ClickHouse unreachable)`;

async function migrateCommand(): Promise<number> {
  const config = loadConfig(process.env);
  const database = await openDatabase(config);
  try {
    const report = await migrate(database.db);
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
      case 'admin':
        return rest[0] === 'watermark' ? await watermarkCommand(rest.slice(1)) : await adminCommand(rest);
      case 'finance':
        return await financeCommand(rest);
      default:
        process.stderr.write(`${USAGE}\n`);
        return command === undefined || command === '--help' ? 0 : 2;
    }
  } catch (error) {
    process.stderr.write(`court-records ${command ?? ''}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
