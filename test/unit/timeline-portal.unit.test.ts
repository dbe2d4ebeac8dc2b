/**
 * The portal record reader and the live timeline mapper on the real eCourts High Court
 * records (ecourts-hc-case-status-fixtures): every full case-detail record and every
 * case-search row reads and maps with nothing set aside, hearings come out in date order
 * with the counts the record holds, the portal's date forms parse, and records that are
 * wrong in known ways are reported in `quirks` rather than guessed at or refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Quirk } from '../../src/domain/case/case-record.ts';
import type { CaseTimeline, TimelineHearing } from '../../src/domain/timeline/case-timeline.ts';
import { normaliseCnr } from '../../src/domain/timeline/cnr.ts';
import { portalDate } from '../../src/domain/timeline/portal-dates.ts';
import type { PortalCaseRecord } from '../../src/domain/timeline/portal-record.ts';
import { readHearingDetails, readPortalRecord } from '../../src/domain/timeline/read-portal-record.ts';
import { timelineFromPortalRecord } from '../../src/domain/timeline/timeline-from-portal.ts';
import { fixtureRows, type FixtureRecord } from '../support/ecourts-portal-server.ts';

const FETCHED_AT = '2025-03-01T10:00:00.000Z';
const details = fixtureRows('case_details.jsonl');

function record(row: unknown): PortalCaseRecord {
  const read = readPortalRecord(row);
  assert.ok('record' in read, `expected a record, got ${JSON.stringify(read)}`);
  return read.record;
}

function timeline(row: unknown): CaseTimeline {
  return timelineFromPortalRecord(record(row), { fetchedAt: FETCHED_AT });
}

function detail(cnr: string): FixtureRecord {
  const row = details.find((r) => r.cnr_number === cnr);
  assert.ok(row, `no case_details row for ${cnr}`);
  return row;
}

function listOf(row: FixtureRecord, key: string): FixtureRecord[] {
  const value = row[key];
  assert.ok(Array.isArray(value), `${key} is not a list`);
  return value as FixtureRecord[];
}

/** Rows in date order: by business date, else the date a first-listing row fixed. */
function assertDateOrder(hearings: readonly TimelineHearing[]): void {
  const keys = hearings.map((h) => h.businessDate ?? h.hearingDate ?? '');
  assert.deepEqual(keys, [...keys].sort(), `hearings out of date order: ${keys.join(', ')}`);
}

describe('every real case-detail record', () => {
  it('holds the four records SOURCE.md lists', () => {
    assert.deepEqual(details.map((r) => r.cnr_number).sort(), [
      'GAHC040007922024',
      'JKHC020091782015',
      'JKHC020113752018',
      'KAHC010337682024',
    ]);
  });

  for (const row of details) {
    const cnr = String(row.cnr_number);
    it(`${cnr}: maps with the record's hearings and orders, in date order, nothing set aside`, () => {
      const t = timeline(row);
      assert.equal(t.cnr, cnr);
      assert.equal(t.source, 'live');
      assert.equal(t.fetchedAt, FETCHED_AT);
      assert.deepEqual(t.quirks, []);
      const hearings = listOf(row, 'hearings');
      const orders = listOf(row, 'orders');
      assert.equal(t.hearings.length, hearings.length);
      assert.equal(t.orders.length, orders.length);
      // Same rows, reordered only: each (srno, business date, hearing date) as the record gives it.
      const asGiven = hearings.map((h) => `${String(h.srno)} ${String(h.date)} ${String(h.next_date)}`).sort();
      const mapped = t.hearings.map((h) => `${String(h.serialNumber)} ${String(h.businessDate)} ${String(h.hearingDate)}`).sort();
      assert.deepEqual(mapped, asGiven);
      assertDateOrder(t.hearings);
      assert.deepEqual(
        t.orders.map((o) => o.documentId),
        orders.map((o) => o.filename),
      );
      assert.equal(t.filingDate, row.filing_date);
      assert.equal(t.registrationDate, row.registration_date);
      assert.equal(t.decisionDate, row.decision_date);
      assert.equal(t.court.code, cnr.slice(0, 4));
    });
  }
});

describe('JKHC020113752018, a habeas-corpus petition heard 23 times and dismissed', () => {
  const t = timeline(detail('JKHC020113752018'));

  it('is disposed with the record decision date, disposal and case number', () => {
    assert.equal(t.status, 'disposed');
    assert.equal(t.stage, 'CASE DISPOSED');
    assert.equal(t.natureOfDisposal, 'Uncontested--Dismissed');
    assert.equal(t.decisionDate, '2020-12-24');
    assert.equal(t.caseNumber, 'HCP/58/2018');
    assert.equal(t.nextHearingDate, null);
  });

  it('puts the first-listing row first and the disposal row (srno 0) last', () => {
    const first = t.hearings[0];
    const last = t.hearings.at(-1);
    assert.deepEqual([first?.serialNumber, first?.businessDate, first?.hearingDate], [1, null, '2018-12-31']);
    assert.equal(first?.judge, null, 'an empty judge is null');
    assert.deepEqual([last?.serialNumber, last?.businessDate, last?.purpose], [0, '2020-12-24', 'Disposed']);
    assert.equal(t.hearings[1]?.businessDate, '2018-12-31', 'the listing row sits before the business of the day it fixed');
  });

  it('keeps two orders of one day in the portal order and collapses doubled spaces in names', () => {
    const sameDay = t.orders.filter((o) => o.orderDate === '2019-07-08');
    assert.deepEqual(
      sameDay.map((o) => o.orderNumber),
      [3, 4],
    );
    assert.equal(t.coram, "HON'BLE MR. JUSTICE SANJAY DHAR");
    assert.ok(t.orders.every((o) => o.documentAvailable && o.kind === null));
  });
});

describe('pending records', () => {
  it('GAHC040007922024 (bail, Itanagar) is pending at MOTION with one linked order', () => {
    const t = timeline(detail('GAHC040007922024'));
    assert.deepEqual([t.status, t.stage, t.caseNumber], ['pending', 'MOTION', 'BA/64/2024']);
    assert.equal(t.firstHearingDate, null, 'the record gives none; it is not derived');
    assert.deepEqual(t.orders, [
      {
        orderNumber: 1,
        orderDate: '2024-06-25',
        judge: 'HONBLE MR. JUSTICE BUDI HABUNG',
        kind: null,
        documentAvailable: true,
        documentId: 'bzPoyUlszYLCUcCpirIpqLPkTLgaTkEH+t8f0EzOfYNA5sdZ6N4WquS8CofJwYCV',
      },
    ]);
  });

  it('KAHC010337682024 lists its first-listing row (srno 0) first and fixes no next date', () => {
    const t = timeline(detail('KAHC010337682024'));
    assert.equal(t.status, 'pending');
    assert.equal(t.coram, 'M.NAGAPRASANNA', 'the court-room number 1492 is cut off');
    assert.deepEqual(
      t.hearings.map((h) => [h.businessDate, h.hearingDate]),
      [
        [null, '2024-06-19'],
        ['2024-06-19', '2024-07-04'],
        ['2024-07-04', null],
      ],
    );
    assert.equal(t.nextHearingDate, null);
  });

  it('gives the date the latest hearing fixed as the next hearing while a case is pending', () => {
    // JKHC020113752018 as its record stood after the business of 2019-08-05 (its own rows, cut there).
    const full = detail('JKHC020113752018');
    const asOf = {
      ...full,
      case_status: 'SPECIALLY ORDERED CASES',
      decision_date: null,
      nature_of_disposal: null,
      hearings: listOf(full, 'hearings').filter((h) => h.date === null || (typeof h.date === 'string' && h.date <= '2019-08-05')),
    };
    const t = timeline(asOf);
    assert.equal(t.status, 'pending');
    assert.equal(t.hearings.at(-1)?.businessDate, '2019-08-05');
    assert.equal(t.nextHearingDate, '2019-09-11');
  });
});

describe('case-search rows (cases.jsonl)', () => {
  const rows = fixtureRows('cases.jsonl');

  it('all 127 read; the 126 list-level rows have status unknown and no history, with nothing set aside', () => {
    const timelines = rows.map(timeline);
    assert.equal(timelines.length, 127);
    assert.ok(timelines.every((t) => t.quirks.length === 0));
    const unknown = timelines.filter((t) => t.status === 'unknown');
    assert.equal(unknown.length, 126);
    assert.ok(unknown.every((t) => t.hearings.length === 0 && t.orders.length === 0 && t.caseNumber?.startsWith('HCP/')));
  });

  it('GAHC010225502018 (anticipatory bail) is pending with five hearings and five orders, two without a judge', () => {
    const t = timeline(rows.find((r) => r.cnr_number === 'GAHC010225502018'));
    assert.deepEqual([t.status, t.caseNumber, t.hearings.length, t.orders.length], ['pending', 'AB/3142/2018', 5, 5]);
    assert.equal(t.orders.filter((o) => o.judge === null).length, 2);
    assertDateOrder(t.hearings);
  });
});

describe('portal dates', () => {
  it('reads the portal print DD-MM-YYYY and ISO alike, and its words for no date as null', () => {
    const quirks: Quirk[] = [];
    assert.equal(portalDate('d', '24-06-2024', quirks), '2024-06-24');
    assert.equal(portalDate('d', '2024-06-24', quirks), '2024-06-24');
    assert.equal(portalDate('d', ' 25-06-2024 ', quirks), '2024-06-25');
    assert.equal(portalDate('d', 'Next Date is not given', quirks), null);
    assert.equal(portalDate('d', '--', quirks), null);
    assert.deepEqual(quirks, []);
  });

  it('reports what is no calendar date instead of guessing', () => {
    const quirks: Quirk[] = [];
    assert.equal(portalDate('decisionDate', '31-02-2024', quirks), null);
    assert.equal(portalDate('filingDate', '2024/06', quirks), null);
    assert.deepEqual(
      quirks.map((q) => [q.field, q.value]),
      [
        ['decisionDate', '31-02-2024'],
        ['filingDate', '2024/06'],
      ],
    );
  });

  it('reads the hearing-detail record (hearings.jsonl) with its DD-MM-YYYY date', () => {
    const quirks: Quirk[] = [];
    const [row] = fixtureRows('hearings.jsonl');
    const read = readHearingDetails(row, 'details', quirks);
    assert.deepEqual(read, { nextHearingDate: '16-02-2024', nextPurpose: 'FOR FINAL HEARING', shortOrder: '1-DATE FIXED' });
    assert.equal(portalDate('details.nextHearingDate', read.nextHearingDate, quirks), '2024-02-16');
    assert.deepEqual(quirks, []);
  });
});

describe('tolerance', () => {
  it('reads both printed CNR forms and refuses a record without one', () => {
    assert.equal(normaliseCnr('GAHC04-000792-2024'), 'GAHC040007922024');
    assert.equal(normaliseCnr('gahc040007922024'), 'GAHC040007922024');
    assert.equal(normaliseCnr('GAHC0400079220'), null);
    assert.ok('invalid' in readPortalRecord({ ...detail('GAHC040007922024'), cnr_number: null }));
    assert.ok('invalid' in readPortalRecord([]));
  });

  it('sets aside fields of the wrong type and unreadable rows, and says so', () => {
    // Reading names a row by its place in the record; mapping by the portal's srno, or its place among the rows read.
    const row = detail('JKHC020113752018');
    const hearings = listOf(row, 'hearings');
    const damaged = {
      ...row,
      decision_date: 20201224,
      coram: { judge: 'x' },
      hearings: [...hearings.slice(0, 2), 'not a row', { ...hearings[2], srno: 'two', next_date: '2019-02-30' }],
      orders: 'none',
    };
    const t = timeline(damaged);
    assert.equal(t.hearings.length, 3);
    assert.equal(t.orders.length, 0);
    assert.equal(t.coram, null);
    assert.deepEqual(t.quirks.map((q) => q.field).sort(), [
      'coram',
      'decisionDate',
      'decisionDate',
      'hearings[2]',
      'hearings[3].srno',
      'hearings[read 2].hearingDate',
      'orders',
    ]);
  });

  it('reports a stage that says disposed without a decision date, and keeps the status the record states', () => {
    const t = timeline({ ...detail('JKHC020091782015'), decision_date: null });
    assert.equal(t.status, 'disposed');
    assert.ok(t.quirks.some((q) => q.field === 'decisionDate' && /CASE DISPOSED/.test(q.issue)));
  });
});
