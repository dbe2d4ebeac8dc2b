/**
 * Reading events in an order that never skips one: only events committed below the oldest
 * transaction still in flight, ordered by transaction id then position, after a checkpoint.
 * Shared by the projector runner and the in-process cache invalidator.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { START, type Checkpoint, type RecordedEvent } from '../../ports/event-store.ts';
import { toRecorded, type EventRow } from '../../db/event-rows.ts';

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

/**
 * `readCommittedAfter` for a reader of a few event types: the scan is the same (so its end is
 * where the next read starts), but only the wanted events' data and metadata leave the
 * database; the others come back as positions.
 */
export async function readCommittedOfTypes(
  executor: Db | Trx,
  after: Checkpoint,
  limit: number,
  types: readonly string[],
): Promise<{ events: RecordedEvent[]; through: Checkpoint | null; scanned: number }> {
  const { rows } = await sql<EventRow & { wanted: boolean }>`
    with wanted as (select array(select jsonb_array_elements_text(${JSON.stringify(types)}::text::jsonb)) as types)
    select e.global_position as "globalPosition", e.stream_id as "streamId", e.stream_position as "streamPosition", e.type,
      e.schema_version as "schemaVersion", e.transaction_id as "transactionId", e.recorded_at as "recordedAt",
      e.type = any(w.types) as wanted,
      case when e.type = any(w.types) then e.data end as data,
      case when e.type = any(w.types) then e.metadata end as metadata
    from events e cross join wanted w
    where ${committed} and (e.transaction_id, e.global_position) > (${after.transactionId}::xid8, ${after.globalPosition}::bigint)
    order by e.transaction_id, e.global_position
    limit ${limit}`.execute(executor);
  const last = rows[rows.length - 1];
  return {
    events: rows.filter((row) => row.wanted).map(({ wanted: _, ...row }) => toRecorded(row)),
    through: last ? { transactionId: last.transactionId, globalPosition: last.globalPosition } : null,
    scanned: rows.length,
  };
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
