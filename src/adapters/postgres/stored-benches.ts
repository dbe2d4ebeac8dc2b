/** The judge spellings on the benches of the case store, per court, for the judge lookup. */
import { sql } from 'kysely';
import type { StoredBench } from '../../ports/stored-benches.ts';
import type { Db } from '../../db/database.ts';

export async function readStoredBenches(db: Db): Promise<StoredBench[]> {
  const result = await sql<StoredBench>`
    select j.name, c.court_name,
           min(c.decision_date)::text as first_decision, max(c.decision_date)::text as last_decision,
           count(*)::int as cases
    from cases c, jsonb_array_elements_text(c.judges) as j(name)
    where not c.restricted and j.name <> ''
    group by j.name, c.court_name`.execute(db);
  return result.rows;
}
