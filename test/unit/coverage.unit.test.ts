/** Coverage rules, pure: roll-up of district courts, split arithmetic, business days. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildCoverage,
  businessDaysBehind,
  businessDaysBetween,
  DISTRICT_COURTS_ROW,
  type CoverageAggregate,
} from '../../src/domain/coverage/coverage.ts';

const row = (over: Partial<CoverageAggregate>): CoverageAggregate => ({
  courtCode: 'SC',
  courtName: 'Supreme Court of India',
  courtLevel: 'supreme',
  year: 2024,
  total: 10,
  documentBearing: 7,
  latestDecisionDate: '2024-12-20',
  ...over,
});

describe('coverage', () => {
  it('counts weekdays only', () => {
    assert.equal(businessDaysBetween('2026-11-20', '2026-11-23'), 1); // Fri -> Mon
    assert.equal(businessDaysBetween('2026-11-23', '2026-11-27'), 4);
    assert.equal(businessDaysBetween('2026-11-23', '2026-11-23'), 0);
  });

  it('gives null behind-ness to a court with no decision in the last 90 days', () => {
    assert.equal(businessDaysBehind('2024-12-20', '2026-11-26'), null);
    assert.equal(businessDaysBehind(null, '2026-11-26'), null);
    assert.equal(businessDaysBehind('2026-11-20', '2026-11-26'), 4);
    assert.equal(businessDaysBehind('2026-12-01', '2026-11-26'), 0);
  });

  it('rolls every district court into one row and keeps total = documentBearing + statusOnly', () => {
    const snapshot = buildCoverage(
      [
        row({}),
        row({ year: 2023, total: 5, documentBearing: 5, latestDecisionDate: '2023-05-01' }),
        row({
          courtCode: 'DL-DIST-1',
          courtName: 'District Court A',
          courtLevel: 'district',
          total: 3,
          documentBearing: 0,
          latestDecisionDate: '2026-11-24',
        }),
        row({
          courtCode: 'DL-DIST-2',
          courtName: 'District Court B',
          courtLevel: 'district',
          total: 4,
          documentBearing: 1,
          year: null,
          latestDecisionDate: null,
        }),
      ],
      new Date('2026-11-26T10:00:00Z'),
    );
    const district = snapshot.courts.filter((c) => c.level === 'district');
    assert.equal(district.length, 1);
    assert.equal(district[0]!.court, DISTRICT_COURTS_ROW);
    assert.deepEqual([district[0]!.total, district[0]!.documentBearing, district[0]!.statusOnly], [7, 1, 6]);
    assert.equal(district[0]!.businessDaysBehind, 2);
    const sc = snapshot.courts.find((c) => c.court === 'SC')!;
    assert.deepEqual([sc.total, sc.documentBearing, sc.statusOnly, sc.latestDecisionDate], [15, 12, 3, '2024-12-20']);
    assert.deepEqual(snapshot.totals, { total: 22, documentBearing: 13, statusOnly: 9 });
    assert.deepEqual(
      snapshot.years.map((y) => [y.year, y.total]),
      [
        [null, 4],
        [2023, 5],
        [2024, 13],
      ],
    );
    for (const r of [...snapshot.courts, ...snapshot.years]) assert.equal(r.total, r.documentBearing + r.statusOnly);
  });

  it('reports an empty districtCourts row rather than omitting it', () => {
    const snapshot = buildCoverage([row({})], new Date('2026-11-26T00:00:00Z'));
    const district = snapshot.courts.find((c) => c.court === DISTRICT_COURTS_ROW)!;
    assert.deepEqual([district.total, district.businessDaysBehind], [0, null]);
  });
});
