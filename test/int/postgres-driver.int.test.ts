/**
 * The repaired postgres.js (scripts/patch-postgres.mjs) on a real server, with one
 * connection so the next query reuses it: a query that fails after some rows were sent,
 * by a row's error or by its backend being ended, leaves nothing behind for the next one,
 * which answers exactly its own rows. And a connection opened for a reserve() and lost
 * while it fetches its array types (cut by a proxy the moment that query passes) leaves no
 * unhandled rejection, which would end the process: the pool connects again and the
 * reserve is served. Statements are prepared (one round trip once seen), survive a table
 * changing shape under them, and are not prepared when turned off. A transaction's BEGIN
 * travels with its first statement. Skipped without
 * TEST_DATABASE_URL (PGlite streams no rows).
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import postgres from 'postgres';
import { openPostgres } from '../../src/db/open.ts';
import { isConnectionLoss } from '../../src/db/connection-loss.ts';
import type { Db } from '../../src/db/database.ts';
import { postgresAdminUrl } from '../support/databases.ts';

describe('postgres.js after a query fails mid-result', { skip: postgresAdminUrl === undefined ? 'needs TEST_DATABASE_URL' : false }, () => {
  it('answers the query after one a row error failed with its own rows, no holes', async () => {
    const opened = await openPostgres(postgresAdminUrl as string, { max: 1 });
    try {
      // Rows 1 to 1,499 are sent before row 1,500 divides by zero.
      const failing = sql`select g, repeat('x', 200) as pad, 1 / (1500 - g) as ratio from generate_series(1, 2000) g`.execute(opened.db);
      await assert.rejects(failing, { code: '22012' });
      const { rows } = await sql<{ n: number }>`select n from generate_series(1, 3) n`.execute(opened.db);
      assert.deepEqual(rows, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    } finally {
      await opened.close();
    }
  });

  it('fails the streaming query and answers the next one with its own rows only', async () => {
    const opened = await openPostgres(postgresAdminUrl as string, { max: 1 });
    const admin = postgres(postgresAdminUrl as string, { max: 1, onnotice: () => undefined });
    try {
      const {
        rows: [me],
      } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db);
      // 2,000 rows of 200 bytes overflow the server's send buffer, so most reach the
      // client before the pause at the last row, where the backend is ended.
      const streaming = sql`select g, repeat('x', 200) as pad, case when g = 2000 then pg_sleep(30) end as pause
        from generate_series(1, 2000) g`.execute(opened.db);
      const failure = streaming.then(
        () => assert.fail('the ended query answered'),
        (error: unknown) => error,
      );
      await waitFor(async () => {
        const [row] = await admin`select state from pg_stat_activity where pid = ${me!.pid} and wait_event = 'PgSleep'`;
        return row !== undefined;
      });
      await admin`select pg_terminate_backend(${me!.pid})`;
      assert.ok(isConnectionLoss(await failure), 'the ended query fails as a lost connection');

      const { rows } = await sql<{ n: number }>`select n from generate_series(1, 3) n`.execute(opened.db);
      assert.deepEqual(rows, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    } finally {
      await admin.end();
      await opened.close();
    }
  });
});

describe('prepared statements', { skip: postgresAdminUrl === undefined ? 'needs TEST_DATABASE_URL' : false }, () => {
  const preparedCount = async (db: Db): Promise<number> =>
    db.transaction().execute(async (trx) => {
      // One connection for the transaction: the statement and the count see the same session.
      for (let i = 0; i < 2; i += 1) await sql`select ${i}::int + 1 as n`.execute(trx);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements
        where statement like ${'%::int + 1 as n%'} and statement not like ${'%pg_prepared_statements%'}`.execute(trx);
      return rows[0]!.n;
    });

  it('prepares a statement with parameters once per connection, and not when turned off', async () => {
    const on = await openPostgres(postgresAdminUrl as string, { max: 1 });
    const off = await openPostgres(postgresAdminUrl as string, { max: 1, preparedStatements: false });
    try {
      assert.equal(await preparedCount(on.db), 1);
      assert.equal(await preparedCount(off.db), 0);
      const { rows } = await sql<{ plan: string }>`select current_setting('plan_cache_mode') as plan`.execute(on.db);
      assert.equal(rows[0]!.plan, 'force_custom_plan');
    } finally {
      await on.close();
      await off.close();
    }
  });

  it('sends the BEGIN of a transaction in the same write as its first statement, and still rolls back what the work wrote', async () => {
    const proxy = await countingProxy(new URL(postgresAdminUrl as string));
    const url = new URL(postgresAdminUrl as string);
    url.host = `127.0.0.1:${String(proxy.port)}`;
    const opened = await openPostgres(url.toString(), { max: 1 });
    const table = `pipelined_begin_${String(process.pid)}`;
    try {
      await sql`create table ${sql.table(table)} (id int primary key)`.execute(opened.db);
      const insert = (trx: Db, id: number) => sql`insert into ${sql.table(table)} values (${id})`.execute(trx);
      // Prepared first, so the transaction's statement is one Bind and Execute.
      await insert(opened.db, 1);
      proxy.writes.length = 0;
      await opened.db.transaction().execute((trx) => insert(trx, 2));
      assert.equal(proxy.writes.length, 2, 'BEGIN with the statement, then COMMIT');
      assert.ok(proxy.writes[0]!.includes('begin') && proxy.writes[0]!.includes('B'), 'BEGIN and the Bind travel together');
      assert.ok(proxy.writes[1]!.includes('commit'));
      await assert.rejects(
        opened.db.transaction().execute(async (trx) => {
          await insert(trx, 3);
          throw new Error('the work failed');
        }),
        /the work failed/,
      );
      await assert.rejects(
        opened.db.transaction().execute((trx) => insert(trx, 1)),
        { code: '23505' },
        'the first statement fails in its transaction, reported as its own error',
      );
      const { rows } = await sql<{ id: number }>`select id from ${sql.table(table)} order by id`.execute(opened.db);
      assert.deepEqual(rows, [{ id: 1 }, { id: 2 }]);
    } finally {
      await sql`drop table if exists ${sql.table(table)}`.execute(opened.db);
      await opened.close();
      await proxy.close();
    }
  });

  it('answers a prepared statement again after the table it reads changed shape (a migration under a running instance)', async () => {
    const opened = await openPostgres(postgresAdminUrl as string, { max: 1 });
    const table = `prepared_shape_${String(process.pid)}`;
    try {
      await sql`create table ${sql.table(table)} (id int primary key)`.execute(opened.db);
      await sql`insert into ${sql.table(table)} values (1)`.execute(opened.db);
      const read = () => sql<Record<string, unknown>>`select * from ${sql.table(table)} where id = ${1}`.execute(opened.db);
      assert.deepEqual((await read()).rows, [{ id: 1 }]);
      await sql`alter table ${sql.table(table)} add column note text default 'added'`.execute(opened.db);
      assert.deepEqual((await read()).rows, [{ id: 1, note: 'added' }]);
    } finally {
      await sql`drop table if exists ${sql.table(table)}`.execute(opened.db);
      await opened.close();
    }
  });
});

describe(
  'postgres.js losing a reserved connection while it fetches its array types',
  { skip: postgresAdminUrl === undefined ? 'needs TEST_DATABASE_URL' : false },
  () => {
    it('leaves no unhandled rejection and serves the reserve on the next connection', async () => {
      const proxy = await cuttingProxy(new URL(postgresAdminUrl as string), 'typarray', 1);
      const unhandled: unknown[] = [];
      const record = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', record);
      const url = new URL(postgresAdminUrl as string);
      url.host = `127.0.0.1:${String(proxy.port)}`;
      const client = postgres(url.toString(), { max: 1, onnotice: () => undefined, connect_timeout: 5 });
      try {
        const reserving = client.reserve().then(
          (reserved) => {
            reserved.release();
            return 'reserved';
          },
          (error: unknown) => error,
        );
        const outcome = await Promise.race([reserving, new Promise((resolve) => setTimeout(() => resolve('pending'), 3_000))]);
        assert.equal(proxy.cuts(), 1, 'the proxy cut the connection at the types query');
        assert.equal(outcome, 'reserved');
        // Unhandled rejections are reported after the microtask queue drains: give them a turn.
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(unhandled, []);
        const rows = await client`select n from generate_series(1, 3) n`;
        assert.deepEqual([...rows], [{ n: 1 }, { n: 2 }, { n: 3 }]);
      } finally {
        process.off('unhandledRejection', record);
        await client.end({ timeout: 1 });
        await proxy.close();
      }
    });
  },
);

/**
 * A TCP proxy to the server that ends both sides of a connection the moment the client
 * sends bytes containing `marker`, the first `times` times.
 */
async function cuttingProxy(target: URL, marker: string, times: number): Promise<{ port: number; cuts(): number; close(): Promise<void> }> {
  let cuts = 0;
  const proxy = await proxyTo(target, (chunk) => {
    if (cuts >= times || !chunk.includes(marker)) return true;
    cuts += 1;
    return false;
  });
  return { ...proxy, cuts: () => cuts };
}

/** A TCP proxy to the server that keeps each chunk the client wrote (one socket write each on loopback). */
async function countingProxy(target: URL): Promise<{ port: number; writes: string[]; close(): Promise<void> }> {
  const writes: string[] = [];
  const proxy = await proxyTo(target, (chunk) => {
    writes.push(chunk.toString('latin1'));
    return true;
  });
  return { ...proxy, writes };
}

/** A TCP proxy to the server; `pass` sees each chunk the client sends, and false ends both sides instead of passing it on. */
async function proxyTo(target: URL, pass: (chunk: Buffer) => boolean): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(downstream).add(upstream);
    const end = () => {
      downstream.destroy();
      upstream.destroy();
    };
    downstream.on('data', (chunk: Buffer) => {
      if (pass(chunk)) upstream.write(chunk);
      else end();
    });
    upstream.on('data', (chunk: Buffer) => downstream.write(chunk));
    downstream.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor(ready: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the query never reached its pause');
}
