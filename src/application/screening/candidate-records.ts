/**
 * Loads the candidate cases a party retrieval found, from the case store (the authority on
 * restriction: a case restricted after the index last saw it is dropped and reported as
 * withheld, never scored). Unlike a search listing, a litigation check reads the judgment
 * text too: identifiers, relations and addresses near the party's name live there.
 */
import type { Db } from '../../db/database.ts';
import type { Party } from '../../domain/case/case-record.ts';
import type { CandidateRecord } from '../../domain/screening/features.ts';

export interface LoadedCandidate extends CandidateRecord {
  readonly courtCode: string;
}

export interface LoadedCandidates {
  /** In the order asked for. */
  readonly candidates: readonly LoadedCandidate[];
  /** A case asked for is restricted, or gone from the store. */
  readonly withheld: boolean;
}

export async function loadCandidates(db: Db, caseIds: readonly string[]): Promise<LoadedCandidates> {
  if (caseIds.length === 0) return { candidates: [], withheld: false };
  const rows = await db
    .selectFrom('cases')
    .select([
      'caseId',
      'caseNumber',
      'courtCode',
      'courtName',
      'title',
      'petitioners',
      'respondents',
      'text',
      'decisionDate',
      'filingDate',
      'restricted',
    ])
    .where('caseId', 'in', [...caseIds])
    .execute();
  const byId = new Map(rows.map((r) => [r.caseId, r]));
  const candidates: LoadedCandidate[] = [];
  for (const id of caseIds) {
    const row = byId.get(id);
    if (!row || row.restricted) continue;
    const petitioners = row.petitioners as Party[];
    const respondents = row.respondents as Party[];
    candidates.push({
      caseId: row.caseId,
      caseNumber: row.caseNumber,
      courtCode: row.courtCode,
      courtName: row.courtName,
      title: row.title,
      petitioners: petitioners.map((p) => p.name),
      respondents: respondents.map((p) => p.name),
      advocates: [...petitioners, ...respondents].flatMap((p) => p.advocates),
      text: row.text,
      decisionDate: row.decisionDate,
      filingDate: row.filingDate,
    });
  }
  return { candidates, withheld: candidates.length < caseIds.length };
}
