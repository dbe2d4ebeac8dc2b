/**
 * The bulk datasets' row mappers and the result-card reader, on rows in the datasets'
 * shapes (the HC card as judgments.ecourts.gov.in prints it; the SC parquet columns).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitParties } from '../../src/corpus/bulk/fields.ts';
import { hcRowFromJson, mapHcBulkRow, type HcReference } from '../../src/corpus/bulk/hc-judgments.ts';
import { safeFileName } from '../../src/corpus/bulk/layout.ts';
import { MAX_CARD_CHARS, readResultCard } from '../../src/corpus/bulk/result-card.ts';
import { mapScBulkRow } from '../../src/corpus/bulk/sc-judgments.ts';
import type { CaseRecord, MapResult } from '../../src/domain/case/case-record.ts';

const HC_CARD =
  '<button type="button" role="link" class="btn btn-link" onclick="open_pdf(\'1\',\'x\')"><font size="3">WP(C)/1234/2019 of RAM &amp; SONS Vs STATE OF J&amp;K</font></button>' +
  'Petition allowed in part.<br><strong>Judge : HON&#39;BLE MR. JUSTICE A. B. SINGH</strong><br>' +
  '<strong class="caseDetailsTD"><span style="color:#212F3D"> CNR :</span>\n<font color="green"> JKHC020066642019</font>' +
  '<span style="color:#212F3D"> | Date of registration\n   :</span>\n<font color="green"> 08-04-2019</font>' +
  '<span style="color:#212F3D"> | Decision Date :</span>\n<font color="green"> 16-12-2023</font>' +
  '<span style="color:#212F3D"> | Disposal Nature :</span>\n<font color="green"> Disposed Off</font>' +
  '<br/><span style="opacity: 0.5;">Court : High Court of\n   Jammu and Kashmir</span></strong>';

const REFERENCE: HcReference = {
  courtNames: new Map([['1~12', 'High Court of Jammu and Kashmir']]),
  benchCourts: new Map([['jammuhc', '1_12']]),
};
const PARTITION = { year: 2023, court: '1_12', bench: 'jammuhc' };

function ok(result: MapResult): CaseRecord {
  assert.ok('ok' in result, JSON.stringify(result));
  return result.ok;
}

function reason(result: MapResult): string {
  assert.ok('rejected' in result, JSON.stringify(result));
  return result.rejected.reason;
}

describe('readResultCard', () => {
  it('reads the High Court card: title, excerpt, judge and the detail pairs', () => {
    const card = readResultCard(HC_CARD);
    assert.ok(card);
    assert.equal(card.title, 'WP(C)/1234/2019 of RAM & SONS Vs STATE OF J&K');
    assert.equal(card.description, 'Petition allowed in part.');
    assert.equal(card.heading, "Judge : HON'BLE MR. JUSTICE A. B. SINGH");
    assert.deepEqual(card.details, {
      cnr: 'JKHC020066642019',
      'date of registration': '08-04-2019',
      'decision date': '16-12-2023',
      'disposal nature': 'Disposed Off',
      court: 'High Court of Jammu and Kashmir',
    });
  });

  it('refuses what is not a card: no tags, or longer than any card', () => {
    assert.equal(readResultCard('plain text'), null);
    assert.equal(readResultCard(`<b>${'x'.repeat(MAX_CARD_CHARS)}</b>`), null);
  });

  it('reads an unclosed tag soup without throwing', () => {
    const card = readResultCard('<strong class="caseDetailsTD"><span> Case No :<font> 12<');
    assert.ok(card);
  });
});

describe('splitParties', () => {
  it('splits at the first separator, whatever its case, and keeps a missing side empty', () => {
    assert.deepEqual(splitParties('A  vs.  B'), { petitioner: 'A', respondent: 'B' });
    assert.deepEqual(splitParties('A VERSUS B Vs C'), { petitioner: 'A', respondent: 'B Vs C' });
    assert.deepEqual(splitParties('A Vs'), { petitioner: 'A', respondent: '' });
    assert.equal(splitParties('no separator'), null);
  });
});

describe('mapHcBulkRow', () => {
  it('maps a raw JSON card to a case: number and parties from the title, court from the partition', () => {
    const read = hcRowFromJson({
      court_code: '1~12',
      pdf_link: 'court/cnrorders/jammuhc/orders/2019/JKHC020066642019_1_2023-12-16.pdf',
      raw_html: HC_CARD,
    });
    assert.ok('row' in read);
    const record = ok(mapHcBulkRow('metadata/json/x.json', read.row, PARTITION, REFERENCE, 'json'));
    assert.equal(record.caseId, 'hcj-JKHC020066642019-1-2023-12-16');
    assert.equal(record.caseNumber, 'WP(C)/1234/2019');
    assert.equal(record.caseType, 'WP(C)');
    assert.deepEqual(record.court, { code: 'JKHC', name: 'High Court of Jammu and Kashmir', level: 'high' });
    assert.equal(record.bench, 'jammuhc');
    assert.equal(record.title, 'RAM & SONS v. STATE OF J&K');
    assert.deepEqual(record.judges, ['A. B. SINGH']);
    assert.equal(record.decisionDate, '2023-12-16');
    assert.equal(record.documentBearing, true);
    assert.deepEqual(record.quirks, []);
    assert.equal(record.extra.registrationDate, '08-04-2019');
    assert.equal(record.extra.disposalNature, 'Disposed Off');
  });

  it('takes a parquet DATE as the decision date and flags one outside the year partition', () => {
    const row = {
      title: 'CRA/5/2020 of A Vs B',
      cnr: 'JKHC010000052020',
      pdf_link: 'a/b/JKHC010000052020_1.pdf',
      decision_date: new Date(Date.UTC(2022, 0, 3)),
    };
    const record = ok(mapHcBulkRow('p#R1', row, PARTITION, REFERENCE, 'parquet'));
    assert.equal(record.decisionDate, '2022-01-03');
    assert.ok(record.quirks.some((q) => q.field === 'decisionDate' && q.issue.includes('year partition 2023')));
  });

  it('falls back to the CNR when the title names no case number, and flags it', () => {
    const record = ok(
      mapHcBulkRow('p#R1', { title: 'A Vs B', cnr: 'jkhc010000052020', pdf_link: 'x/y.pdf' }, PARTITION, REFERENCE, 'parquet'),
    );
    assert.equal(record.caseNumber, 'JKHC010000052020');
    assert.ok(record.quirks.some((q) => q.field === 'caseNumber'));
  });

  it('rejects with a reason: unknown court, nothing to identify, no case number, oversized field', () => {
    assert.match(
      reason(mapHcBulkRow('r', { pdf_link: 'x.pdf', title: 'W/1/2020 of A' }, { ...PARTITION, court: '99_99' }, REFERENCE, 'parquet')),
      /unknown High Court code "99_99"/,
    );
    assert.match(reason(mapHcBulkRow('r', { title: 'W/1/2020 of A' }, PARTITION, REFERENCE, 'parquet')), /no pdf_link/);
    assert.match(reason(mapHcBulkRow('r', { title: 'A Vs B', pdf_link: 'x.pdf' }, PARTITION, REFERENCE, 'parquet')), /missing case number/);
    assert.match(
      reason(mapHcBulkRow('r', { title: 'x'.repeat(100_001), pdf_link: 'x.pdf' }, PARTITION, REFERENCE, 'parquet')),
      /title is 100001 characters/,
    );
  });

  it('says why a JSON record has no row', () => {
    assert.deepEqual(hcRowFromJson([1]), { error: 'not a JSON object' });
    assert.deepEqual(hcRowFromJson({ court_code: '1~12' }), { error: 'no raw_html card' });
  });
});

describe('mapScBulkRow', () => {
  const row = {
    title: 'RAM versus SHYAM',
    petitioner: 'RAM',
    respondent: 'SHYAM',
    judge: "HON'BLE MR. JUSTICE X*, HON'BLE MR. JUSTICE Y",
    author_judge: 'X',
    citation: '[2023] 5 S.C.R. 1',
    case_id: '2023 INSC 12',
    cnr: 'scin010000012023',
    decision_date: '03-01-2023',
    raw_html: "<strong class='caseDetailsTD'><span> Case No :</span><font> CRIMINAL APPEAL No. 1031/2015</font></strong>",
    path: '2023/1/12',
  };

  it('maps the parquet columns; the case number comes from the card', () => {
    const record = ok(mapScBulkRow('y#R1', row, { year: 2023, court: null, bench: null }));
    assert.equal(record.caseId, 'scb-2023-1-12');
    assert.equal(record.caseNumber, 'CRIMINAL APPEAL No. 1031/2015');
    assert.equal(record.caseType, 'CRIMINAL APPEAL');
    assert.equal(record.court.code, 'SC');
    assert.equal(record.title, 'RAM v. SHYAM');
    assert.deepEqual(record.judges, ['X', 'Y']);
    assert.deepEqual(record.citations, ['[2023] 5 S.C.R. 1', '2023 INSC 12']);
    assert.equal(record.decisionDate, '2023-01-03');
    assert.equal(record.extra.cnr, 'SCIN010000012023');
  });

  it('uses the CNR when the card has no case number, and rejects a row with neither', () => {
    const record = ok(mapScBulkRow('y#R1', { ...row, raw_html: '<b>x</b>' }, { year: 2023, court: null, bench: null }));
    assert.equal(record.caseNumber, 'SCIN010000012023');
    assert.match(
      reason(mapScBulkRow('y#R1', { ...row, raw_html: null, cnr: null }, { year: 2023, court: null, bench: null })),
      /missing case number/,
    );
    assert.match(reason(mapScBulkRow('y#R1', { ...row, path: '' }, { year: 2023, court: null, bench: null })), /no path/);
  });
});

describe('safeFileName', () => {
  it('accepts dataset names and refuses control characters, replacement characters and dot names', () => {
    assert.ok(safeFileName('HCBM010012342023_1_2023-05-01.json'));
    for (const bad of ['a\nb.json', 'a\uFFFDb.json', '..', 'a b.json', 'x'.repeat(256)]) assert.equal(safeFileName(bad), false, bad);
  });
});
