/**
 * A stand-in for the eCourts High Court portal in tests: a real node:http server on
 * 127.0.0.1 (random port) speaking the subset documented in
 * src/adapters/court-portal/ecourts-http-portal.ts. What it serves is test mode's fixture
 * portal's (src/adapters/court-portal/fixture-portal.ts): the real case-status records as
 * the portal prints them, and order PDFs rendered from an order's listing alone, which say
 * the order's text is not held. Knobs for tests: `delayMs` holds every answer back,
 * `failNext(n)` answers the next n calls 503, `calls` counts the calls received by route.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CASE_HISTORY_PATH, ORDER_DOCUMENT_PATH, RECORD_NOT_FOUND } from '../../src/adapters/court-portal/ecourts-http-portal.ts';
import {
  DOCUMENT_NOT_HELD,
  jsonlRows,
  onTheWire,
  orderListingPdf,
  orderOf,
  PORTAL_FIXTURES,
  recordsByCnr,
  type FixtureRecord,
} from '../../src/adapters/court-portal/fixture-portal.ts';
import { corpusDir } from './corpus.ts';

export { DOCUMENT_NOT_HELD, type FixtureRecord };

export const FIXTURES_DIR = join(corpusDir, PORTAL_FIXTURES);

/** The rows of one of the fixtures' JSONL files, as parsed JSON objects. */
export function fixtureRows(file: 'case_details.jsonl' | 'cases.jsonl' | 'hearings.jsonl'): FixtureRecord[] {
  return jsonlRows(readFileSync(join(FIXTURES_DIR, file), 'utf8'));
}

/** Every record by CNR, as the fixture portal holds them. */
export function fixtureRecords(): Map<string, FixtureRecord> {
  return recordsByCnr(fixtureRows('case_details.jsonl'), fixtureRows('cases.jsonl'));
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
    const found = orderOf(record, query.get('filename'));
    if (record === undefined || found === null) return sendJson(res, 200, { message: RECORD_NOT_FOUND });
    send(res, 200, 'application/pdf', await orderListingPdf(record, found.order, found.number));
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
