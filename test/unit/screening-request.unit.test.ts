/**
 * Request rules a schema cannot express: `since` a real calendar date, at most eight names,
 * and which candidates the `since` cutoff drops (checked on real Supreme Court decision dates).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isCalendarDate, keptBySince, MAX_NAMES, withinNameLimit } from '../../src/domain/screening/screening-request.ts';
import { corpusDir } from '../support/corpus.ts';

describe('since is a real calendar date', () => {
  it('accepts real days, leap days in leap years only', () => {
    for (const d of ['2024-02-29', '2000-02-29', '2023-12-31', '1950-01-26', '2023-04-30']) assert.ok(isCalendarDate(d), d);
    for (const d of [
      '2023-02-29',
      '1900-02-29',
      '2023-04-31',
      '2023-13-01',
      '2023-00-10',
      '2023-01-00',
      '2023-1-01',
      '20230101',
      '2023-01-01T00:00:00Z',
      '',
    ])
      assert.ok(!isCalendarDate(d), d);
  });
});

describe('name limit', () => {
  it('allows a name with seven aliases, not eight', () => {
    assert.equal(MAX_NAMES, 8);
    assert.ok(withinNameLimit(Array.from({ length: 7 }, (_, i) => `alias ${String(i)}`)));
    assert.ok(!withinNameLimit(Array.from({ length: 8 }, (_, i) => `alias ${String(i)}`)));
  });
});

describe('keptBySince', () => {
  it('keeps a candidate with neither date, and one with a date on the cutoff', () => {
    assert.ok(keptBySince({ decisionDate: null, filingDate: null }, '2020-01-01'));
    assert.ok(keptBySince({ decisionDate: '2020-01-01', filingDate: null }, '2020-01-01'));
    assert.ok(keptBySince({ decisionDate: null, filingDate: '2020-01-01T00:00:00.000Z' }, '2020-01-01'));
  });

  it('drops only when every date it has is strictly before the cutoff', () => {
    assert.ok(!keptBySince({ decisionDate: '2019-12-31', filingDate: null }, '2020-01-01'));
    assert.ok(!keptBySince({ decisionDate: '2019-12-31', filingDate: '2018-05-01' }, '2020-01-01'));
    assert.ok(keptBySince({ decisionDate: '2021-03-01', filingDate: '2018-05-01' }, '2020-01-01'));
  });

  it('splits real Supreme Court decision dates at the cutoff exactly', () => {
    const dates = readFileSync(join(corpusDir, 'sc-judgments-metadata', 'sc_judgments_metadata.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => (JSON.parse(l) as { judgment_dates: string }).judgment_dates)
      .map((d) => d.split('-').reverse().join('-'));
    const since = '2015-01-01';
    const kept = dates.filter((d) => keptBySince({ decisionDate: d, filingDate: null }, since));
    assert.equal(kept.length, dates.filter((d) => d >= since).length);
    assert.ok(kept.length > 0 && kept.length < dates.length);
  });
});
