/**
 * The case store's change feed, shared by the projectors that follow it (keyword index,
 * embeddings): rows whose writing transaction is below the oldest one still in flight,
 * after a checkpoint, in (transaction, sequence) order, so a late commit is never
 * skipped; and the session lock that keeps a second instance from interleaving batches.
 */
import { sql, type Selectable } from 'kysely';
import type { Checkpoint } from '../adapters/postgres/committed-events.ts';
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
 * Runs `batch` holding the named session lock on PostgreSQL; another instance holding it
 * means that one is projecting, so this one reads nothing. PGlite has one session: no lock.
 */
export function exclusively(db: Db, kind: DatabaseKind, name: string, batch: () => Promise<number>): Promise<number> {
  if (kind === 'pglite') return batch();
  return db.connection().execute(async (conn) => {
    const locked = await sql<{ ok: boolean }>`select pg_try_advisory_lock(hashtext(${name})) as ok`.execute(conn);
    if (!locked.rows[0]?.ok) return 0;
    try {
      return await batch();
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${name}))`.execute(conn);
    }
  });
}

/**
 * Runs `work` holding the named session lock, waiting for it (a reindex's hand-over must
 * not be skipped, only delayed until the projector's current batch is done).
 */
export function holding(db: Db, kind: DatabaseKind, name: string, work: () => Promise<void>): Promise<void> {
  if (kind === 'pglite') return work();
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(hashtext(${name}))`.execute(conn);
    try {
      await work();
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${name}))`.execute(conn);
    }
  });
}
