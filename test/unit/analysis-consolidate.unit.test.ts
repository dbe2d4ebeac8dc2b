/**
 * Consolidating the analyses of documents that share a case number, on real analyses of
 * corpus judgments (read at test time): every item keeps the document and paragraphs it
 * came from, summaries follow the documents' order with their sources, the same judgment
 * stored twice (ik50 docs 28 and 40) is not repeated, and the caller's pairing of caseId
 * and analysis is what the references say.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { analyseJudgment } from '../../src/domain/analysis/analyse-judgment.ts';
import { TREATMENTS, type CaseAnalysis } from '../../src/domain/analysis/case-analysis.ts';
import { consolidate } from '../../src/domain/analysis/consolidate.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
const ik = readFileSync(join(CORPUS_DIR, 'sc-judgments-text-ik50/ik50_judgments.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { doc_no: string; judgment: string });
const doc = (no: string): { caseId: string; analysis: CaseAnalysis } => {
  const row = ik.find((r) => r.doc_no === no);
  assert.ok(row, `no ik50 doc ${no}`);
  const caseId = `sc-ik50-${no}`;
  return { caseId, analysis: analyseJudgment({ caseId, courtName: 'Supreme Court of India', text: row.judgment }) };
};

describe('consolidate', () => {
  const a = doc('1');
  const b = doc('2');
  const merged = consolidate([a, b]);

  it('keeps every item of both documents, each still naming its own document', () => {
    assert.deepEqual(merged.keyFacts, [...a.analysis.keyFacts, ...b.analysis.keyFacts]);
    assert.deepEqual(merged.courtsReasoning, [...a.analysis.courtsReasoning, ...b.analysis.courtsReasoning]);
    assert.deepEqual(merged.issues, [...a.analysis.issues, ...b.analysis.issues]);
    for (const t of TREATMENTS) assert.deepEqual(merged.citedCases[t], [...a.analysis.citedCases[t], ...b.analysis.citedCases[t]]);
    assert.deepEqual(new Set(merged.keyFacts.map((f) => f.caseId)), new Set([a.caseId, b.caseId]));
  });

  it("puts the documents' summaries one after the other, sources in the same order", () => {
    assert.equal(merged.summary, `${a.analysis.summary}\n\n${b.analysis.summary}`);
    assert.deepEqual(merged.summarySources, [...a.analysis.summarySources, ...b.analysis.summarySources]);
    assert.deepEqual(
      merged.detailedSummarySources.map((s) => s.caseId),
      [a.caseId, b.caseId],
    );
  });

  it('labels the result and keeps the strongest precedent value', () => {
    assert.equal(merged.model, 'local-extractive-v1');
    assert.match(merged.disclaimer, /not legal advice/);
    assert.equal(merged.precedentValue.level, 'binding');
    for (const area of [...a.analysis.practiceAreas, ...b.analysis.practiceAreas]) assert.ok(merged.practiceAreas.includes(area));
  });

  it('does not repeat the same judgment stored as two documents (ik50 docs 28 and 40)', () => {
    const twice = consolidate([doc('28'), doc('40')]);
    const once = doc('28').analysis;
    assert.equal(twice.summary, once.summary);
    assert.equal(twice.keyFacts.length, once.keyFacts.length);
    assert.ok(twice.keyFacts.every((f) => f.caseId === 'sc-ik50-28'));
  });

  it("names the caller's document on every reference, whatever the analysis carried", () => {
    const relabelled = consolidate([{ caseId: 'judgment-in-store', analysis: a.analysis }]);
    assert.ok(relabelled.keyFacts.length > 0);
    assert.ok([...relabelled.keyFacts, ...relabelled.summarySources, ...relabelled.issues].every((r) => r.caseId === 'judgment-in-store'));
    assert.equal(relabelled.summary, a.analysis.summary);
  });

  it('refuses an empty list', () => {
    assert.throws(() => consolidate([]), RangeError);
  });
});
