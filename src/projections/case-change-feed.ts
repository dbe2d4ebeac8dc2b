/**
 * The case store's change feed, shared by the projectors that follow it (keyword index,
 * embeddings): rows whose writing transaction is below the oldest one still in flight,
 * after a checkpoint, in (transaction, sequence) order, so a late commit is never
 * skipped; and the session lock that keeps a second instance from interleaving batches.
 */
import { sql, type Selectable } from 'kysely';
import type { Checkpoint } from '../ports/event-store.ts';
import type { Database, Db } from '../db/database.ts';
import type { DatabaseKind } from '../db/open.ts';

export type CaseRow = Selectable<Database['cases']>;

export function readCaseChanges(db: Db, after: Checkpoint, limit: number): Promise<CaseRow[]> {
  return db
    .selectFrom('cases')
    .selectAll()
    .where(sql<boolean>`change_xid < pg_snapshot_xmin(pg_current_snapshot())`)
    .where(sql<boolean>`(change_xid, change_seq) > (${after.transactionId}::xid8, ${after.globalPosition}::bigint)`)
    .orderBy('changeXid')
    .orderBy('changeSeq')
    .limit(limit)
    .execute();
}

/**
 * Runs `work` holding the named session lock on PostgreSQL (PGlite has one session: no
 * lock). When another session holds it, `wait` waits for it; otherwise `work` is skipped
 * and `busy` returned.
 */
function underLock<T>(db: Db, kind: DatabaseKind, name: string, wait: boolean, work: () => Promise<T>, busy: T): Promise<T> {
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

/** Runs a projector's batch under its lock; another instance holding it is projecting, so this one reads nothing. */
export function exclusively(db: Db, kind: DatabaseKind, name: string, batch: () => Promise<number>): Promise<number> {
  return underLock(db, kind, name, false, batch, 0);
}

/** Runs `work` under the lock, waiting for it: a reindex's hand-over must not be skipped, only delayed past the current batch. */
export function holding(db: Db, kind: DatabaseKind, name: string, work: () => Promise<void>): Promise<void> {
  return underLock(db, kind, name, true, work, undefined);
}
