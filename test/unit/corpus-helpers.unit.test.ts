/** Date parsing and name clean-up used by every source mapper. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDayFirst, parseIso, parseMonthName } from '../../src/domain/case/dates.ts';
import { cleanName, decodeEntities, splitScBench } from '../../src/corpus/source-text.ts';

describe('dates', () => {
  it('parses the source formats to ISO and keeps implausible years', () => {
    assert.equal(parseDayFirst('17-02-1902'), '1902-02-17');
    assert.equal(parseDayFirst('04/09/1990'), '1990-09-04');
    assert.equal(parseIso('2018-10-03'), '2018-10-03');
    assert.equal(parseMonthName('4 september, 1990'), '1990-09-04');
    assert.equal(parseMonthName('March 24, 1964'), '1964-03-24');
  });

  it('refuses non-dates', () => {
    assert.equal(parseDayFirst('31-02-2001'), null);
    assert.equal(parseDayFirst(' - 0'), null);
    assert.equal(parseIso('2018-13-01'), null);
  });
});

describe('text', () => {
  it('decodes only terminated entities, leaving &ORS and &ANR alone', () => {
    assert.equal(decodeEntities('STATE OF H.P.&AMP; ANR'), 'STATE OF H.P.& ANR');
    assert.equal(decodeEntities('M/S X &ORS'), 'M/S X &ORS');
    assert.equal(decodeEntities('HON&#39;BLE'), "HON'BLE");
  });

  it('trims the stray " ." endings and tabs of SC names', () => {
    assert.equal(cleanName('HIRALAL MOTILAL DESARDA .'), 'HIRALAL MOTILAL DESARDA');
    assert.equal(cleanName('IN  RE.\t  THE BILL'), 'IN RE. THE BILL');
    assert.equal(cleanName('STATE OF U.P..'), 'STATE OF U.P.');
  });

  it('splits the three SC bench styles', () => {
    assert.deepEqual(splitScBench('D.K. JAIN,CHANDRAMAULI KR. PRASAD, , , '), ['D.K. JAIN', 'CHANDRAMAULI KR. PRASAD']);
    assert.deepEqual(splitScBench('FAZALALI,SYED MURTAZA'), ['FAZALALI, SYED MURTAZA']);
    assert.deepEqual(splitScBench('HON&#39;BLE THE CHIEF JUSTICE, HON&#39;BLE MS. JUSTICE INDU MALHOTRA'), [
      'THE CHIEF JUSTICE',
      'INDU MALHOTRA',
    ]);
    assert.equal(splitScBench('SIKRI'), null);
  });
});
