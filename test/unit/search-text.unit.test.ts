/**
 * Search-text normalisation on real party names and query forms from the Supreme Court
 * metadata and the eCourts fixtures: honorifics and company-form noise dropped,
 * abbreviations written out, and case numbers and CNRs found inside free query text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { abbreviationSynonyms, expandLegalAbbreviations } from '../../src/domain/search/legal-abbreviations.ts';
import { normalisePartyName } from '../../src/domain/search/party-name.ts';
import { analyseQuery } from '../../src/domain/search/query.ts';

describe('normalisePartyName', () => {
  const cases: [string, string][] = [
    ['STATE OF MADHYA PRADESH & ORS.', 'STATE OF MADHYA PRADESH'],
    ['M/S.  SARUPCHAND HUKAMCHAND & CO.', 'SARUPCHAND HUKAMCHAND CO'],
    ['HYDRO (ENGINEERS) PVT.\tLTD.', 'HYDRO ENGINEERS'],
    ['RAMCHANDRA AGGARWAL AND ANR.', 'RAMCHANDRA AGGARWAL'],
    ['SMT.  LILABAI', 'LILABAI'],
    ['SHRI AUDH BEHARI SINGH', 'AUDH BEHARI SINGH'],
    ['DR. BABU RAM SAKSENA', 'BABU RAM SAKSENA'],
    ['MESSRS FEDCO (P) LTD. & ANOTHER', 'FEDCO'],
    ['THE STATE OF UTTAR PRADESH.', 'STATE OF UTTAR PRADESH'],
    ['STATE OF M.P.', 'STATE OF MADHYA PRADESH'],
    ['STATE OF A.P. & ANR.', 'STATE OF ANDHRA PRADESH'],
    ['COMMISSIONER OF INCOME-TAX,WEST BENGAL.', 'COMMISSIONER OF INCOME TAX WEST BENGAL'],
    ['CIT (CENTRAL) KANPUR', 'COMMISSIONER OF INCOME TAX CENTRAL KANPUR'],
    ['STATE(GOVT.OF N.C.T.OF DELHI)', 'STATE GOVERNMENT OF NATIONAL CAPITAL TERRITORY OF DELHI'],
    ['STATE THROUGH C.B.I.', 'STATE THROUGH CENTRAL BUREAU OF INVESTIGATION'],
    ['DANA YADAV @ DAHU', 'DANA YADAV DAHU'],
  ];
  for (const [raw, expected] of cases) {
    it(`"${raw}" → "${expected}"`, () => assert.equal(normalisePartyName(raw), expected));
  }

  it('meets the same name typed with other honorifics and forms', () => {
    assert.equal(normalisePartyName('Shrimati Lilabai'), normalisePartyName('SMT.  LILABAI'));
    assert.equal(normalisePartyName('M/s Hydro Engineers Private Limited'), normalisePartyName('HYDRO (ENGINEERS) PVT.\tLTD.'));
    assert.equal(normalisePartyName('U.O.I. & Ors.'), normalisePartyName('UNION OF INDIA AND ORS.'));
  });

  it('keeps words that only look like abbreviations outside their context', () => {
    assert.equal(expandLegalAbbreviations('UP AND DOWN'), 'UP AND DOWN');
    assert.equal(expandLegalAbbreviations('CITY'), 'CITY');
  });
});

describe('abbreviationSynonyms', () => {
  it('pairs every long form with its short and dotted forms', () => {
    const groups = abbreviationSynonyms();
    assert.ok(groups.some((g) => g.includes('union of india') && g.includes('uoi') && g.includes('u.o.i.')));
    assert.ok(groups.some((g) => g.includes('state of uttar pradesh') && g.includes('state of u.p.')));
    for (const g of groups) assert.ok(g.length >= 2, g.join('|'));
  });
});

describe('analyseQuery', () => {
  it('finds a case number at any place in free text', () => {
    assert.ok(analyseQuery('Civil Appeal No. 1918 of 2015 land acquisition').caseNumberKeys.includes('CA 1918 2015'));
    assert.ok(analyseQuery('bail in CA 1918/2015').caseNumberKeys.includes('CA 1918 2015'));
    assert.ok(analyseQuery('C.A. No.-001918-001918 - 2015').caseNumberKeys.includes('CA 1918 2015'));
    assert.ok(analyseQuery('CA1918/2015').caseNumberKeys.includes('CA 1918 2015'));
    assert.ok(analyseQuery('WP(C)/5678/2019').caseNumberKeys.includes('WPC 5678 2019'));
    assert.ok(analyseQuery('Petition for Special Leave to Appeal (C) No. 29045/2024').caseNumberKeys.includes('SLPC 29045 2024'));
    assert.equal(analyseQuery('criminal appeal nos. 1156-1157 of 2001').numberAndYear, '1156-1157 2001');
  });

  it('gives the number and year alone when no type is written', () => {
    const q = analyseQuery('1918/2015');
    assert.deepEqual(q.caseNumberKeys, []);
    assert.equal(q.numberAndYear, '1918 2015');
  });

  it('reads no case number from words and bare years', () => {
    const q = analyseQuery('land acquisition act 1894');
    assert.deepEqual(q.caseNumberKeys, []);
    assert.equal(q.numberAndYear, null);
    assert.equal(q.cnr, null);
  });

  it('finds a CNR in the text', () => {
    assert.equal(analyseQuery('status of gahc01-022550-2018 please').cnr, 'GAHC010225502018');
    assert.equal(analyseQuery('KAHC010337682024').cnr, 'KAHC010337682024');
  });

  it('drops honorifics and noise from the words, keeping web-search syntax', () => {
    assert.equal(analyseQuery('Shri Dana Yadav @ Dahu').words, 'dana yadav dahu');
    assert.equal(analyseQuery('UOI vs M/s Hydro Engineers Pvt. Ltd.').words, 'union of india vs hydro engineers');
    assert.equal(analyseQuery('"land acquisition" -compensation or bail').words, '"land acquisition" -compensation or bail');
  });
});
