/**
 * Applies the SQL migrations drizzle-kit wrote into migrations/, in journal order.
 * Each runs in its own transaction under a transaction-level advisory lock, and the
 * applied check happens inside the lock, so two processes starting at once apply each
 * migration exactly once.
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

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
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
  const report: MigrationReport = { applied: [], alreadyApplied: 0 };
  for (const entry of ordered) {
    const text = readFileSync(join(dir, `${entry.tag}.sql`), 'utf8');
    const digest = createHash('sha256').update(text).digest('hex');
    const applied = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      const done = await sql<{ sha256: string }>`select sha256 from schema_migrations where tag = ${entry.tag}`.execute(trx);
      const previous = done.rows[0];
      if (previous) {
        if (previous.sha256 !== digest) throw new Error(`migration ${entry.tag} changed after it was applied`);
        return false;
      }
      for (const statement of text.split(BREAKPOINT)) {
        if (statement.trim()) await sql.raw(statement).execute(trx);
      }
      await sql`insert into schema_migrations (tag, sha256) values (${entry.tag}, ${digest})`.execute(trx);
      return true;
    });
    if (applied) report.applied.push(entry.tag);
    else report.alreadyApplied += 1;
  }
  return report;
}
