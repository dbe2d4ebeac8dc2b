/**
 * The eCourts HTTP portal adapter against a real loopback portal
 * (test/support/ecourts-portal-server.ts) serving the real High Court records: a record
 * comes back whole through the portal's DD-MM-YYYY print and maps to the same timeline as
 * the fixture row; an unknown CNR is null; a slow portal is CourtPortalTimeoutError
 * within the call's timeout; a 503, a refused connection or a wrong base URL is
 * CourtPortalUnavailableError; an order document is PDF bytes that carry the order's
 * listing and say its text is not held.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { EcourtsHttpPortal } from '../../src/adapters/court-portal/ecourts-http-portal.ts';
import { readPortalRecord } from '../../src/domain/timeline/read-portal-record.ts';
import { timelineFromPortalRecord } from '../../src/domain/timeline/timeline-from-portal.ts';
import { CourtPortalTimeoutError, CourtPortalUnavailableError } from '../../src/ports/court-portal.ts';
import {
  DOCUMENT_NOT_HELD,
  fixtureRows,
  startEcourtsPortalServer,
  type EcourtsPortalServer,
  type FixtureRecord,
} from '../support/ecourts-portal-server.ts';

const TIMEOUT_MS = 300;
const AT = '2025-03-01T10:00:00.000Z';

function orders(row: FixtureRecord | undefined): FixtureRecord[] {
  assert.ok(row && Array.isArray(row.orders));
  return row.orders as FixtureRecord[];
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return address.port;
}

describe('eCourts HTTP portal adapter against the loopback portal', () => {
  let server: EcourtsPortalServer;
  let portal: EcourtsHttpPortal;

  before(async () => {
    server = await startEcourtsPortalServer();
    portal = new EcourtsHttpPortal({ url: `${server.url}/`, timeoutMs: TIMEOUT_MS });
  });
  after(() => server.close());

  for (const row of fixtureRows('case_details.jsonl')) {
    const cnr = String(row.cnr_number);
    it(`${cnr}: the live record maps to the same timeline as the fixture row`, async () => {
      const live = await portal.fetchCaseStatus(cnr);
      assert.ok(live, 'found');
      assert.equal(live.cnr, cnr);
      const read = readPortalRecord(row);
      assert.ok('record' in read);
      assert.deepEqual(timelineFromPortalRecord(live, { fetchedAt: AT }), timelineFromPortalRecord(read.record, { fetchedAt: AT }));
    });
  }

  it('receives dates as the portal prints them and order numbers as it numbers them', async () => {
    const live = await portal.fetchCaseStatus('JKHC020113752018');
    assert.ok(live);
    assert.deepEqual([live.filingDate, live.decisionDate], ['28-12-2018', '24-12-2020']);
    assert.equal(live.hearings.length, 24);
    assert.deepEqual(
      live.orders.map((o) => o.orderNumber),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.equal(live.orders[0]?.orderDate, '26-02-2019');
  });

  it('serves the list-level case-search rows too', async () => {
    const live = await portal.fetchCaseStatus('JKHC020042172024');
    assert.ok(live);
    assert.deepEqual([live.caseType, live.registrationNumber, live.hearings.length], ['HCP', '111/2024', 0]);
  });

  it('answers null for a CNR the portal has no record of, and does not ask about a string that is no CNR', async () => {
    assert.equal(await portal.fetchCaseStatus('KAHC010000012024'), null);
    const before = server.calls.caseHistory;
    assert.equal(await portal.fetchCaseStatus('not-a-cnr'), null);
    assert.equal(server.calls.caseHistory, before);
  });

  it('throws CourtPortalTimeoutError when the portal is slower than the call timeout', async () => {
    server.delayMs = TIMEOUT_MS * 4;
    const started = performance.now();
    try {
      await assert.rejects(portal.fetchCaseStatus('GAHC040007922024'), CourtPortalTimeoutError);
      await assert.rejects(
        portal.fetchOrderDocument('GAHC040007922024', { documentId: String(orders(server.records.get('GAHC040007922024'))[0]?.filename) }),
        CourtPortalTimeoutError,
      );
    } finally {
      server.delayMs = 0;
    }
    assert.ok(performance.now() - started < TIMEOUT_MS * 4, 'gave up at its own timeout, not the portal answer');
  });

  it('passes a caller abort through as it is, not as a portal fault', async () => {
    const controller = new AbortController();
    controller.abort(new Error('workflow cancelled'));
    await assert.rejects(portal.fetchCaseStatus('GAHC040007922024', controller.signal), { message: 'workflow cancelled' });
  });

  it('throws CourtPortalUnavailableError on 503, once per failing call, then reads again', async () => {
    const before = server.calls.caseHistory;
    server.failNext(2);
    await assert.rejects(portal.fetchCaseStatus('GAHC040007922024'), CourtPortalUnavailableError);
    await assert.rejects(portal.fetchCaseStatus('GAHC040007922024'), { name: 'CourtPortalUnavailableError', message: /HTTP 503/ });
    assert.ok(await portal.fetchCaseStatus('GAHC040007922024'));
    assert.equal(server.calls.caseHistory - before, 3, 'one request per call: no retries inside the adapter');
  });

  it('throws CourtPortalUnavailableError when nothing listens or the base URL is wrong', async () => {
    const refused = new EcourtsHttpPortal({ url: `http://127.0.0.1:${String(await closedPort())}`, timeoutMs: TIMEOUT_MS });
    await assert.rejects(refused.fetchCaseStatus('GAHC040007922024'), { name: 'CourtPortalUnavailableError', message: /ECONNREFUSED/ });
    const misrouted = new EcourtsHttpPortal({ url: `${server.url}/ecourtindiaHC`, timeoutMs: TIMEOUT_MS });
    await assert.rejects(misrouted.fetchCaseStatus('GAHC040007922024'), { name: 'CourtPortalUnavailableError', message: /HTTP 404/ });
  });

  it('fetches an order document as a PDF carrying the order listing, and says its text is not held', async () => {
    const row = orders(server.records.get('JKHC020113752018'))[2];
    assert.ok(row && typeof row.filename === 'string');
    const bytes = await portal.fetchOrderDocument('JKHC020113752018', { documentId: row.filename });
    assert.ok(bytes);
    assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), '%PDF-');
    const text = await pdfText(bytes);
    for (const expected of ['JKHC020113752018', 'HCP/58/2018', 'Order number: 3', '08-07-2019', 'ALI MOHAMMAD MAGREY', DOCUMENT_NOT_HELD]) {
      assert.ok(text.includes(expected), `PDF text lacks "${expected}": ${text}`);
    }
  });

  it('answers null for a document the portal does not hold for that CNR', async () => {
    const other = orders(server.records.get('GAHC040007922024'))[0];
    assert.ok(other && typeof other.filename === 'string');
    assert.equal(await portal.fetchOrderDocument('JKHC020113752018', { documentId: other.filename }), null);
    assert.equal(await portal.fetchOrderDocument('JKHC020113752018', { documentId: 'no-such-document' }), null);
  });
});
