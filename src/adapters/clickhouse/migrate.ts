/**
 * Applies the ClickHouse DDL in migrations/clickhouse/ in file-name order and records each
 * in a schema_migrations table in ClickHouse, so a second run applies nothing. ClickHouse
 * has no transactions or advisory locks, so every statement must be safe to repeat
 * (IF NOT EXISTS): two processes migrating at once, or a run that died between a statement
 * and its record, then converge on the same schema. A file is split into statements at
 * drizzle's `--> statement-breakpoint` lines, as the Postgres migrations are.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalyticsStore } from '../../ports/analytics.ts';

const BREAKPOINT = '--> statement-breakpoint';
const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

export const CLICKHOUSE_MIGRATIONS_DIR = new URL('../../../migrations/clickhouse/', import.meta.url).pathname;

export interface AnalyticsMigrationReport {
  applied: string[];
  alreadyApplied: number;
}

function statements(text: string): string[] {
  return text
    .split(BREAKPOINT)
    .map((chunk) => chunk.trim().replace(/;\s*$/, ''))
    .filter((chunk) => chunk.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('--')));
}

export async function migrateAnalytics(store: AnalyticsStore, dir: string = CLICKHOUSE_MIGRATIONS_DIR): Promise<AnalyticsMigrationReport> {
  await store.command(`CREATE TABLE IF NOT EXISTS schema_migrations
    (name String, sha256 String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
    ENGINE = ReplacingMergeTree ORDER BY name`);
  const rows = await store.query<{ name: string; sha256: string }>('SELECT name, sha256 FROM schema_migrations FINAL');
  const recorded = new Map(rows.map((row) => [row.name, row.sha256]));
  const report: AnalyticsMigrationReport = { applied: [], alreadyApplied: 0 };
  for (const file of readdirSync(dir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort()) {
    const name = file.slice(0, -'.sql'.length);
    const text = readFileSync(join(dir, file), 'utf8');
    const digest = createHash('sha256').update(text).digest('hex');
    const previous = recorded.get(name);
    if (previous !== undefined) {
      if (previous !== digest) throw new Error(`ClickHouse migration ${name} changed after it was applied`);
      report.alreadyApplied += 1;
      continue;
    }
    for (const statement of statements(text)) await store.command(statement);
    await store.insert('schema_migrations', [{ name, sha256: digest }]);
    report.applied.push(name);
  }
  return report;
}
