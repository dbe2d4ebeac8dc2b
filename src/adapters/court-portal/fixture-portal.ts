/**
 * A court portal over the real eCourts High Court case-status fixtures
 * (`ecourts-hc-case-status-fixtures` in the corpus folder): test mode's live fetches
 * (`refresh: true`) go through it, so a developer exercises the whole paid path (hold,
 * workflow, charge, timeline, webhook) for test credits and gets the same answer each time.
 * The tests' loopback portal serves the same records over HTTP.
 *
 * A record is read as the portal prints it (dates DD-MM-YYYY, orders numbered as its Orders
 * table numbers them) and parsed by the same reader as the HTTP adapter's answers. The
 * fixtures hold no order documents: an order's PDF is rendered from its listing alone (CNR,
 * case, order number, date, judge) and says that its text is not held. No text is made up.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { normaliseCnr } from '../../domain/timeline/cnr.ts';
import type { PortalCaseRecord } from '../../domain/timeline/portal-record.ts';
import { readPortalRecord } from '../../domain/timeline/read-portal-record.ts';
import { CourtPortalUnavailableError, type CourtPortal, type OrderDocumentRef } from '../../ports/court-portal.ts';
import { WinAnsiFitter } from '../pdf/win-ansi-text.ts';

export type FixtureRecord = Readonly<Record<string, unknown>>;

/** The fixture folder inside a corpus folder. */
export const PORTAL_FIXTURES = 'ecourts-hc-case-status-fixtures';

/** What every order PDF rendered from the fixtures says in place of the order's text. */
export const DOCUMENT_NOT_HELD = 'Document text not held in this fixture';

/** The rows of a fixture JSONL file's text. */
export function jsonlRows(text: string): FixtureRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as FixtureRecord);
}

async function rows(dir: string, file: 'case_details.jsonl' | 'cases.jsonl'): Promise<FixtureRecord[]> {
  return jsonlRows(await readFile(join(dir, file), 'utf8'));
}

/** Records by CNR from case details, then list-level search results: the first of a CNR kept, as ingest does. */
export function recordsByCnr(details: readonly FixtureRecord[], listed: readonly FixtureRecord[]): Map<string, FixtureRecord> {
  const records = new Map<string, FixtureRecord>();
  for (const row of [...details, ...listed]) {
    const cnr = row.cnr_number;
    if (typeof cnr === 'string' && !records.has(cnr)) records.set(cnr, row);
  }
  return records;
}

export async function fixtureRecords(dir: string): Promise<Map<string, FixtureRecord>> {
  return recordsByCnr(await rows(dir, 'case_details.jsonl'), await rows(dir, 'cases.jsonl'));
}

/** 2018-10-03 → 03-10-2018, the portal's print; anything else is passed on as it is. */
function printedDate(value: unknown): unknown {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  return m ? `${m[3] ?? ''}-${m[2] ?? ''}-${m[1] ?? ''}` : value;
}

export function rowsOf(value: unknown): FixtureRecord[] {
  return Array.isArray(value) ? (value as FixtureRecord[]) : [];
}

/** The record as the portal's case-history answer prints it. */
export function onTheWire(record: FixtureRecord): FixtureRecord {
  return {
    ...record,
    filing_date: printedDate(record.filing_date),
    registration_date: printedDate(record.registration_date),
    first_hearing_date: printedDate(record.first_hearing_date),
    decision_date: printedDate(record.decision_date),
    hearings: rowsOf(record.hearings).map((h) => ({ ...h, date: printedDate(h.date), next_date: printedDate(h.next_date) })),
    orders: rowsOf(record.orders).map((o, i) => ({ order_no: i + 1, ...o, date: printedDate(o.date) })),
    objections: rowsOf(record.objections).map((o) => ({
      ...o,
      scrutiny_date: printedDate(o.scrutiny_date),
      compliance_date: printedDate(o.compliance_date),
      receipt_date: printedDate(o.receipt_date),
    })),
  };
}

function text(value: unknown, absent: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value.replace(/\s+/g, ' ').trim() : absent;
}

/** A one-page PDF of what the record lists about the order; the order's own text is not held. */
export async function orderListingPdf(record: FixtureRecord, order: FixtureRecord, orderNumber: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const fitter = new WinAnsiFitter(body.getCharacterSet());
  const page = doc.addPage([595.28, 841.89]);
  const caseNumber = `${text(record.case_type, '?')}/${text(record.registration_number, '?')}`;
  const lines: [string, typeof body][] = [
    ['eCourts High Court order listing (fixture portal)', bold],
    [`CNR: ${text(record.cnr_number, '?')}`, body],
    [`Case: ${caseNumber}`, body],
    [`Order number: ${String(orderNumber)}`, body],
    [`Order date: ${text(printedDate(order.date), 'not given in the record')}`, body],
    [`Judge: ${text(order.judge, 'not given in the record')}`, body],
    [`${DOCUMENT_NOT_HELD}: rendered from the order listing`, bold],
    ['in the eCourts case-status record.', bold],
  ];
  lines.forEach(([line, font], i) => page.drawText(fitter.fit(line).text, { x: 56, y: 780 - i * 20, size: 11, font }));
  doc.setTitle(`${caseNumber} order ${String(orderNumber)} (listing only)`);
  doc.setCreator('court-records fixture portal');
  return doc.save();
}

/** The order of `record` whose document is `documentId`, with its number in the Orders table. */
export function orderOf(record: FixtureRecord | undefined, documentId: string | null): { order: FixtureRecord; number: number } | null {
  const orders = rowsOf(record?.orders);
  const index = orders.findIndex((o) => typeof o.filename === 'string' && o.filename === documentId);
  const order = orders[index];
  return order === undefined ? null : { order, number: index + 1 };
}

export class FixtureCourtPortal implements CourtPortal {
  #records: Promise<Map<string, FixtureRecord>> | undefined;

  /** `dir`: the fixture folder, read on the first call. */
  constructor(private readonly dir: string) {}

  async fetchCaseStatus(cnr: string): Promise<PortalCaseRecord | null> {
    const record = await this.#record(cnr);
    if (record === undefined) return null;
    const read = readPortalRecord(onTheWire(record));
    if ('invalid' in read) throw new CourtPortalUnavailableError(`the fixture record of ${cnr} is unreadable: ${read.invalid}`);
    return read.record;
  }

  async fetchOrderDocument(cnr: string, order: OrderDocumentRef): Promise<Uint8Array | null> {
    const record = await this.#record(cnr);
    const found = orderOf(record, order.documentId);
    return record && found ? orderListingPdf(record, found.order, found.number) : null;
  }

  async #record(cnr: string): Promise<FixtureRecord | undefined> {
    const wanted = normaliseCnr(cnr);
    if (wanted === null) return undefined;
    this.#records ??= fixtureRecords(this.dir).catch((error: unknown) => {
      this.#records = undefined;
      throw new CourtPortalUnavailableError(`fixture portal: ${error instanceof Error ? error.message : String(error)}`);
    });
    return (await this.#records).get(wanted);
  }
}
