/**
 * Whether a projector that follows the case store's change feed has anything committed past
 * its checkpoint, in one statement: its polling loop asks this before a batch, so a
 * caught-up projector costs one round trip a poll instead of a batch's lock and reads. It
 * answers by the rule the batch reads by (below the oldest transaction in flight, in
 * (transaction, sequence) order), so a late commit is never missed, only left to a later
 * poll, as the batch would leave it. The checkpoint is read in the same statement, so a
 * batch another instance ran is seen.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

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
