/**
 * The registry side of a case we hold, as a timeline request needs it: its court, whether
 * it is withheld, its CNR and the timeline of the eCourts record ingest kept (null for a
 * case with no registry record, e.g. a Supreme Court judgment). Read by case id; a CNR we
 * hold is the case `hc-<CNR>`, the id ingest gives eCourts High Court records.
 */
import type { Db } from '../../db/database.ts';
import type { CourtLevel } from '../../domain/case/case-record.ts';
import type { CaseTimeline } from '../../domain/timeline/case-timeline.ts';
import { timelineFromStoredCase, type StoredCase } from '../../domain/timeline/timeline-from-stored.ts';

export interface StoredRecord {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly court: { readonly code: string; readonly name: string; readonly level: CourtLevel };
  readonly restricted: boolean;
  /** The record's CNR; null when the case carries none. */
  readonly cnr: string | null;
  readonly timeline: CaseTimeline | null;
}

/** The case id a CNR's eCourts record is held under. */
export function caseIdOfCnr(cnr: string): string {
  return `hc-${cnr}`;
}

export class StoredRecords {
  constructor(private readonly db: Db) {}

  async byCaseId(caseId: string): Promise<StoredRecord | null> {
    const row = await this.db
      .selectFrom('cases')
      .select([
        'caseId',
        'caseNumber',
        'courtCode',
        'courtName',
        'courtLevel',
        'restricted',
        'filingDate',
        'decisionDate',
        'extra',
        'ingestedAt',
      ])
      .where('caseId', '=', caseId)
      .executeTakeFirst();
    if (!row) return null;
    const court = { code: row.courtCode, name: row.courtName, level: row.courtLevel as CourtLevel };
    const timeline = timelineFromStoredCase(
      {
        caseNumber: row.caseNumber,
        filingDate: row.filingDate,
        decisionDate: row.decisionDate,
        extra: row.extra as StoredCase['extra'],
        court,
      },
      { fetchedAt: row.ingestedAt.toISOString() },
    );
    return { caseId: row.caseId, caseNumber: row.caseNumber, court, restricted: row.restricted, cnr: timeline?.cnr ?? null, timeline };
  }
}
