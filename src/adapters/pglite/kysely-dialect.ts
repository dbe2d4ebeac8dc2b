/**
 * Kysely dialect over PGlite (Postgres in WASM). PGlite has a single session, so
 * connections are handed out one at a time: a transaction holds the session until it
 * ends, and no other query can slip into it.
 *
 * PGlite runs each query in WebAssembly on this thread, and queries queued on the session
 * (a litigation check's eight name searches) would follow one another in microtasks,
 * holding the event loop for all of them together: each query first waits one turn of
 * the loop, so timers and sockets get in between and the loop is held for the longest
 * query, not for the whole queue.
 */
import { setImmediate } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

class SessionLock {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

const WRITE_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    await setImmediate();
    const result = await this.pg.query<R>(query.sql, query.parameters as unknown[]);
    const command = (result as { command?: string }).command ?? '';
    return WRITE_COMMANDS.has(command) ? { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) } : { rows: result.rows };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  readonly #lock = new SessionLock();
  readonly #releases = new WeakMap<DatabaseConnection, () => void>();
  readonly #connection: PGliteConnection;

  constructor(pg: PGlite) {
    this.#connection = new PGliteConnection(pg);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.#lock.acquire();
    const handle: DatabaseConnection = {
      executeQuery: (q) => this.#connection.executeQuery(q),
      streamQuery: () => this.#connection.streamQuery(),
    };
    this.#releases.set(handle, release);
    return handle;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#releases.get(connection)?.();
    this.#releases.delete(connection);
  }

  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.pg);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
