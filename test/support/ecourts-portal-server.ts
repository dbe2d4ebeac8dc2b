/**
 * A stand-in for the eCourts High Court portal in tests: a real node:http server on
 * 127.0.0.1 (random port) speaking the subset documented in
 * src/adapters/court-portal/ecourts-http-portal.ts, serving the real case-status records
 * of ecourts-hc-case-status-fixtures (case_details.jsonl, then cases.jsonl; read at start,
 * the first record of a CNR kept, as ingest does). A record goes out as the fixtures hold
 * it except where the portal prints differently: dates as DD-MM-YYYY, and orders numbered
 * (order_no) as the portal's Orders table numbers them. The fixtures hold no order
 * documents, so display_pdf.php answers a PDF rendered here with pdf-lib from the order's
 * listing alone (CNR, case number, order number, date, judge) that says the document's
 * text is not held in this fixture: no order text is made up. Knobs for tests: `delayMs`
 * holds every answer back, `failNext(n)` answers the next n calls 503, `calls` counts the
 * calls received by route.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { CASE_HISTORY_PATH, ORDER_DOCUMENT_PATH, RECORD_NOT_FOUND } from '../../src/adapters/court-portal/ecourts-http-portal.ts';
import { WinAnsiFitter } from '../../src/adapters/pdf/win-ansi-text.ts';
import { corpusDir } from './corpus.ts';

export type FixtureRecord = Readonly<Record<string, unknown>>;

export const FIXTURES_DIR = join(corpusDir, 'ecourts-hc-case-status-fixtures');

/** What every order PDF this server renders says in place of the order's text. */
export const DOCUMENT_NOT_HELD = 'Document text not held in this fixture';

/** The rows of one of the fixtures' JSONL files, as parsed JSON objects. */
export function fixtureRows(file: 'case_details.jsonl' | 'cases.jsonl' | 'hearings.jsonl'): FixtureRecord[] {
  return readFileSync(join(FIXTURES_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as FixtureRecord);
}

/** Every record by CNR, full case details before list-level search results. */
export function fixtureRecords(): Map<string, FixtureRecord> {
  const records = new Map<string, FixtureRecord>();
  for (const row of [...fixtureRows('case_details.jsonl'), ...fixtureRows('cases.jsonl')]) {
    const cnr = row.cnr_number;
    if (typeof cnr === 'string' && !records.has(cnr)) records.set(cnr, row);
  }
  return records;
}

/** 2018-10-03 → 03-10-2018, the portal's print; anything else is passed on as it is. */
function printedDate(value: unknown): unknown {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  return m ? `${m[3] ?? ''}-${m[2] ?? ''}-${m[1] ?? ''}` : value;
}

function rowsOf(value: unknown): FixtureRecord[] {
  return Array.isArray(value) ? (value as FixtureRecord[]) : [];
}

function onTheWire(record: FixtureRecord): FixtureRecord {
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
async function orderListingPdf(record: FixtureRecord, order: FixtureRecord, orderNumber: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const body = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const fitter = new WinAnsiFitter(body.getCharacterSet());
  const page = doc.addPage([595.28, 841.89]);
  const caseNumber = `${text(record.case_type, '?')}/${text(record.registration_number, '?')}`;
  const lines: [string, typeof body][] = [
    ['eCourts High Court order listing (test portal)', bold],
    [`CNR: ${text(record.cnr_number, '?')}`, body],
    [`Case: ${caseNumber}`, body],
    [`Order number: ${String(orderNumber)}`, body],
    [`Order date: ${text(printedDate(order.date), 'not given in the record')}`, body],
    [`Judge: ${text(order.judge, 'not given in the record')}`, body],
    [`${DOCUMENT_NOT_HELD}: rendered by the test portal`, bold],
    ['from the order listing in the eCourts case-status record.', bold],
  ];
  lines.forEach(([line, font], i) => page.drawText(fitter.fit(line).text, { x: 56, y: 780 - i * 20, size: 11, font }));
  doc.setTitle(`${caseNumber} order ${String(orderNumber)} (listing only)`);
  doc.setCreator('test/support/ecourts-portal-server.ts');
  return doc.save();
}

export interface EcourtsPortalServer {
  /** Base URL for COURT_PORTAL_URL. */
  readonly url: string;
  readonly records: ReadonlyMap<string, FixtureRecord>;
  /** Every answer waits this long first. */
  delayMs: number;
  /** Answers the next `count` calls, whatever they ask, with 503. */
  failNext(count: number): void;
  readonly calls: { caseHistory: number; orderDocument: number; other: number };
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Uint8Array): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += (chunk as Buffer).toString('utf8');
  return body;
}

export async function startEcourtsPortalServer(options: { delayMs?: number } = {}): Promise<EcourtsPortalServer> {
  const records = fixtureRecords();
  const calls = { caseHistory: 0, orderDocument: 0, other: 0 };
  let failing = 0;

  const caseHistory = (res: ServerResponse, form: URLSearchParams) => {
    const cino = form.get('cino');
    if (cino === null || cino.trim() === '') return sendJson(res, 400, { message: 'Invalid Input' });
    const record = records.get(cino.trim().toUpperCase());
    if (record === undefined) return sendJson(res, 200, { cino, case_history: null, message: RECORD_NOT_FOUND });
    sendJson(res, 200, { cino, case_history: onTheWire(record) });
  };

  const orderDocument = async (res: ServerResponse, query: URLSearchParams) => {
    const record = records.get((query.get('cino') ?? '').toUpperCase());
    const orders = rowsOf(record?.orders);
    const index = orders.findIndex((o) => typeof o.filename === 'string' && o.filename === query.get('filename'));
    const order = orders[index];
    if (record === undefined || order === undefined) return sendJson(res, 200, { message: RECORD_NOT_FOUND });
    send(res, 200, 'application/pdf', await orderListingPdf(record, order, index + 1));
  };

  const state = {
    delayMs: options.delayMs ?? 0,
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://portal.invalid');
      const body = await readBody(req);
      const route =
        req.method === 'POST' && url.pathname === CASE_HISTORY_PATH
          ? 'caseHistory'
          : req.method === 'GET' && url.pathname === ORDER_DOCUMENT_PATH
            ? 'orderDocument'
            : 'other';
      calls[route] += 1;
      if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs).unref());
      if (failing > 0) {
        failing -= 1;
        return send(res, 503, 'text/html', '<html><body>Service Unavailable</body></html>');
      }
      if (route === 'caseHistory') return caseHistory(res, new URLSearchParams(body));
      if (route === 'orderDocument') return orderDocument(res, url.searchParams);
      send(res, 404, 'text/html', '<html><body>Not Found</body></html>');
    })().catch((error: unknown) => send(res, 500, 'text/plain', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${String(port)}`,
    records,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    failNext(count: number) {
      failing = count;
    },
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
