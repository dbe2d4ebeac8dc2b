/**
 * The court portal over HTTP (COURT_PORTAL_URL), speaking a documented subset of the
 * eCourts High Court services portal's form-POST interface:
 *
 *   POST {base}/hcservices/cases_qry/o_civil_case_history.php
 *        application/x-www-form-urlencoded  cino=<CNR>
 *     200 application/json {"cino": "<CNR>", "case_history": {...}}
 *         the case-history record under the keys the eCourts client library gives its
 *         fields (see src/domain/timeline/read-portal-record.ts), dates DD-MM-YYYY as the
 *         portal prints them, each order with `order_no` and its document's `filename`
 *     200 application/json {"cino": "<CNR>", "case_history": null, "message": "Record Not Found"}
 *
 *   GET {base}/hcservices/cases/display_pdf.php?filename=<documentId>&cino=<CNR>
 *     200 application/pdf   the order's document
 *     200 application/json  {"message": "Record Not Found"}
 *
 * As on the portal, "no such record" is a 200 answer, so any other status (a 404 from a
 * wrong base URL, a 5xx) is the portal failing, never a null. Where the real portal
 * differs: it answers the case history as an HTML page and wants a session token, a
 * captcha and its state and court codes beside the CNR; a mirror or proxy that speaks this
 * subset is what this adapter talks to (test/support/ecourts-portal-server.ts is one).
 * Each call is one attempt whose timeout covers the whole answer, body included; retries
 * are the caller's (see src/ports/court-portal.ts). A caller's own abort passes through
 * as it is: it is not the portal's fault.
 */
import { z } from 'zod';
import { normaliseCnr } from '../../domain/timeline/cnr.ts';
import type { PortalCaseRecord } from '../../domain/timeline/portal-record.ts';
import { readPortalRecord } from '../../domain/timeline/read-portal-record.ts';
import { CourtPortalTimeoutError, CourtPortalUnavailableError, type CourtPortal, type OrderDocumentRef } from '../../ports/court-portal.ts';

export const CASE_HISTORY_PATH = '/hcservices/cases_qry/o_civil_case_history.php';
export const ORDER_DOCUMENT_PATH = '/hcservices/cases/display_pdf.php';
export const RECORD_NOT_FOUND = 'Record Not Found';

const CaseHistoryAnswer = z.object({
  cino: z.string(),
  case_history: z.record(z.string(), z.unknown()).nullable(),
});
const MessageAnswer = z.object({ message: z.string() });

export interface EcourtsHttpPortalOptions {
  /** Base URL; the portal's paths above are appended. */
  readonly url: string;
  /** Per call, covering the answer's body too. */
  readonly timeoutMs?: number;
}

interface Answer {
  readonly contentType: string;
  readonly body: Uint8Array;
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46]; // %PDF

function json(answer: Answer): unknown {
  if (!answer.contentType.startsWith('application/json')) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(answer.body));
  } catch {
    return undefined;
  }
}

/** fetch() reports "fetch failed" and keeps the reason (ECONNREFUSED, a reset) as its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

export class EcourtsHttpPortal implements CourtPortal {
  readonly #base: string;
  readonly #timeoutMs: number;

  constructor(options: EcourtsHttpPortalOptions) {
    this.#base = options.url.replace(/(?<!\/)\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** A string that is no CNR names no record, so the portal is not asked. */
  async fetchCaseStatus(cnr: string, signal?: AbortSignal): Promise<PortalCaseRecord | null> {
    const wanted = normaliseCnr(cnr);
    if (wanted === null) return null;
    const answer = await this.#call(CASE_HISTORY_PATH, { method: 'POST', body: new URLSearchParams({ cino: wanted }) }, signal);
    const parsed = CaseHistoryAnswer.safeParse(json(answer));
    if (!parsed.success) throw this.#unavailable(`answered ${answer.contentType || 'no content type'} that is not a case history`);
    if (parsed.data.case_history === null) return null;
    const read = readPortalRecord(parsed.data.case_history);
    if ('invalid' in read) throw this.#unavailable(`answered an unreadable case history: ${read.invalid}`);
    if (read.record.cnr !== wanted) throw this.#unavailable(`answered the case history of ${read.record.cnr} when asked for ${wanted}`);
    return read.record;
  }

  async fetchOrderDocument(cnr: string, order: OrderDocumentRef, signal?: AbortSignal): Promise<Uint8Array | null> {
    const wanted = normaliseCnr(cnr);
    if (wanted === null) return null;
    const query = new URLSearchParams({ filename: order.documentId, cino: wanted });
    const answer = await this.#call(`${ORDER_DOCUMENT_PATH}?${query.toString()}`, { method: 'GET' }, signal);
    if (answer.contentType.startsWith('application/pdf')) {
      if (!PDF_MAGIC.every((byte, i) => answer.body[i] === byte)) throw this.#unavailable('answered application/pdf that is not a PDF');
      return answer.body;
    }
    const message = MessageAnswer.safeParse(json(answer));
    if (message.success && message.data.message === RECORD_NOT_FOUND) return null;
    throw this.#unavailable(`answered ${answer.contentType || 'no content type'} instead of a document`);
  }

  #unavailable(what: string, cause?: unknown): CourtPortalUnavailableError {
    return new CourtPortalUnavailableError(`court portal at ${this.#base} ${what}`, { cause });
  }

  /** One request, its body read in full, under the call's timeout. */
  async #call(path: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Answer> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await fetch(`${this.#base}${path}`, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw this.#unavailable(`answered HTTP ${String(response.status)}`);
      }
      const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
      return { contentType, body: new Uint8Array(await response.arrayBuffer()) };
    } catch (error) {
      if (error instanceof CourtPortalUnavailableError || signal?.aborted) throw error;
      if (timeout.aborted) {
        throw new CourtPortalTimeoutError(`court portal at ${this.#base} gave no answer within ${String(this.#timeoutMs)} ms`);
      }
      throw this.#unavailable(`is unreachable: ${describe(error)}`, error);
    }
  }
}
