/**
 * CaseRestrictions over the case store: `cases.restricted`, set in the same transaction
 * as the CaseRestricted event, with the row's change sequence (stamped by the change-feed
 * trigger on every write) and the analysis flag, read by primary key for one page of hits.
 */
import type { Db } from '../../db/database.ts';
import type { CaseRestrictions, CaseState } from '../../ports/case-restrictions.ts';

export class PostgresCaseRestrictions implements CaseRestrictions {
  constructor(private readonly db: Db) {}

  async statesOf(caseIds: readonly string[]): Promise<ReadonlyMap<string, CaseState>> {
    if (caseIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('cases')
      .select(['caseId', 'restricted', 'changeSeq'])
      .select((eb) =>
        eb
          .exists(eb.selectFrom('caseAnalyses').select('caseAnalyses.caseId').whereRef('caseAnalyses.caseId', '=', 'cases.caseId'))
          .as('hasAnalysis'),
      )
      .where('caseId', 'in', [...caseIds])
      .execute();
    return new Map(rows.map((r) => [r.caseId, { restricted: r.restricted, version: r.changeSeq, hasAnalysis: Boolean(r.hasAnalysis) }]));
  }
}
