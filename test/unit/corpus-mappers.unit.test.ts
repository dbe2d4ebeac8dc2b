/**
 * Each source mapper on real rows read from the shared datasets (CORPUS_DIR, else
 * ../shared/data beside the repo): known case numbers, decoded entities, the 1902 dates
 * kept and flagged, cut case lines, CNR-derived courts, and real rejections.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { CaseRecord, MapResult } from '../../src/domain/case/case-record.ts';
import { loadCourtNames, mapHcRow } from '../../src/corpus/sources/ecourts-hc.ts';
import { mapIk50Row } from '../../src/corpus/sources/sc-ik50.ts';
import { mapInAbsRow } from '../../src/corpus/sources/sc-inabs.ts';
import { mapScMetadataRow } from '../../src/corpus/sources/sc-metadata.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');

function rows(relative: string): Record<string, unknown>[] {
  return readFileSync(join(CORPUS_DIR, relative), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function row(relative: string, match: (r: Record<string, unknown>) => boolean): Record<string, unknown> {
  const found = rows(relative).find(match);
  assert.ok(found, `no row in ${relative} matches`);
  return found;
}

function ok(result: MapResult): CaseRecord {
  assert.ok('ok' in result, `expected a record, got ${JSON.stringify(result)}`);
  return result.ok;
}

const SC = 'sc-judgments-metadata/sc_judgments_metadata.jsonl';
const IK = 'sc-judgments-text-ik50/ik50_judgments.jsonl';
const INABS = 'sc-judgments-text-inabs-sample/in_abs_sample.jsonl';
const HC_CASES = 'ecourts-hc-case-status-fixtures/cases.jsonl';
const HC_DETAILS = 'ecourts-hc-case-status-fixtures/case_details.jsonl';

describe('SC judgment metadata', () => {
  it('keeps a 1902 decision date for a 2002 appeal and flags it', () => {
    const r = ok(
      mapScMetadataRow(
        't',
        row(SC, (r) => r.diary_no === '10169-2001'),
      ),
    );
    assert.equal(r.caseId, 'sc-10169-2001-19020217');
    assert.equal(r.caseNumber, 'C.A. No.-004292-004292 - 2002');
    assert.equal(r.caseNumberNormalised, 'CA 4292 2002');
    assert.equal(r.decisionDate, '1902-02-17');
    assert.ok(r.quirks.some((q) => q.field === 'decisionDate' && /case-number year 2002/.test(q.issue)));
    assert.ok(r.quirks.some((q) => q.field === 'decisionDate' && /first sat/.test(q.issue)));
    assert.equal(r.title, 'NATIONAL INSURANCE CO. LTD., CHANDIGARH v. NICOLLETTA ROHTAGI');
    assert.deepEqual(r.parties.petitioners, [{ name: 'NATIONAL INSURANCE CO. LTD., CHANDIGARH', advocates: ['M. K. DUA'] }]);
    assert.equal(r.court.code, 'SC');
  });

  it('decodes &AMP; in party names and &#39; in the bench', () => {
    const amp = ok(
      mapScMetadataRow(
        't',
        row(SC, (r) => r.pet === 'BHIM SINGH &AMP; ANR.'),
      ),
    );
    assert.equal(amp.parties.petitioners[0]?.name, 'BHIM SINGH & ANR.');
    const recent = ok(
      mapScMetadataRow(
        't',
        row(SC, (r) => r.diary_no === '53062-2024'),
      ),
    );
    assert.deepEqual(recent.judges, ['J.B. PARDIWALA', 'R. MAHADEVAN']);
    assert.equal(recent.extra.authorJudge, 'J.B. PARDIWALA');
    assert.equal(recent.caseNumberNormalised, 'SLPC 29045 2024');
  });

  it('splits the SURNAME, INITIALS bench style into judges', () => {
    const old = row(
      SC,
      (r) => r.bench === 'SIKRI, S.M.,SHELAT, J.M.,BHARGAVA, VISHISHTHA,MITTER, G.K.,VAIDYIALINGAM, C.A.' && r.case_no !== ' - ',
    );
    assert.deepEqual(ok(mapScMetadataRow('t', old)).judges, [
      'SIKRI, S.M.',
      'SHELAT, J.M.',
      'BHARGAVA, VISHISHTHA',
      'MITTER, G.K.',
      'VAIDYIALINGAM, C.A.',
    ]);
  });

  it('uses the diary number when the source prints no case number, and says so', () => {
    const r = ok(
      mapScMetadataRow(
        't',
        row(SC, (r) => r.diary_no === '41376-2024'),
      ),
    );
    assert.equal(r.caseNumber, 'Diary No. 41376/2024');
    assert.deepEqual(r.quirks[0], { field: 'caseNumber', issue: 'source gives no case number; SC diary number used', value: ' - 0' });
  });

  it('rejects a row with neither case number nor diary number', () => {
    const result = mapScMetadataRow(
      't',
      row(SC, (r) => r.diary_no === '-0'),
    );
    assert.ok('rejected' in result && /missing case number/.test(result.rejected.reason));
  });

  it('rejects an unparseable row with the failing field named', () => {
    const result = mapScMetadataRow('t', { ...row(SC, (r) => r.diary_no === '10169-2001'), case_no: 42 });
    assert.ok('rejected' in result && /case_no/.test(result.rejected.reason));
  });
});

describe('Indian Kanoon judgments (ik50)', () => {
  it('reads case number, date, bench and citations from the header', () => {
    const r = ok(
      mapIk50Row(
        't',
        row(IK, (r) => r.doc_no === '1'),
      ),
    );
    assert.equal(r.caseNumber, 'civil appeal no. 2876 of 1986');
    assert.equal(r.caseNumberNormalised, 'CA 2876 1986');
    assert.equal(r.decisionDate, '1990-09-04');
    assert.equal(r.title, 'delhi transport corporation v. d.t.c. mazdoor congress');
    assert.deepEqual(r.citations, ['1991 air 101', '1990 scr supl. (1) 142']);
    assert.ok(r.judges.includes('mukharji, sabyasachi (cj)'));
    assert.equal(r.judges.length, 5);
    assert.equal(r.documentBearing, true);
    assert.ok(r.text && r.summary);
    const ikDoc = r.extra.indianKanoonDocId;
    assert.ok(typeof ikDoc === 'string');
    assert.equal(r.caseId, `sc-ik-${ikDoc}`);
  });

  it('flags the header whose title line belongs to another judgment', () => {
    const r = ok(
      mapIk50Row(
        't',
        row(IK, (r) => r.doc_no === '26'),
      ),
    );
    assert.equal(r.decisionDate, '1973-04-16');
    assert.ok(r.quirks.some((q) => q.field === 'decisionDate' && q.issue.includes('2008-04-10')));
  });

  it('keeps a case line whose year the source lost, flagged', () => {
    const r = ok(
      mapIk50Row(
        't',
        row(IK, (r) => r.doc_no === '8'),
      ),
    );
    assert.equal(r.caseNumber, 'civil appeal no. 753-754 of');
    assert.ok(r.quirks.some((q) => q.issue.includes('year missing')));
  });
});

describe('IN-Abs judgments', () => {
  it('reads "Appeal No. 101 of 1959" from the first line', () => {
    const r = ok(
      mapInAbsRow(
        't',
        row(INABS, (r) => r.doc_id === '1181'),
      ),
    );
    assert.equal(r.caseNumber, 'Appeal No. 101 of 1959');
    assert.equal(r.caseNumberNormalised, 'APPEAL 101 1959');
    assert.equal(r.extra.deliveredBy, 'MUDHOLKAR J.');
  });

  it('completes an unambiguously cut first word and keeps the verbatim line', () => {
    const r = ok(
      mapInAbsRow(
        't',
        row(INABS, (r) => r.doc_id === '314'),
      ),
    );
    assert.equal(r.caseNumber, 'Criminal Appeal No. 48 of 1954');
    assert.equal(r.caseNumberNormalised, 'CRLA 48 1954');
    assert.deepEqual(r.quirks, [
      { field: 'caseNumber', issue: 'first word cut in source; completed', value: 'iminal Appeal No. 48 of 1954' },
    ]);
  });

  it('leaves an ambiguous cut word as printed', () => {
    const r = ok(
      mapInAbsRow(
        't',
        row(INABS, (r) => r.doc_id === '1531'),
      ),
    );
    assert.ok(r.caseNumber.startsWith('l Appeals Nos. 15 to 19 of 1962'));
    assert.ok(r.quirks.some((q) => q.issue.includes('kept as printed')));
  });
});

describe('eCourts High Court case status', () => {
  const courtNames = () => loadCourtNames(CORPUS_DIR);

  it('maps the Gauhati anticipatory-bail case with its full history', async () => {
    const r = ok(
      mapHcRow(
        't',
        row(HC_CASES, (r) => r.cnr_number === 'GAHC010225502018'),
        await courtNames(),
      ),
    );
    assert.equal(r.caseId, 'hc-GAHC010225502018');
    assert.equal(r.caseNumber, 'AB/3142/2018');
    assert.equal(r.caseNumberNormalised, 'AB 3142 2018');
    assert.deepEqual(r.court, { code: 'GAHC', name: 'Gauhati High Court', level: 'high' });
    assert.equal(r.bench, 'Principal Seat at Guwahati');
    assert.equal(r.filingDate, '2018-10-03');
    assert.equal(r.documentBearing, false);
    assert.deepEqual(r.parties.petitioners[0]?.advocates, ['MR. A M BORA', 'MS. C CHOUDHURY', 'MR. D GOGOI', 'MR. D K BAIDYA']);
    assert.ok(r.judges.includes('HITESH KUMAR SARMA'));
  });

  it('flags a registration year earlier than the CNR filing year', async () => {
    const r = ok(
      mapHcRow(
        't',
        row(HC_CASES, (r) => r.cnr_number === 'JKHC020000011998'),
        await courtNames(),
      ),
    );
    assert.equal(r.caseNumber, 'HCP/51/1990');
    assert.equal(r.court.name, 'High Court of Jammu and Kashmir');
    assert.ok(r.quirks.some((q) => q.field === 'caseNumber' && q.issue.includes('1998')));
  });

  it('strips the court-room number from the coram', async () => {
    const r = ok(
      mapHcRow(
        't',
        row(HC_DETAILS, (r) => r.cnr_number === 'KAHC010337682024'),
        await courtNames(),
      ),
    );
    assert.deepEqual(r.judges, ['M.NAGAPRASANNA']);
    assert.equal(r.court.name, 'High Court of Karnataka');
    assert.equal(r.caseNumber, 'CRL.P/5658/2024');
  });

  it('rejects an unknown CNR prefix instead of guessing a court', async () => {
    const base = row(HC_CASES, (r) => r.cnr_number === 'GAHC010225502018');
    const result = mapHcRow('t', { ...base, cnr_number: 'ZZHC010225502018' }, await courtNames());
    assert.ok('rejected' in result && /unknown High Court/.test(result.rejected.reason));
  });
});
