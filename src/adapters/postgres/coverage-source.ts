/** Reads the coverage aggregates from the case store in one grouped query. */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CoverageAggregate, CourtLevel } from '../../domain/coverage/coverage.ts';

export async function readCoverageAggregates(db: Db): Promise<CoverageAggregate[]> {
  const rows = await db
    .selectFrom('cases')
    .select([
      'courtCode',
      'courtName',
      'courtLevel',
      'decisionYear',
      sql<number>`count(*)::int`.as('total'),
      sql<number>`(count(*) filter (where document_bearing))::int`.as('documentBearing'),
      sql<string | null>`max(decision_date)::text`.as('latestDecisionDate'),
    ])
    .where('restricted', '=', false)
    .groupBy(['courtCode', 'courtName', 'courtLevel', 'decisionYear'])
    .execute();
  return rows.map((r) => ({
    courtCode: r.courtCode,
    courtName: r.courtName,
    courtLevel: r.courtLevel as CourtLevel,
    year: r.decisionYear,
    total: r.total,
    documentBearing: r.documentBearing,
    latestDecisionDate: r.latestDecisionDate,
  }));
}
