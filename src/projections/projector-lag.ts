/**
 * How far each async projector trails what is committed, for the metrics scrape: the
 * committed events (or case changes, for the index projectors that follow the case store)
 * past its checkpoint, counted in the order the projector reads them. A count, not a
 * position difference, because positions are claimed in one order and committed in
 * another. Counting stops at LAG_CEILING, so a scrape of a projector rebuilding from zero
 * stays an index walk of bounded length; the ceiling then reads "at least this many".
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.ts';
import { START, type EventStore } from '../ports/event-store.ts';
import type { ProjectorLag } from '../ports/metrics.ts';

export const LAG_CEILING = 100_000;

export interface FollowedProjector {
  readonly name: string;
  /** `events`: the event store; `cases`: the case store's change feed (case-change-feed.ts). */
  readonly feed: 'events' | 'cases';
}

async function behind(db: Db, events: EventStore<Trx>, projector: FollowedProjector): Promise<number> {
  const checkpoint =
    (await db
      .selectFrom('projectorCheckpoints')
      .select(['transactionId', 'globalPosition'])
      .where('projector', '=', projector.name)
      .executeTakeFirst()) ?? START;
  if (projector.feed === 'events') return events.countCommittedAfter(checkpoint, LAG_CEILING);
  const after = sql`(${checkpoint.transactionId}::xid8, ${checkpoint.globalPosition}::bigint)`;
  const pending = sql`select 1 from cases where change_xid < pg_snapshot_xmin(pg_current_snapshot())
          and (change_xid, change_seq) > ${after} limit ${LAG_CEILING}`;
  const { rows } = await sql<{ n: string }>`select count(*) as n from (${pending}) pending`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** `events` is the event store the `events` feed is read through; the case feed is the case store's own table. */
export async function projectorLag(db: Db, events: EventStore<Trx>, projectors: readonly FollowedProjector[]): Promise<ProjectorLag[]> {
  const lags: ProjectorLag[] = [];
  for (const projector of projectors) lags.push({ projector: projector.name, behind: await behind(db, events, projector) });
  return lags;
}
