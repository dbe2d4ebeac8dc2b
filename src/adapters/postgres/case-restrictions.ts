/**
 * CaseRestrictions over the case store: `cases.restricted`, set in the same transaction
 * as the CaseRestricted event, read by primary key for one page of hits.
 */
import type { Db } from '../../db/database.ts';
import type { CaseRestrictions } from '../../ports/case-restrictions.ts';

export class PostgresCaseRestrictions implements CaseRestrictions {
  constructor(private readonly db: Db) {}

  async restrictedAmong(caseIds: readonly string[]): Promise<ReadonlySet<string>> {
    if (caseIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('cases')
      .select('caseId')
      .where('caseId', 'in', [...caseIds])
      .where('restricted', '=', true)
      .execute();
    return new Set(rows.map((r) => r.caseId));
  }
}
