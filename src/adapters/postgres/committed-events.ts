/**
 * Reading events in an order that never skips one: only events committed below the oldest
 * transaction still in flight, ordered by transaction id then position, after a checkpoint.
 * Shared by the projector runner and the in-process cache invalidator.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { START, type Checkpoint, type RecordedEvent } from '../../ports/event-store.ts';
import { toRecorded } from '../../db/event-rows.ts';

const committed = sql<boolean>`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;

export async function readCommittedAfter(executor: Db | Trx, after: Checkpoint, limit: number): Promise<RecordedEvent[]> {
  const rows = await executor
    .selectFrom('events')
    .selectAll()
    .where(committed)
    .where(sql<boolean>`(transaction_id, global_position) > (${after.transactionId}::xid8, ${after.globalPosition}::bigint)`)
    .orderBy('transactionId')
    .orderBy('globalPosition')
    .limit(limit)
    .execute();
  return rows.map(toRecorded);
}

/** Committed events after a checkpoint, counted up to `ceiling` (a bounded index walk however far behind). */
export async function countCommittedAfter(executor: Db | Trx, after: Checkpoint, ceiling: number): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from (select 1 from events where ${committed}
      and (transaction_id, global_position) > (${after.transactionId}::xid8, ${after.globalPosition}::bigint)
      limit ${ceiling}) pending`.execute(executor);
  return Number(rows[0]?.n ?? 0);
}

/** The newest committed position: where a reader that does not need history starts. */
export async function committedHead(executor: Db | Trx): Promise<Checkpoint> {
  const row = await executor
    .selectFrom('events')
    .select(['transactionId', 'globalPosition'])
    .where(committed)
    .orderBy('transactionId', 'desc')
    .orderBy('globalPosition', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? START;
}
