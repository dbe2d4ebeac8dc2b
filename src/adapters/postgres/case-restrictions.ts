/**
 * CaseRestrictions over the case store: `cases.restricted`, set in the same transaction
 * as the CaseRestricted event, with the row's change sequence (stamped by the change-feed
 * trigger on every write) and the analysis flag, read by primary key for one page of hits.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CaseRestrictions, CaseState } from '../../ports/case-restrictions.ts';

export class PostgresCaseRestrictions implements CaseRestrictions {
  constructor(private readonly db: Db) {}

  async statesOf(caseIds: readonly string[]): Promise<ReadonlyMap<string, CaseState>> {
    if (caseIds.length === 0) return new Map();
    // One statement text for any page size (one prepared statement), the ids as one JSON parameter.
    const { rows } = await sql<{ caseId: string; restricted: boolean; changeSeq: number; hasAnalysis: boolean }>`
      select c.case_id as "caseId", c.restricted, c.change_seq as "changeSeq",
        exists (select 1 from case_analyses a where a.case_id = c.case_id) as "hasAnalysis"
      from cases c where c.case_id in (select jsonb_array_elements_text(${JSON.stringify(caseIds)}::text::jsonb))`.execute(this.db);
    return new Map(rows.map((r) => [r.caseId, { restricted: r.restricted, version: r.changeSeq, hasAnalysis: r.hasAnalysis }]));
  }
}
