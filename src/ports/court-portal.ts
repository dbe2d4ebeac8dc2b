/**
 * The court portal: where a live timeline fetch (POST /request-timeline with refresh
 * true) reads a High Court case's current status record and the order documents it links
 * to. The eCourts High Court services portal in production (an HTTP adapter in
 * src/adapters/court-portal), a loopback server serving the real fixture records in tests.
 * Calls are single attempts: retries belong to the caller (the timeline workflow's
 * activity retry policy), which can tell a timeout from a portal that is down.
 */
import type { PortalCaseRecord } from '../domain/timeline/portal-record.ts';

/** The document an order row links to: its `documentId` (the portal's display_pdf filename). */
export interface OrderDocumentRef {
  readonly documentId: string;
}

export interface CourtPortal {
  /** The live case-status record for a CNR, or null when the portal has none. Throws CourtPortalTimeoutError / CourtPortalUnavailableError. */
  fetchCaseStatus(cnr: string, signal?: AbortSignal): Promise<PortalCaseRecord | null>;
  /** An order/judgment document the record links to, as bytes (PDF); null when the portal has no such document for the CNR. Throws as above. */
  fetchOrderDocument(cnr: string, order: OrderDocumentRef, signal?: AbortSignal): Promise<Uint8Array | null>;
}

/** The portal gave no answer within the call's timeout. */
export class CourtPortalTimeoutError extends Error {
  override readonly name = 'CourtPortalTimeoutError';
}

/** The portal is unreachable, failing (5xx) or answering something that is not its record or document. */
export class CourtPortalUnavailableError extends Error {
  override readonly name = 'CourtPortalUnavailableError';
}
