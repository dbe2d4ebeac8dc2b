/**
 * The case timeline we publish for POST /request-timeline: where a High Court case stands
 * and how it got there, from the eCourts case-status record, either as ingested ('stored')
 * or fetched from the portal on request ('live'). Dates are ISO YYYY-MM-DD; hearings and
 * orders are in date order. Nothing is guessed: a value the record does not give or we
 * cannot read is null, and what could not be read is listed in `quirks`.
 */
import type { Quirk } from '../case/case-record.ts';

export type TimelineSource = 'stored' | 'live';

/** From the record's stage, disposal and decision date; 'unknown' when it gives none of them. */
export type CaseStatus = 'pending' | 'disposed' | 'unknown';

export interface TimelineCourt {
  /** The CNR's state-and-court letters (GAHC) or the corpus court code. */
  readonly code: string;
  /** Null when only the CNR is known (a live fetch of a case we do not hold). */
  readonly name: string | null;
}

export interface TimelineHearing {
  /** The day the business was done; null on the first-listing row, which only fixes `hearingDate`. */
  readonly businessDate: string | null;
  /** The date fixed at this business for the next hearing; null when none was fixed (disposal). */
  readonly hearingDate: string | null;
  readonly judge: string | null;
  readonly purpose: string | null;
  readonly causeListType: string | null;
  readonly courtNumber: string | null;
  /** The portal's row number (srno), which does not follow date order. */
  readonly serialNumber: number | null;
  /** From the hearing's business detail, when the record holds it. */
  readonly nextPurpose: string | null;
  readonly shortOrder: string | null;
}

export interface TimelineOrder {
  /** The portal's order number: the order's place in its list, from 1. */
  readonly orderNumber: number;
  readonly orderDate: string | null;
  readonly judge: string | null;
  /** 'judgment' or 'order' when the portal says which; null when its listing does not. */
  readonly kind: 'order' | 'judgment' | null;
  readonly documentAvailable: boolean;
  /** The portal's id of the order's document, for CourtPortal.fetchOrderDocument; null when none is linked. */
  readonly documentId: string | null;
}

export interface CaseTimeline {
  readonly cnr: string;
  /** TYPE/NUMBER/YEAR as eCourts prints it, e.g. AB/3142/2018; null when the record has no registration. */
  readonly caseNumber: string | null;
  readonly court: TimelineCourt;
  readonly status: CaseStatus;
  /** The portal's stage of the case as printed, e.g. MOTION, BAIL HEARING, CASE DISPOSED. */
  readonly stage: string | null;
  readonly natureOfDisposal: string | null;
  /** The presiding judge as printed, without the court-room number the portal runs into it. */
  readonly coram: string | null;
  readonly filingDate: string | null;
  readonly registrationDate: string | null;
  readonly firstHearingDate: string | null;
  /** For a case not disposed: the date the latest hearing fixed, as the portal shows it (it can be past). */
  readonly nextHearingDate: string | null;
  readonly decisionDate: string | null;
  readonly hearings: readonly TimelineHearing[];
  readonly orders: readonly TimelineOrder[];
  readonly source: TimelineSource;
  /** When the record was obtained: the live fetch, or the ingest of the stored record (ISO timestamp). */
  readonly fetchedAt: string;
  readonly quirks: readonly Quirk[];
}
