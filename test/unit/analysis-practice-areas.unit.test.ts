/**
 * Practice areas against the subject categories the rhetorical-role set labels its 50
 * judgments with (read at test time). The categories are coarse (a constitutional
 * challenge to a tax is filed under either), so the bar is the leading area matching in
 * most judgments, not all.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { PRACTICE_AREAS, practiceAreasOf } from '../../src/domain/analysis/practice-areas.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
const docs = readFileSync(join(CORPUS_DIR, 'sc-rhetorical-roles-50/rr50.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { doc_id: string; category: string; sentences: { text: string }[] });
const AREA_OF_CATEGORY: Readonly<Record<string, string>> = {
  'Land & Property': 'Property & Land',
  Constitutional: 'Constitutional',
  Criminal: 'Criminal',
  'Intellectual Property': 'Intellectual Property',
  'Labour & Industrial Law': 'Labour & Employment',
};

describe('practice areas', () => {
  const results = docs.map((d) => ({
    want: AREA_OF_CATEGORY[d.category]!,
    got: practiceAreasOf(d.sentences.map((s) => s.text).join('. ')),
  }));

  it('maps every rr50 category to an area of the map', () => {
    for (const { want } of results) assert.ok(want in PRACTICE_AREAS, want);
  });

  it('leads with the labelled category in at least 35 of the 50 judgments', () => {
    const first = results.filter((r) => r.got[0] === r.want).length;
    assert.ok(first >= 35, `${String(first)}/50`);
  });

  it('names at most three areas, all from the map', () => {
    for (const { got } of results) {
      assert.ok(got.length <= 3);
      for (const area of got) assert.ok(area in PRACTICE_AREAS);
    }
  });

  it('names no area for text that is not about any', () => {
    assert.deepEqual(practiceAreasOf('The matter is adjourned to next week.'), []);
  });
});
