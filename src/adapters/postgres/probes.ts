/**
 * Deep-health probes for what lives in Postgres: the document database itself, the
 * keyword index (Postgres full-text search over the case store, the embedded default),
 * the vector index (pgvector) and the identity store (accounts live in the event store).
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DependencyProbe } from '../../ports/health.ts';

export function postgresProbes(db: Db, backend: string): DependencyProbe[] {
  return [
    {
      name: 'documentDatabase',
      hard: true,
      backend,
      check: async () => {
        await sql`select 1`.execute(db);
      },
    },
    {
      name: 'searchIndex',
      hard: true,
      backend: `${backend}-fts`,
      check: async () => {
        await sql`select to_tsvector('simple', coalesce(title, '')) from cases limit 1`.execute(db);
      },
    },
    {
      name: 'vectorIndex',
      hard: false,
      backend: `${backend}-pgvector`,
      check: async () => {
        // The table, not just the extension: a database migrated before pgvector was installed has none until the next migrate.
        await sql`select embedding <=> embedding from case_chunks limit 1`.execute(db);
      },
    },
    {
      name: 'identityService',
      hard: false,
      backend,
      check: async () => {
        await db.selectFrom('streams').select('streamId').limit(1).execute();
      },
    },
  ];
}
