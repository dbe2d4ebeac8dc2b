/**
 * Semantic search filters: what the query text names is merged under the caller's filters
 * (caller wins), inference stays narrow (no year out of an Act's name, no stray
 * abbreviation), and bad filter values are named by their semantic field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inferFilters, resolveSemanticFilters } from '../../src/application/search/semantic-filters.ts';

const YEAR = 2026;

describe('inferFilters', () => {
  it('takes a court named in full, a standard case type and a decision year', () => {
    assert.deepEqual(inferFilters('special leave petition (civil) on land acquisition in the Delhi High Court decided in 2019', YEAR), {
      court: ['Delhi High Court'],
      caseType: ['Special Leave Petition (Civil)'],
      caseYear: [2019],
    });
  });

  it('does not read the year of an Act or a section number as a decision year', () => {
    assert.deepEqual(inferFilters('penalty under section 271 of the Income Tax Act, 1961', YEAR), {});
  });

  it('ignores years outside 1947 to this year and short abbreviations', () => {
    assert.deepEqual(inferFilters('SC judgments from 1935 and in 2031', YEAR), {});
  });
});

describe('resolveSemanticFilters', () => {
  it('lets the caller win over the query and reports what was inferred', () => {
    const r = resolveSemanticFilters(
      'bail conditions in the Delhi High Court in 2019',
      { court: 'Supreme Court', judges: ['A.K. SIKRI'] },
      YEAR,
    );
    assert.ok(r.ok);
    assert.deepEqual(r.value.applied, {
      court: ['Supreme Court of India'],
      judgeName: ['A.K. SIKRI'],
      caseYear: [2019],
      inferredFromQuery: ['caseYear'],
    });
    assert.deepEqual(r.value.resolved.courtIds, ['supreme-court']);
  });

  it('normalises case numbers and maps decisionDate bounds', () => {
    const r = resolveSemanticFilters(
      'acquisition',
      { caseNumber: 'Civil Appeal No. 56 of 1987', decisionDate: { $gte: '1987-01-01', $lte: '1987-12-31' } },
      YEAR,
    );
    assert.ok(r.ok);
    assert.deepEqual(r.value.caseNumbers, ['CA 56 1987']);
    assert.deepEqual(r.value.applied.decisionDate, { $gte: '1987-01-01', $lte: '1987-12-31' });
    assert.deepEqual([r.value.resolved.filters.fromDate, r.value.resolved.filters.toDate], ['1987-01-01', '1987-12-31']);
  });

  it('names bad values by their semantic field', () => {
    const r = resolveSemanticFilters(
      'acquisition',
      { court: 'Court of Narnia', caseYear: 1900, decisionDate: { $gte: '2020-01-02', $lte: '2020-01-01' } },
      YEAR,
    );
    assert.ok(!r.ok);
    assert.deepEqual(
      r.problems.map((p) => p.split(':')[0]),
      ['filters.court', 'filters.caseYear', 'filters.decisionDate.$lte'],
    );
  });
});
