/**
 * Opens the document database: real PostgreSQL through postgres.js when DATABASE_URL is
 * set, otherwise PGlite (with pgvector, and pg_trgm for the search index) in DATA_DIR.
 * Both give the same typed Kysely. Type parsing is aligned on both paths: int8 as number,
 * date as 'YYYY-MM-DD'.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { CamelCasePlugin, Kysely } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import { PGliteDialect } from '../adapters/pglite/kysely-dialect.ts';
import type { Database, Db } from './database.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface OpenedDatabase {
  readonly db: Db;
  readonly kind: DatabaseKind;
  close(): Promise<void>;
}

const plugins = [new CamelCasePlugin({ maintainNestedObjectKeys: true })];

export async function openPostgres(url: string, options: { max?: number } = {}): Promise<OpenedDatabase> {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => undefined,
    types: {
      int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) },
      date: { to: 1082, from: [1082], serialize: (v: string) => v, parse: (v: string) => v },
    },
  });
  const db = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: sql }), plugins });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** `dataDir` undefined gives an in-memory PGlite (tests); otherwise files under it. */
export async function openPglite(dataDir: string | undefined): Promise<OpenedDatabase> {
  let location: string | undefined;
  if (dataDir !== undefined) {
    location = join(dataDir, 'pglite');
    mkdirSync(location, { recursive: true });
  }
  const pg = await PGlite.create(location, {
    extensions: { vector, pg_trgm },
    parsers: { [types.DATE]: (v: string) => v, [types.INT8]: (v: string) => Number(v) },
  });
  await pg.exec('create extension if not exists vector');
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pg), plugins });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await pg.close();
    },
  };
}

export function openDatabase(config: { DATABASE_URL?: string | undefined; DATA_DIR: string }): Promise<OpenedDatabase> {
  return config.DATABASE_URL ? openPostgres(config.DATABASE_URL) : openPglite(config.DATA_DIR);
}
