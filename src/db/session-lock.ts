/**
 * Work done by one instance at a time, under a PostgreSQL session advisory lock taken on a
 * connection reserved for it. The lock is the connection's: a holder killed mid-work (kill
 * -9, its backend terminated) loses its connection and with it the lock, so another
 * instance takes over on its next try with no lease to wait out. PGlite has one session in
 * one process: no lock.
 */
import { sql } from 'kysely';
import type { Db } from './database.ts';
import type { DatabaseKind } from './open.ts';

/**
 * Runs `work` holding the named lock. When another session holds it, `wait` waits for it;
 * otherwise `work` is skipped and `busy` returned.
 */
export function underSessionLock<T>(db: Db, kind: DatabaseKind, name: string, wait: boolean, work: () => Promise<T>, busy: T): Promise<T> {
  if (kind === 'pglite') return work();
  return db.connection().execute(async (conn) => {
    if (wait) await sql`select pg_advisory_lock(hashtext(${name}))`.execute(conn);
    else {
      const locked = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${name})) as ok`.execute(conn);
      if (!locked.rows[0]?.ok) return busy;
    }
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${name}))`.execute(conn);
    }
  });
}
