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
import { underSessionLock } from '../db/session-lock.ts';

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

/** Runs a projector's batch under its lock; another instance holding it is projecting, so this one reads nothing. */
export function exclusively(db: Db, kind: DatabaseKind, name: string, batch: () => Promise<number>): Promise<number> {
  return underSessionLock(db, kind, name, false, batch, 0);
}

/** Runs `work` under the lock, waiting for it: a reindex's hand-over must not be skipped, only delayed past the current batch. */
export function holding(db: Db, kind: DatabaseKind, name: string, work: () => Promise<void>): Promise<void> {
  return underSessionLock(db, kind, name, true, work, undefined);
}
