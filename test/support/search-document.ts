/**
 * A made-up Supreme Court civil appeal as the search index takes it, for tests that build
 * their own index: number `i` of `year`, the given parties and decision date, no text
 * unless given. Real documents come from search-corpus.ts.
 */
import type { SearchDocument } from '../../src/ports/search-index.ts';

export function civilAppeal(
  caseId: string,
  i: number,
  fields: { petitioner: string; respondent: string; decisionDate: string; text?: string | null; withheld?: boolean },
): SearchDocument {
  const year = fields.decisionDate.slice(0, 4);
  return {
    caseId,
    caseNumber: `C.A. No. ${String(i)} of ${year}`,
    caseNumberNormalised: `CA ${String(i)} ${year}`,
    cnr: null,
    courtCode: 'SC',
    courtName: 'Supreme Court of India',
    caseType: 'CA',
    title: null,
    petitioners: [fields.petitioner],
    respondents: [fields.respondent],
    judges: [],
    decisionDate: fields.decisionDate,
    decisionYear: Number(year),
    summary: null,
    text: fields.text ?? null,
    withheld: fields.withheld ?? false,
  };
}
