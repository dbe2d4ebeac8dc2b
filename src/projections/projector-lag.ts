/**
 * How far each async projector trails what is committed, for the metrics scrape: the
 * committed events (or case changes, for the index projectors that follow the case store)
 * past its checkpoint, counted in the order the projector reads them. A count, not a
 * position difference, because positions are claimed in one order and committed in
 * another. Counting stops at LAG_CEILING, so a scrape of a projector rebuilding from zero
 * stays an index walk of bounded length; the ceiling then reads "at least this many".
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ProjectorLag } from '../ports/metrics.ts';
import { START } from '../adapters/postgres/committed-events.ts';

export const LAG_CEILING = 100_000;

export interface FollowedProjector {
  readonly name: string;
  /** `events`: the event store; `cases`: the case store's change feed (case-change-feed.ts). */
  readonly feed: 'events' | 'cases';
}

async function behind(db: Db, projector: FollowedProjector): Promise<number> {
  const checkpoint =
    (await db
      .selectFrom('projectorCheckpoints')
      .select(['transactionId', 'globalPosition'])
      .where('projector', '=', projector.name)
      .executeTakeFirst()) ?? START;
  const after = sql`(${checkpoint.transactionId}::xid8, ${checkpoint.globalPosition}::bigint)`;
  const pending =
    projector.feed === 'events'
      ? sql`select 1 from events where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          and (transaction_id, global_position) > ${after} limit ${LAG_CEILING}`
      : sql`select 1 from cases where change_xid < pg_snapshot_xmin(pg_current_snapshot())
          and (change_xid, change_seq) > ${after} limit ${LAG_CEILING}`;
  const { rows } = await sql<{ n: string }>`select count(*) as n from (${pending}) pending`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export async function projectorLag(db: Db, projectors: readonly FollowedProjector[]): Promise<ProjectorLag[]> {
  const lags: ProjectorLag[] = [];
  for (const projector of projectors) lags.push({ projector: projector.name, behind: await behind(db, projector) });
  return lags;
}
