/**
 * Test databases. PGlite (in memory) always; the real PostgreSQL too when
 * TEST_DATABASE_URL is set (CI sets it). Each call gets a fresh, migrated database, and
 * on PostgreSQL a database of its own that is dropped afterwards.
 */
import postgres from 'postgres';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite, openPostgres, type OpenedDatabase } from '../../src/db/open.ts';

export interface TestDatabase extends OpenedDatabase {
  readonly url?: string;
}

export interface DatabaseFactory {
  readonly name: 'pglite' | 'postgres';
  open(): Promise<TestDatabase>;
}

const adminUrl = process.env.TEST_DATABASE_URL;

async function freshPostgres(admin: string): Promise<TestDatabase> {
  const name = `test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const root = postgres(admin, { max: 1, onnotice: () => undefined });
  await root.unsafe(`create database ${name}`);
  await root.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const opened = await openPostgres(url.toString(), { max: 20 });
  await migrate(opened.db);
  return {
    ...opened,
    url: url.toString(),
    close: async () => {
      await opened.close();
      const cleanup = postgres(admin, { max: 1, onnotice: () => undefined });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      // Test mode's database beside it, which a service over this one creates (composition/test-mode-adapters.ts).
      await cleanup.unsafe(`drop database if exists ${name}_test_mode with (force)`);
      await cleanup.end();
    },
  };
}

export const databases: DatabaseFactory[] = [
  {
    name: 'pglite',
    open: async () => {
      const opened = await openPglite(undefined);
      await migrate(opened.db);
      return opened;
    },
  },
  ...(adminUrl ? [{ name: 'postgres' as const, open: () => freshPostgres(adminUrl) }] : []),
];

export const postgresAdminUrl = adminUrl;
