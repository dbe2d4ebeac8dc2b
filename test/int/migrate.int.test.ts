/** Migrations: applied once, re-runs are no-ops, and two processes starting at once agree. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import postgres from 'postgres';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/open.ts';
import { databases, postgresAdminUrl } from '../support/databases.ts';

for (const factory of databases) {
  it(`re-running migrations on ${factory.name} applies nothing`, async () => {
    const database = await factory.open();
    try {
      const again = await migrate(database.db);
      assert.deepEqual(again.applied, []);
      assert.ok(again.alreadyApplied >= 2);
    } finally {
      await database.close();
    }
  });
}

describe('two processes migrating one empty PostgreSQL at once', { skip: postgresAdminUrl ? false : 'TEST_DATABASE_URL not set' }, () => {
  it('applies every migration exactly once', async () => {
    const name = `migrate_race_${Date.now()}`;
    const admin = postgres(postgresAdminUrl!, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(postgresAdminUrl!);
    url.pathname = `/${name}`;
    const [a, b] = await Promise.all([openPostgres(url.toString()), openPostgres(url.toString())]);
    try {
      const [ra, rb] = await Promise.all([migrate(a.db), migrate(b.db)]);
      const total = ra.applied.length + rb.applied.length;
      assert.equal(total, ra.applied.length + ra.alreadyApplied);
      assert.equal(new Set([...ra.applied, ...rb.applied]).size, total);
      const rows = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(a.db);
      assert.equal(rows.rows[0]?.n, total);
    } finally {
      await a.close();
      await b.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
