/**
 * The timeline of a case we hold, from what ingest kept of its eCourts record
 * (src/corpus/sources/ecourts-hc.ts): the case row's number, court, filing and decision
 * dates, and its `extra` JSON, which keeps the record's CNR, registration and first-hearing
 * dates, stage, disposal, coram and the hearing and order rows as the source gave them.
 * The rows go through the same reader as a live record, so the stored and the live
 * timeline of one record differ only in source, fetchedAt and the court's name. This is
 * what a timeline request without refresh answers from.
 */
import type { CaseRecord, Court, Quirk } from '../case/case-record.ts';
import type { CaseTimeline } from './case-timeline.ts';
import { normaliseCnr } from './cnr.ts';
import { FieldReader, readHearings, readOrders } from './read-portal-record.ts';
import { buildTimeline, type TimelineFacts } from './timeline-from-portal.ts';

/** The parts of a stored case (a `cases` row) the timeline needs. */
export type StoredCase = Pick<CaseRecord, 'caseNumber' | 'filingDate' | 'decisionDate' | 'extra'> & {
  readonly court: Pick<Court, 'code' | 'name'>;
};

export interface StoredTimelineOptions {
  /** When the record was ingested (the row's ingested_at, ISO timestamp). */
  readonly fetchedAt: string;
}

/** Null when the case carries no CNR (a Supreme Court judgment): it has no registry timeline. */
export function timelineFromStoredCase(stored: StoredCase, options: StoredTimelineOptions): CaseTimeline | null {
  const quirks: Quirk[] = [];
  const extra = new FieldReader(stored.extra, 'extra.', quirks);
  const printed = extra.text('cnr');
  const cnr = printed === null ? null : normaliseCnr(printed);
  if (cnr === null) return null;
  const facts: TimelineFacts = {
    cnr,
    filingDate: stored.filingDate,
    registrationDate: extra.text('registrationDate'),
    firstHearingDate: extra.text('firstHearingDate'),
    decisionDate: stored.decisionDate,
    stage: extra.text('caseStatus'),
    natureOfDisposal: extra.text('natureOfDisposal'),
    coram: extra.text('coram'),
    hearings: readHearings(extra.list('hearings'), quirks),
    orders: readOrders(extra.list('orders'), quirks),
    quirks: [],
  };
  const court = { code: stored.court.code, name: stored.court.name };
  return buildTimeline(facts, { caseNumber: stored.caseNumber, court, source: 'stored', fetchedAt: options.fetchedAt }, quirks);
}
