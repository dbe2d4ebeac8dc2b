/**
 * Applies the SQL migrations drizzle-kit wrote into migrations/, in journal order.
 * Each runs in its own transaction under a transaction-level advisory lock, and the
 * applied check happens inside the lock, so two processes starting at once apply each
 * migration exactly once.
 *
 * One migration may do nothing and still be recorded: 0008 skips case_chunks on a
 * PostgreSQL without pgvector, so that the service runs with keyword search. Its SQL
 * re-checks for the extension, so while its table is missing it runs again on every
 * migrate (each start): installing pgvector later then takes a restart, not a hand-made
 * table, and the embedding projector fills the new table from the start of the feed. A
 * later migration that changes case_chunks skips in the same way and joins the list (0011,
 * an index: the relation checked is the index), and runs again after 0008 in journal order.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Db } from './database.ts';

const MIGRATION_LOCK = 727_101;
const BREAKPOINT = '--> statement-breakpoint';

interface Journal {
  entries: { idx: number; tag: string }[];
}

/** A migration that may skip its work, and the table whose absence says it did. */
const RETRIED_WHILE_MISSING: ReadonlyMap<string, string> = new Map([
  ['0008_case_chunks', 'case_chunks'],
  ['0011_case_chunks_year', 'case_chunks_year_idx'],
]);

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
  /** Migrations applied earlier without doing their work that have done it now. */
  completed: string[];
}

export const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url).pathname;

export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<MigrationReport> {
  const journal = JSON.parse(readFileSync(join(dir, 'meta', '_journal.json'), 'utf8')) as Journal;
  const ordered = [...journal.entries].sort((a, b) => a.idx - b.idx);
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`create table if not exists schema_migrations (
      tag text primary key, sha256 text not null, applied_at timestamptz not null default now())`.execute(trx);
  });
  const report: MigrationReport = { applied: [], alreadyApplied: 0, completed: [] };
  for (const entry of ordered) {
    const text = readFileSync(join(dir, `${entry.tag}.sql`), 'utf8');
    const digest = createHash('sha256').update(text).digest('hex');
    const outcome = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      const done = await sql<{ sha256: string }>`select sha256 from schema_migrations where tag = ${entry.tag}`.execute(trx);
      const previous = done.rows[0];
      if (previous) {
        if (previous.sha256 !== digest) throw new Error(`migration ${entry.tag} changed after it was applied`);
        const table = RETRIED_WHILE_MISSING.get(entry.tag);
        if (table === undefined || (await tableExists(trx, table))) return 'already';
        await run(trx, text);
        return (await tableExists(trx, table)) ? 'completed' : 'already';
      }
      await run(trx, text);
      await sql`insert into schema_migrations (tag, sha256) values (${entry.tag}, ${digest})`.execute(trx);
      return 'applied';
    });
    if (outcome === 'applied') report.applied.push(entry.tag);
    else report.alreadyApplied += 1;
    if (outcome === 'completed') report.completed.push(entry.tag);
  }
  return report;
}

async function run(db: Db, text: string): Promise<void> {
  for (const statement of text.split(BREAKPOINT)) {
    if (statement.trim()) await sql.raw(statement).execute(db);
  }
}

async function tableExists(db: Db, table: string): Promise<boolean> {
  const row = await sql<{ present: boolean }>`select to_regclass(${table}) is not null as present`.execute(db);
  return row.rows[0]?.present === true;
}
