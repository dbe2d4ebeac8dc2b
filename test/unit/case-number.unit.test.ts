/**
 * The case-number normaliser on real printed forms: the SC app API shape from the
 * metadata dataset, judgment-header forms from the Indian Kanoon and IN-Abs texts, and
 * eCourts High Court numbers, each against the way a user would type it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normaliseCaseNumber, parseScApiCaseNumber } from '../../src/domain/case/case-number.ts';

describe('normaliseCaseNumber', () => {
  const sameKey: [string, string, string][] = [
    ['C.A. No. 101 of 1959', 'CA 101/1959', 'CA 101 1959'],
    ['C.A. No.-000101-000101 - 1959', 'Civil Appeal No. 101 of 1959', 'CA 101 1959'],
    ['C.A. No.-001918-001918 - 2015', 'Civil Appeal No. 1918 of 2015', 'CA 1918 2015'],
    ['W.P.(C) No.-000013-000013 - 2015', 'Writ Petition (Civil) No. 13 of 2015', 'WPC 13 2015'],
    ['Crl.A. No.-001156-001157 - 2001', 'criminal appeal nos. 1156-1157 of 2001', 'CRLA 1156-1157 2001'],
    ['SLP(Crl) No.-002856-002856 - 1979', 'Special Leave Petition (Criminal) No. 2856 of 1979', 'SLPCRL 2856 1979'],
    ['W.P.(Crl.) No.-000312-000312 - 1994', 'writ petition (crl.) no. 312 of 1994', 'WPCRL 312 1994'],
    ['AB/3142/2018', 'AB 3142/2018', 'AB 3142 2018'],
    ['CRL.P/5658/2024', 'Crl. P. No. 5658 of 2024', 'CRLP 5658 2024'],
  ];
  for (const [a, b, key] of sameKey) {
    it(`"${a}" and "${b}" share the key ${key}`, () => {
      assert.equal(normaliseCaseNumber(a), key);
      assert.equal(normaliseCaseNumber(b), key);
    });
  }

  it('keeps a batch range and writes "to" ranges the same way', () => {
    assert.equal(normaliseCaseNumber('civil appeals nos. 180 to 183 of 1966'), 'CA 180-183 1966');
    assert.equal(normaliseCaseNumber('civil appeal nos. 10160- 10162 of 1983'), 'CA 10160-10162 1983');
  });

  it('handles the SC shapes without "No." and without a TO part', () => {
    assert.equal(normaliseCaseNumber('MA-001529 - 2018'), 'MA 1529 2018');
    assert.equal(normaliseCaseNumber('SLP(C) No.-029045 - 2024'), 'SLPC 29045 2024');
  });

  it('keeps number lists and the diary-number fallback distinct from ranges', () => {
    assert.equal(normaliseCaseNumber('civil appeals nos. 754 and 755 of 1964'), 'CA 754 755 1964');
    assert.equal(normaliseCaseNumber('Diary No. 41376/2024'), 'DIARY 41376 2024');
  });

  it('is idempotent on its own output', () => {
    for (const [a] of sameKey) assert.equal(normaliseCaseNumber(normaliseCaseNumber(a)), normaliseCaseNumber(a));
  });
});

describe('parseScApiCaseNumber', () => {
  it('reads type, range and year', () => {
    assert.deepEqual(parseScApiCaseNumber('Crl.A. No.-001156-001157 - 2001'), { type: 'Crl.A.', from: '1156', to: '1157', year: 2001 });
    assert.deepEqual(parseScApiCaseNumber('SLP(C) No.-029045 - 2024'), { type: 'SLP(C)', from: '29045', to: '29045', year: 2024 });
  });

  it('gives null for the number-less forms the source uses', () => {
    assert.equal(parseScApiCaseNumber(' - 0'), null);
    assert.equal(parseScApiCaseNumber(' - '), null);
  });
});
