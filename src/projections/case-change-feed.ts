/**
 * The case store's change feed, shared by the projectors that follow it (keyword index,
 * embeddings): rows whose writing transaction is below the oldest one still in flight,
 * after a checkpoint, in (transaction, sequence) order, so a late commit is never
 * skipped; whether anything is pending past a projector's checkpoint; and the session
 * lock that keeps a second instance from interleaving batches.
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

/**
 * Whether a projector that follows the case store's change feed has anything committed past
 * its checkpoint, in one statement: its polling loop asks this before a batch, so a
 * caught-up projector costs one round trip a poll instead of a batch's lock and reads. It
 * answers by the rule the batch reads by (below the oldest transaction in flight, in
 * (transaction, sequence) order), so a late commit is never missed, only left to a later
 * poll, as the batch would leave it. The checkpoint is read in the same statement, so a
 * batch another instance ran is seen.
 */
export async function caseChangesPending(db: Db, projector: string): Promise<boolean> {
  // A projector with no checkpoint yet reads from the start: position (0, 0).
  const { rows } = await sql<{ pending: boolean }>`
    with c as (
      select transaction_id, global_position from projector_checkpoints where projector = ${projector}
      union all
      select '0'::xid8, 0::bigint where not exists (select 1 from projector_checkpoints where projector = ${projector})
    )
    select exists (select 1 from c cross join lateral (
      select 1 from cases e where e.change_xid < pg_snapshot_xmin(pg_current_snapshot())
        and (e.change_xid, e.change_seq) > (c.transaction_id, c.global_position) limit 1) later) as pending`.execute(db);
  return rows[0]?.pending === true;
}

/** Runs a projector's batch under its lock; another instance holding it is projecting, so this one reads nothing. */
export function exclusively(db: Db, kind: DatabaseKind, name: string, batch: () => Promise<number>): Promise<number> {
  return underSessionLock(db, kind, name, false, batch, 0);
}

/** Runs `work` under the lock, waiting for it: a reindex's hand-over must not be skipped, only delayed past the current batch. */
export function holding(db: Db, kind: DatabaseKind, name: string, work: () => Promise<void>): Promise<void> {
  return underSessionLock(db, kind, name, true, work, undefined);
}
