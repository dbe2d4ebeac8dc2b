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
import { CamelCasePlugin, CompiledQuery, Kysely, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import { lockDirectory, type DirectoryLock } from '../adapters/pglite/directory-lock.ts';
import { PGliteDialect } from '../adapters/pglite/kysely-dialect.ts';
import { initDataDir } from '../adapters/pglite/init-data-dir.ts';
import type { Database, Db } from './database.ts';

export type DatabaseKind = 'postgres' | 'pglite';

export interface OpenedDatabase {
  /** The request path's: on PostgreSQL every statement is bounded by the statement timeout. */
  readonly db: Db;
  /**
   * Migrations, ingest and projections: work whose statements may rightly run long (an
   * index build over the whole corpus), on a pool of its own without the timeout. The same
   * as `db` where there is no timeout (PGlite, which cannot enforce one, and tests).
   */
  readonly maintenance: Db;
  readonly kind: DatabaseKind;
  close(): Promise<void>;
}

const plugins = [new CamelCasePlugin({ maintainNestedObjectKeys: true })];

/** Seconds a closing pool waits for its connections before ending them. */
const CLOSE_TIMEOUT_S = 5;

/**
 * Two repairs of the driver's handling of lost connections. kysely's PostgresDriver, which
 * kysely-postgres-js extends, answers a failed ROLLBACK by marking the connection for
 * discard through a method only kysely's own connection class has: on a connection the
 * server had closed, the transaction then failed with a TypeError in place of the
 * connection error. Releasing the connection is enough: postgres.js reconnects a closed
 * one (see scripts/patch-postgres.mjs). And closing waits a bounded time: a connection left
 * reserved by a reconnect that failed would otherwise hold `end()` for ever.
 */
class PostgresJSDialectRepaired extends PostgresJSDialect {
  constructor(
    config: ConstructorParameters<typeof PostgresJSDialect>[0],
    private readonly end: (options: { timeout: number }) => Promise<void>,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const beginTransaction = driver.beginTransaction.bind(driver);
    const acquireConnection = driver.acquireConnection.bind(driver);
    const begins = new WeakMap<DatabaseConnection, Promise<unknown>>();
    // BEGIN is sent with the transaction's first statement, in the same write (postgres.js
    // joins what is queued in one turn of the event loop), rather than answered first: a
    // round trip fewer for every transaction. The statement's answer waits for BEGIN's, so a
    // BEGIN that failed (a lost connection, which fails the statement too) is still reported.
    driver.beginTransaction = async (connection, settings) => {
      if (settings.isolationLevel || settings.accessMode) return beginTransaction(connection, settings);
      const begin = connection.executeQuery(CompiledQuery.raw('begin'));
      begin.catch(() => undefined);
      begins.set(connection, begin);
    };
    driver.acquireConnection = async () => {
      const connection = await acquireConnection();
      const executeQuery = connection.executeQuery.bind(connection);
      connection.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const begin = begins.get(connection);
        if (begin === undefined) return executeQuery<R>(query);
        begins.delete(connection);
        const result = executeQuery<R>(query);
        result.catch(() => undefined);
        await begin;
        return result;
      };
      return connection;
    };
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      begins.delete(connection);
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    };
    driver.destroy = async () => {
      await this.end({ timeout: CLOSE_TIMEOUT_S });
    };
    return driver;
  }
}

/**
 * kysely-postgres-js runs every statement through `unsafe()`, which postgres.js leaves
 * unprepared: a statement with parameters is then sent as Parse + Describe, answered, and
 * only then bound and run, two round trips each. Prepared (named, kept per connection by
 * postgres.js and re-prepared after a reconnect), a statement seen before is one Bind +
 * Execute. Off (`prepare: false`) for a transaction-mode pooler that cannot keep a
 * session's statements.
 */
function preparing(sql: postgres.Sql, prepare: boolean): postgres.Sql | (() => Promise<postgres.Sql>) {
  if (!prepare) return sql;
  const reserve = async (): Promise<postgres.ReservedSql> => {
    const reserved = await sql.reserve();
    const unsafe: postgres.Sql['unsafe'] = (query, parameters, options) =>
      reserved.unsafe(query, parameters, { prepare: true, ...options });
    return Object.assign(Object.create(reserved) as postgres.ReservedSql, { unsafe, release: () => reserved.release() });
  };
  // The dialect takes a factory for a pool it cannot inspect; reserve() is all it calls on it.
  return () => Promise.resolve(Object.assign(Object.create(sql) as postgres.Sql, { reserve }));
}

function postgresKysely(url: string, max: number, statementTimeoutMs: number | undefined, prepare: boolean): Db {
  const sql = postgres(url, {
    max,
    onnotice: () => undefined,
    // postgres.js waits up to 20 s before reconnecting after a few dropped connections; a
    // restarted server or ended backends should cost paid calls a moment, not that long.
    backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 2),
    connection: {
      ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
      // Planned for each call's values as an unnamed statement is: a search's plan depends on its words.
      ...(prepare ? { plan_cache_mode: 'force_custom_plan' } : {}),
    },
    types: {
      int8: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) },
      date: { to: 1082, from: [1082], serialize: (v: string) => v, parse: (v: string) => v },
    },
  });
  return new Kysely<Database>({
    dialect: new PostgresJSDialectRepaired({ postgres: preparing(sql, prepare) }, (options) => sql.end(options)),
    plugins,
  });
}

export async function openPostgres(
  url: string,
  options: { max?: number; maintenanceMax?: number; statementTimeoutMs?: number; preparedStatements?: boolean } = {},
): Promise<OpenedDatabase> {
  const prepare = options.preparedStatements ?? true;
  const db = postgresKysely(url, options.max ?? 10, options.statementTimeoutMs, prepare);
  const maintenance =
    options.statementTimeoutMs === undefined
      ? db
      : postgresKysely(url, options.maintenanceMax ?? MAINTENANCE_CONNECTIONS, undefined, prepare);
  return {
    db,
    maintenance,
    kind: 'postgres',
    close: async () => {
      await db.destroy();
      if (maintenance !== db) await maintenance.destroy();
    },
  };
}

/**
 * Background work runs a few statements at a time; it must not take the request path's
 * connections. Each case-feed projector (keyword index, embeddings, a reindex's hand-over)
 * holds one connection for its lock while its batch runs on another, plus the audit projector's one.
 */
const MAINTENANCE_CONNECTIONS = 6;

/** PGlite with the extensions our migrations use; nothing stays open if it fails. */
async function createPglite(location: string | undefined): Promise<PGlite> {
  const pg = await PGlite.create(location, {
    extensions: { vector, pg_trgm },
    parsers: { [types.DATE]: (v: string) => v, [types.INT8]: (v: string) => Number(v) },
  });
  try {
    await pg.exec('create extension if not exists vector');
  } catch (error) {
    await pg.close().catch(() => undefined);
    throw error;
  }
  return pg;
}

/**
 * `dataDir` undefined gives an in-memory PGlite (tests); otherwise files under it, which
 * this process holds, as `holder`, until close: PGlite cannot share its files with another
 * process, so while one holds them every other open throws DirectoryLockedError.
 */
export async function openPglite(dataDir: string | undefined, holder = 'a process'): Promise<OpenedDatabase> {
  let location: string | undefined;
  let lock: DirectoryLock | undefined;
  if (dataDir !== undefined) {
    location = join(dataDir, 'pglite');
    mkdirSync(location, { recursive: true });
    lock = await lockDirectory(location, holder);
    await initDataDir(location);
  }
  const pg = await createPglite(location).catch((error: unknown) => {
    lock?.release();
    throw error;
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pg), plugins });
  return {
    db,
    maintenance: db,
    kind: 'pglite',
    close: async () => {
      try {
        await db.destroy();
        await pg.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** `holder` names this process in the PGlite lock ("the service", "court-records ingest"). */
export function openDatabase(
  config: {
    DATABASE_URL?: string | undefined;
    DATA_DIR: string;
    DATABASE_STATEMENT_TIMEOUT_MS?: number;
    DATABASE_PREPARED_STATEMENTS?: boolean;
  },
  holder?: string,
): Promise<OpenedDatabase> {
  return config.DATABASE_URL
    ? openPostgres(config.DATABASE_URL, {
        ...(config.DATABASE_STATEMENT_TIMEOUT_MS === undefined ? {} : { statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS }),
        ...(config.DATABASE_PREPARED_STATEMENTS === undefined ? {} : { preparedStatements: config.DATABASE_PREPARED_STATEMENTS }),
      })
    : openPglite(config.DATA_DIR, holder);
}
