/**
 * Builds the case timeline from an eCourts case-status record. The portal lists hearings
 * in its own row order (a disposal row numbered 0 comes first); the timeline puts them in
 * date order, a first-listing row (no business date, only the date it fixed) just before
 * the business done on that date. Status comes from the record's stage, disposal and
 * decision date, and where they disagree the timeline says so in `quirks` rather than
 * choosing. Shared by the live mapper below and the stored one (timeline-from-stored.ts).
 */
import type { Quirk } from '../case/case-record.ts';
import type { CaseStatus, CaseTimeline, TimelineCourt, TimelineHearing, TimelineOrder, TimelineSource } from './case-timeline.ts';
import { portalDate } from './portal-dates.ts';
import type { PortalCaseRecord, PortalHearing, PortalOrder } from './portal-record.ts';

/** The parts of a record a timeline is built from. */
export type TimelineFacts = Pick<
  PortalCaseRecord,
  | 'cnr'
  | 'filingDate'
  | 'registrationDate'
  | 'firstHearingDate'
  | 'decisionDate'
  | 'stage'
  | 'natureOfDisposal'
  | 'coram'
  | 'hearings'
  | 'orders'
  | 'quirks'
>;

export interface TimelineContext {
  readonly caseNumber: string | null;
  readonly court: TimelineCourt;
  readonly source: TimelineSource;
  readonly fetchedAt: string;
}

function cleanName(printed: string | null): string | null {
  const name = (printed ?? '').replace(/\s+/g, ' ').trim();
  return name === '' ? null : name;
}

/**
 * Quirks found here name a row by the portal's own numbers (srno, order number): the
 * reader may have left unreadable rows out, so a position among the rows read would not
 * match the record's.
 */
function hearing(row: PortalHearing, index: number, quirks: Quirk[]): TimelineHearing {
  const field = row.serialNumber === null ? `hearings[read ${index}]` : `hearings[srno ${row.serialNumber}]`;
  const businessDate = portalDate(`${field}.businessDate`, row.businessDate, quirks);
  const hearingDate = portalDate(`${field}.hearingDate`, row.hearingDate, quirks);
  if (businessDate !== null && hearingDate !== null && hearingDate < businessDate) {
    quirks.push({ field: `${field}.hearingDate`, issue: `before the business date ${businessDate}`, value: hearingDate });
  }
  return {
    businessDate,
    hearingDate,
    judge: cleanName(row.judge),
    purpose: row.purpose,
    causeListType: row.causeListType,
    courtNumber: row.courtNumber,
    serialNumber: row.serialNumber,
    nextPurpose: row.details?.nextPurpose ?? null,
    shortOrder: row.details?.shortOrder ?? null,
  };
}

function order(row: PortalOrder, quirks: Quirk[]): TimelineOrder {
  const kind = row.isJudgment === null ? null : row.isJudgment ? 'judgment' : 'order';
  return {
    orderNumber: row.orderNumber,
    orderDate: portalDate(`orders[no ${row.orderNumber}].orderDate`, row.orderDate, quirks),
    judge: cleanName(row.judge),
    kind,
    documentAvailable: row.documentId !== null,
    documentId: row.documentId,
  };
}

/** Ascending, nulls last. */
function compareNullable<T extends string | number>(a: T | null, b: T | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

function byHearingDate(a: TimelineHearing, b: TimelineHearing): number {
  return (
    compareNullable(a.businessDate ?? a.hearingDate, b.businessDate ?? b.hearingDate) ||
    compareNullable(a.businessDate === null ? 0 : 1, b.businessDate === null ? 0 : 1) ||
    compareNullable(a.serialNumber, b.serialNumber)
  );
}

function byOrderDate(a: TimelineOrder, b: TimelineOrder): number {
  return compareNullable(a.orderDate, b.orderDate) || a.orderNumber - b.orderNumber;
}

function caseStatus(stage: string | null, disposal: string | null, decisionDate: string | null, quirks: Quirk[]): CaseStatus {
  const stageSaysDisposed = stage !== null && /disposed/i.test(stage);
  if (stageSaysDisposed && decisionDate === null) {
    quirks.push({ field: 'decisionDate', issue: `none given, yet the stage is "${stage}"`, value: null });
  }
  if (stage !== null && !stageSaysDisposed && decisionDate !== null) {
    quirks.push({ field: 'stage', issue: `not a disposal, yet a decision date ${decisionDate} is given`, value: stage });
  }
  if (stageSaysDisposed || disposal !== null || decisionDate !== null) return 'disposed';
  return stage === null ? 'unknown' : 'pending';
}

/** The date the latest hearing fixed, while the case is not disposed. */
function nextHearingDate(status: CaseStatus, hearings: readonly TimelineHearing[]): string | null {
  if (status === 'disposed') return null;
  const latest = hearings.findLast((h) => (h.businessDate ?? h.hearingDate) !== null);
  if (latest?.hearingDate == null) return null;
  return latest.businessDate === null || latest.hearingDate > latest.businessDate ? latest.hearingDate : null;
}

export function buildTimeline(facts: TimelineFacts, context: TimelineContext, found: readonly Quirk[] = []): CaseTimeline {
  const quirks: Quirk[] = [...facts.quirks, ...found];
  const filingDate = portalDate('filingDate', facts.filingDate, quirks);
  const decisionDate = portalDate('decisionDate', facts.decisionDate, quirks);
  if (filingDate !== null && decisionDate !== null && decisionDate < filingDate) {
    quirks.push({ field: 'decisionDate', issue: `before the filing date ${filingDate}`, value: decisionDate });
  }
  const hearings = facts.hearings.map((h, i) => hearing(h, i, quirks)).sort(byHearingDate);
  const orders = facts.orders.map((o) => order(o, quirks)).sort(byOrderDate);
  const status = caseStatus(facts.stage, facts.natureOfDisposal, decisionDate, quirks);
  return {
    cnr: facts.cnr,
    caseNumber: context.caseNumber,
    court: context.court,
    status,
    stage: facts.stage,
    natureOfDisposal: facts.natureOfDisposal,
    coram: cleanName((facts.coram ?? '').replace(/^\d+/, '')),
    filingDate,
    registrationDate: portalDate('registrationDate', facts.registrationDate, quirks),
    firstHearingDate: portalDate('firstHearingDate', facts.firstHearingDate, quirks),
    nextHearingDate: nextHearingDate(status, hearings),
    decisionDate,
    hearings,
    orders,
    source: context.source,
    fetchedAt: context.fetchedAt,
    quirks,
  };
}

/** TYPE/NUMBER/YEAR from the case type and a registration number N/YYYY, as eCourts prints it. */
function printedCaseNumber(record: PortalCaseRecord, quirks: Quirk[]): string | null {
  const m = /^(\d+)\s*\/\s*(\d{4})$/.exec(record.registrationNumber ?? '');
  if (record.caseType !== null && m) return `${record.caseType}/${m[1] ?? ''}/${m[2] ?? ''}`;
  quirks.push({
    field: 'caseNumber',
    issue: 'not printable: needs a case type and a registration number N/YYYY',
    value: record.registrationNumber,
  });
  return null;
}

export interface LiveTimelineOptions {
  /** When the portal answered (ISO timestamp). */
  readonly fetchedAt: string;
  /** The court as the corpus names it, when we hold the case; else the CNR's letters, unnamed. */
  readonly court?: TimelineCourt;
}

export function timelineFromPortalRecord(record: PortalCaseRecord, options: LiveTimelineOptions): CaseTimeline {
  const quirks: Quirk[] = [];
  const caseNumber = printedCaseNumber(record, quirks);
  const court = options.court ?? { code: record.cnr.slice(0, 4), name: null };
  return buildTimeline(record, { caseNumber, court, source: 'live', fetchedAt: options.fetchedAt }, quirks);
}
