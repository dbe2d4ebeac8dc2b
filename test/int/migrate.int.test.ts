/**
 * Migrations: applied once, re-runs are no-ops, two processes starting at once agree, and
 * a PostgreSQL that could not have pgvector when it was migrated gets the vector table on
 * the first migrate after the extension is there.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import postgres from 'postgres';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/open.ts';
import { postgresProbes } from '../../src/adapters/postgres/probes.ts';
import { databases, postgresAdminUrl } from '../support/databases.ts';

for (const factory of databases) {
  it(`re-running migrations on ${factory.name} applies nothing`, async () => {
    const database = await factory.open();
    try {
      const again = await migrate(database.db);
      assert.deepEqual(again.applied, []);
      assert.deepEqual(again.completed, []);
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

describe('a PostgreSQL migrated before pgvector could be created', { skip: postgresAdminUrl ? false : 'TEST_DATABASE_URL not set' }, () => {
  it('migrates without case_chunks, then gets it, indexed and owned by the service, once the extension exists', async () => {
    // The service's role owns its database but is no superuser, so 0008 cannot create the
    // (untrusted) extension and skips the table: the state of a server without pgvector.
    const name = `migrate_late_vector_${Date.now()}`;
    const admin = postgres(postgresAdminUrl!, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`create role ${name} login password '${name}'`);
    await admin.unsafe(`create database ${name} owner ${name}`);
    const url = new URL(postgresAdminUrl!);
    url.pathname = `/${name}`;
    const superuserUrl = url.toString();
    url.username = name;
    url.password = name;
    const service = await openPostgres(url.toString());
    const indexes = async () =>
      (
        await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'case_chunks' order by 1`.execute(service.db)
      ).rows.map((r) => r.name);
    try {
      const vectorProbe = postgresProbes(service.db, 'postgres').find((p) => p.name === 'vectorIndex');
      assert.ok(vectorProbe);
      const first = await migrate(service.db);
      assert.ok(first.applied.includes('0008_case_chunks'));
      assert.ok(first.applied.includes('0011_case_chunks_year'));
      assert.deepEqual(await indexes(), []);
      await assert.rejects(vectorProbe.check(AbortSignal.timeout(5_000)), 'the deep health check reports the missing table');
      assert.deepEqual((await migrate(service.db)).completed, []);

      // An operator installs pgvector and creates the extension; the service restarts, and migrates.
      const operator = postgres(superuserUrl, { max: 1, onnotice: () => undefined });
      await operator.unsafe('create extension vector');
      await operator.end();
      const restarted = await migrate(service.db);
      assert.deepEqual([restarted.applied, restarted.completed], [[], ['0008_case_chunks', '0011_case_chunks_year']]);
      await vectorProbe.check(AbortSignal.timeout(5_000));
      assert.deepEqual(await indexes(), [
        'case_chunks_case_number_idx',
        'case_chunks_court_year_idx',
        'case_chunks_date_idx',
        'case_chunks_judges_idx',
        'case_chunks_pk',
        'case_chunks_use_lite_512_hnsw_idx',
        'case_chunks_year_idx',
      ]);
      const owner = await sql<{ owner: string }>`select tableowner as owner from pg_tables where tablename = 'case_chunks'`.execute(
        service.db,
      );
      assert.equal(owner.rows[0]?.owner, name);
      assert.deepEqual((await migrate(service.db)).completed, []);
    } finally {
      await service.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.unsafe(`drop role if exists ${name}`);
      await admin.end();
    }
  });
});
