/**
 * The case record: one court document or registry record as the corpus holds it, in one
 * shape whatever the source. Source oddities are kept as given and listed in `quirks`
 * (an SC judgment dated 1902 for a 2002 appeal stays 1902, flagged), so nothing the
 * courts published is silently rewritten. Pure: no IO, no clock; hashing is done by the
 * ingest layer over `canonicalJson` (src/domain/canonical-json.ts).
 */
import { normaliseCaseNumber } from './case-number.ts';
import { yearOf } from './dates.ts';

export type CourtLevel = 'supreme' | 'high' | 'district' | 'tribunal';

export interface Court {
  code: string;
  name: string;
  level: CourtLevel;
}

export const SUPREME_COURT: Court = { code: 'SC', name: 'Supreme Court of India', level: 'supreme' };

/** The day the Supreme Court first sat; an SC decision before it is a source error. */
export const SUPREME_COURT_FIRST_SITTING = '1950-01-28';

export interface Party {
  name: string;
  advocates: string[];
}

export interface Quirk {
  field: string;
  issue: string;
  value: string | null;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface CaseRecord {
  caseId: string;
  source: string;
  sourceRef: string;
  caseNumber: string;
  caseNumberNormalised: string;
  court: Court;
  bench: string | null;
  caseType: string | null;
  title: string | null;
  parties: { petitioners: Party[]; respondents: Party[] };
  judges: string[];
  decisionDate: string | null;
  filingDate: string | null;
  citations: string[];
  text: string | null;
  summary: string | null;
  documentBearing: boolean;
  restricted: false;
  quirks: Quirk[];
  extra: { [key: string]: JsonValue };
}

/** Everything a mapper decides; the rest (normalised number, restricted) is derived. */
export type CaseRecordInput = Omit<CaseRecord, 'caseNumberNormalised' | 'restricted' | 'quirks'> & {
  quirks?: Quirk[];
  /** Year printed in the case number, when known: a decision before it is flagged. */
  caseNumberYear?: number | null;
};

export type MapResult = { ok: CaseRecord } | { rejected: { sourceRef: string; reason: string } };

export function rejected(sourceRef: string, reason: string): MapResult {
  return { rejected: { sourceRef, reason } };
}

/** Quirks every record gets checked for, whatever the source. */
function dateQuirks(input: Omit<CaseRecordInput, 'caseNumberYear'>, caseNumberYear: number | null): Quirk[] {
  const quirks: Quirk[] = [];
  const decided = input.decisionDate;
  if (decided !== null && input.court.level === 'supreme' && decided < SUPREME_COURT_FIRST_SITTING) {
    quirks.push({ field: 'decisionDate', issue: 'before the Supreme Court first sat (1950-01-28)', value: decided });
  }
  const decidedYear = yearOf(decided);
  if (decidedYear !== null && caseNumberYear !== null && decidedYear < caseNumberYear) {
    quirks.push({
      field: 'decisionDate',
      issue: `decided before the case-number year ${caseNumberYear}`,
      value: decided,
    });
  }
  if (decided !== null && input.filingDate !== null && decided < input.filingDate) {
    quirks.push({ field: 'decisionDate', issue: `before the filing date ${input.filingDate}`, value: decided });
  }
  return quirks;
}

export function buildCaseRecord(input: CaseRecordInput): MapResult {
  const { caseNumberYear = null, quirks = [], ...fields } = input;
  const caseNumber = fields.caseNumber.replace(/\s+/g, ' ').trim();
  const caseNumberNormalised = normaliseCaseNumber(caseNumber);
  if (caseNumberNormalised === '') return rejected(fields.sourceRef, `case number "${caseNumber}" has no letters or digits`);
  return {
    ok: {
      ...fields,
      caseNumber,
      caseNumberNormalised,
      restricted: false,
      quirks: [...quirks, ...dateQuirks(fields, caseNumberYear)],
    },
  };
}

/** `A v. B`, or whichever side is known, or null. */
export function titleFromParties(petitioners: Party[], respondents: Party[]): string | null {
  const side = (ps: Party[]) =>
    ps
      .map((p) => p.name)
      .filter((n) => n !== '')
      .join(', ');
  const a = side(petitioners);
  const b = side(respondents);
  if (a && b) return `${a} v. ${b}`;
  return a || b || null;
}
