/**
 * The eCourts High Court case-status record as the portal holds it: every field of its
 * case-history page (case details, case status, parties, FIR, hearing history, orders,
 * objections), under names in our words with the portal's label beside each. Values are
 * kept as the portal printed them, dates included (DD-MM-YYYY on the portal, ISO in the
 * fixtures' JSON); the timeline mappers parse them and report what they cannot read.
 * `quirks` lists what reading the record had to set aside.
 */
import type { Quirk } from '../case/case-record.ts';

export interface PortalParty {
  readonly name: string | null;
  /** As printed: several advocates in one comma-separated string. */
  readonly advocate: string | null;
}

export interface PortalFir {
  readonly state: string | null;
  readonly district: string | null;
  readonly policeStation: string | null;
  readonly number: string | null;
  readonly year: string | null;
}

/** One row of "History of Case Hearing". */
export interface PortalHearing {
  /** srno: the portal's row number; a disposal row can carry 0 and sit first. */
  readonly serialNumber: number | null;
  readonly causeListType: string | null;
  /** court_no: the court room ("0" on the J&K first-listing rows). */
  readonly courtNumber: string | null;
  readonly judge: string | null;
  /** "Business On Date"; absent on the first-listing row, which only fixes a date. */
  readonly businessDate: string | null;
  /** "Hearing Date": the date fixed at this business for the next hearing. */
  readonly hearingDate: string | null;
  /** "Purpose of hearing". */
  readonly purpose: string | null;
  /** The business popup of the row (viewBusiness), when it was fetched. */
  readonly details: PortalHearingDetails | null;
}

export interface PortalHearingDetails {
  readonly nextHearingDate: string | null;
  readonly nextPurpose: string | null;
  readonly shortOrder: string | null;
}

/** One row of "Orders". */
export interface PortalOrder {
  /** "Order Number": the row's place in the portal's list, from 1. */
  readonly orderNumber: number;
  /** "Order Date". */
  readonly orderDate: string | null;
  readonly judge: string | null;
  /** The `filename` key of the row's display_pdf link: the portal's id of the document. */
  readonly documentId: string | null;
  /** True for a judgment, false for an order; null when the listing does not say. */
  readonly isJudgment: boolean | null;
}

export interface PortalObjection {
  readonly scrutinyDate: string | null;
  readonly objection: string | null;
  readonly complianceDate: string | null;
  readonly receiptDate: string | null;
}

export interface PortalCaseRecord {
  /** "CNR Number", compact. */
  readonly cnr: string;
  readonly caseType: string | null;
  /** "Registration Number", e.g. 3142/2018. */
  readonly registrationNumber: string | null;
  /** The portal's internal 15-digit case number. */
  readonly internalCaseNumber: string | null;
  readonly filingNumber: string | null;
  readonly filingDate: string | null;
  readonly registrationDate: string | null;
  readonly firstHearingDate: string | null;
  readonly decisionDate: string | null;
  /** "Case Status" / "Stage of Case", e.g. MOTION, BAIL HEARING, CASE DISPOSED. */
  readonly stage: string | null;
  readonly natureOfDisposal: string | null;
  readonly category: string | null;
  readonly subCategory: string | null;
  /** "Judicial": the registry section, e.g. Criminal Section. */
  readonly section: string | null;
  /** "Bench", e.g. Single Bench. */
  readonly benchType: string | null;
  /** "Coram": court room number run into the presiding judge's name. */
  readonly coram: string | null;
  readonly state: string | null;
  readonly district: string | null;
  readonly notBeforeMe: string | null;
  readonly fir: PortalFir | null;
  readonly petitioners: readonly PortalParty[];
  readonly respondents: readonly PortalParty[];
  /** In the portal's order, which is not date order. */
  readonly hearings: readonly PortalHearing[];
  readonly orders: readonly PortalOrder[];
  readonly objections: readonly PortalObjection[];
  readonly quirks: readonly Quirk[];
}
