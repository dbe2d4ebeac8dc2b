/**
 * The case-number normaliser on real printed forms: the SC app API shape from the
 * metadata dataset, judgment-header forms from the Indian Kanoon and IN-Abs texts, and
 * eCourts High Court numbers, each against the way a user would type it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normaliseCaseNumber, normaliseCnr, parseScApiCaseNumber } from '../../src/domain/case/case-number.ts';

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

  // SC prefixes from sc-judgments-metadata/derived_case_no_prefixes.csv against their long forms.
  const longForms: [string, string, string][] = [
    ['C.A. No.-001918-001918 - 2015', 'Civil Appeal No(s). 1918 of 2015', 'CA 1918 2015'],
    ['W.P.(C) No.-000013-000013 - 2015', 'WRIT PETITION(S)(CIVIL) NO(S). 13 OF 2015', 'WPC 13 2015'],
    ['SLP(C) No.-029045 - 2024', 'Petition for Special Leave to Appeal (C) No. 29045/2024', 'SLPC 29045 2024'],
    ['Crl.A. No.-001156-001157 - 2001', 'Crl. Appeal Nos. 1156-1157 of 2001', 'CRLA 1156-1157 2001'],
    ['ARBIT.PETITON No.-000007-000007 - 2008', 'Arbitration Petition No. 7 of 2008', 'ARBITPETITON 7 2008'],
    ['SMW(C) No.-000005 - 2020', 'Suo Motu Writ Petition (Civil) No. 5 of 2020', 'SMWC 5 2020'],
    ['T.C.(C) No.-000001-000001 - 2017', 'Transferred Case (Civil) No. 1 of 2017', 'TCC 1 2017'],
    ['ORGNL.SUIT No.-000002-000002 - 1988', 'Original Suit No. 2 of 1988', 'ORGNLSUIT 2 1988'],
    ['ELECT.PET.(C) No.-000001-000001 - 1997', 'Election Petition (Civil) No. 1 of 1997', 'ELECTPETC 1 1997'],
    ['MA-001529 - 2018', 'Miscellaneous Application No. 1529 of 2018', 'MA 1529 2018'],
  ];
  for (const [a, b, key] of longForms) {
    it(`"${a}" and "${b}" share the key ${key}`, () => {
      assert.equal(normaliseCaseNumber(a), key);
      assert.equal(normaliseCaseNumber(b), key);
    });
  }

  it('reads eCourts TYPE/NUMBER/YEAR and the forms users type for it', () => {
    for (const form of ['WP(C)/5678/2019', 'W.P.(C) 5678/2019', 'W.P. (Civil) No. 5678 of 2019', 'wp(c) 5678/2019']) {
      assert.equal(normaliseCaseNumber(form), 'WPC 5678 2019', form);
    }
    assert.equal(normaliseCaseNumber('HCP/1/2024'), normaliseCaseNumber('HCP 1/2024'));
  });

  it('gives a CNR (identifier-test-vectors) its own 16-character key in any printed form', () => {
    for (const form of ['GAHC010225502018', 'gahc010225502018', 'GAHC01-022550-2018', 'GAHC 01 022550 2018']) {
      assert.equal(normaliseCaseNumber(form), 'GAHC010225502018', form);
      assert.equal(normaliseCnr(form), 'GAHC010225502018', form);
    }
    assert.equal(normaliseCnr('JKHC020000152024'), 'JKHC020000152024');
    assert.equal(normaliseCnr('GAHC01022550201'), null);
    assert.equal(normaliseCnr('AB/3142/2018'), null);
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
