/**
 * The local extractive analysis end to end on every full judgment of the corpus (read at
 * test time): nothing in it is invented (each extracted sentence is a substring of the
 * paragraph it cites; the summaries use only words of their source paragraphs), every
 * reference is in range and inside the court's own text, the same text gives the same
 * analysis, the output is exactly the API's CaseAnalysis schema, and known features of
 * particular judgments are found (a framed question, an operative order, the bench).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { analyseJudgment, LOCAL_EXTRACTIVE_MODEL } from '../../src/domain/analysis/analyse-judgment.ts';
import { ANALYSIS_DISCLAIMER, TREATMENTS, type CaseAnalysis, type SourceRef } from '../../src/domain/analysis/case-analysis.ts';
import { readJudgment } from '../../src/domain/analysis/judgment.ts';
import { paragraphsOf } from '../../src/domain/analysis/paragraphs.ts';
import { LocalExtractiveAnalyser } from '../../src/adapters/llm/local-extractive-analyser.ts';
import { CaseAnalysisSchema } from '../../src/http/routes/cases/analysis-schemas.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
const rows = (relative: string): Record<string, unknown>[] =>
  readFileSync(join(CORPUS_DIR, relative), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const JUDGMENTS = [
  ...rows('sc-judgments-text-inabs-sample/in_abs_sample.jsonl').map((r) => ({
    caseId: `sc-inabs-${String(r.doc_id)}`,
    text: String(r.judgement),
  })),
  ...rows('sc-judgments-text-ik50/ik50_judgments.jsonl').map((r) => ({ caseId: `sc-ik50-${String(r.doc_no)}`, text: String(r.judgment) })),
];
const COURT = 'Supreme Court of India';
const analysed = JUDGMENTS.map((j) => ({ ...j, analysis: analyseJudgment({ ...j, courtName: COURT }) }));

function refsOf(a: CaseAnalysis): SourceRef[] {
  return [
    ...a.summarySources,
    ...a.detailedSummarySources,
    ...a.headnoteSources,
    ...a.keyFacts,
    ...a.issues,
    ...a.courtsReasoning,
    ...a.legalPrinciples,
    ...TREATMENTS.flatMap((t) => a.citedCases[t]),
  ];
}

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

describe('analysis of every corpus judgment', () => {
  it('refers only to paragraphs of the court’s own text, of this document, ascending', () => {
    for (const { caseId, text, analysis } of analysed) {
      const read = readJudgment(text);
      for (const ref of refsOf(analysis)) {
        assert.equal(ref.caseId, caseId);
        assert.ok(ref.paragraphs.length > 0);
        assert.deepEqual(
          [...ref.paragraphs],
          [...ref.paragraphs].sort((a, b) => a - b),
        );
        for (const p of ref.paragraphs) {
          assert.ok(Number.isInteger(p) && p >= read.bodyStart && p <= read.paragraphs.length, `${caseId}: paragraph ${String(p)}`);
        }
      }
    }
  });

  it('takes every extracted sentence word for word from the paragraph it cites', () => {
    for (const { caseId, text, analysis } of analysed) {
      const paragraphs = paragraphsOf(text);
      for (const item of [...analysis.keyFacts, ...analysis.courtsReasoning, ...analysis.legalPrinciples]) {
        assert.equal(item.paragraphs.length, 1);
        assert.ok(
          paragraphs[item.paragraphs[0]! - 1]!.includes(item.text),
          `${caseId}: "${item.text}" not in paragraph ${String(item.paragraphs[0])}`,
        );
      }
      for (const issue of analysis.issues) {
        assert.ok(issue.paragraphs.some((p) => paragraphs[p - 1]!.includes(issue.question)));
        if (issue.holding !== null) assert.ok(issue.paragraphs.some((p) => paragraphs[p - 1]!.includes(issue.holding!)));
      }
    }
  });

  it('writes summaries and headnotes only in words of their source paragraphs', () => {
    for (const { caseId, text, analysis } of analysed) {
      const paragraphs = paragraphsOf(text);
      const parts: [string, readonly SourceRef[]][] = [
        [analysis.summary, analysis.summarySources],
        [analysis.detailedSummary, analysis.detailedSummarySources],
        [analysis.headnote, analysis.headnoteSources],
      ];
      for (const [summary, sources] of parts) {
        assert.ok(summary.length > 0, `${caseId}: empty summary`);
        const available = new Map<string, number>();
        for (const p of sources.flatMap((s) => s.paragraphs))
          for (const w of words(paragraphs[p - 1]!)) available.set(w, (available.get(w) ?? 0) + 1);
        for (const w of words(summary)) {
          const left = available.get(w) ?? 0;
          assert.ok(left > 0, `${caseId}: "${w}" is not in the summary's source paragraphs`);
          available.set(w, left - 1);
        }
      }
    }
  });

  it('labels itself: model, disclaimer, precedent value of a Supreme Court decision', () => {
    for (const { analysis } of analysed) {
      assert.equal(analysis.model, LOCAL_EXTRACTIVE_MODEL);
      assert.equal(analysis.disclaimer, ANALYSIS_DISCLAIMER);
      assert.match(analysis.disclaimer, /not legal advice/);
      assert.equal(analysis.precedentValue.level, 'binding');
    }
  });

  it('matches the API schema exactly and survives JSON (workflow payloads, storage) unchanged', () => {
    for (const { analysis } of analysed) {
      assert.deepEqual(CaseAnalysisSchema.parse(analysis), analysis);
      assert.deepEqual(JSON.parse(JSON.stringify(analysis)), analysis);
    }
  });

  it('is deterministic: the same text gives the same analysis', () => {
    for (const j of JUDGMENTS.slice(0, 20))
      assert.deepEqual(analyseJudgment({ ...j, courtName: COURT }), analysed.find((a) => a.caseId === j.caseId)!.analysis);
  });
});

describe('features of particular judgments', () => {
  const find = (needle: string) => {
    const found = analysed.find((a) => a.text.includes(needle));
    assert.ok(found, `no judgment contains "${needle}"`);
    return found;
  };

  it('frames the question the Custodian of Evacuee Property appeal turns on', () => {
    const { analysis } = find('powers of a Custodian of Evacuee Property to cancel a lease');
    assert.ok(
      analysis.issues.some((i) => i.question.includes('the only point that arises for determination')),
      JSON.stringify(analysis.issues),
    );
    assert.ok(analysis.summary.endsWith('In the result, the appeal fails and is dismissed with costs.'), analysis.summary);
  });

  it('reads the five-judge bench of Delhi Transport Corporation from its header', () => {
    const { analysis } = find('delhi transport corporation vs d.t.c. mazdoor congress');
    assert.equal(analysis.precedentValue.benchStrength, 5);
  });

  it('gives a High Court judgment a binding value limited to its subordinate courts', () => {
    const analysis = analyseJudgment({ caseId: 'x', courtName: 'High Court of Delhi', text: JUDGMENTS[0]!.text });
    assert.equal(analysis.precedentValue.level, 'binding');
    assert.match(analysis.precedentValue.reason, /subordinate/);
  });
});

describe('the local analyser behind the port', () => {
  it('returns the domain analysis under its honest name and honours an aborted signal', async () => {
    const analyser = new LocalExtractiveAnalyser();
    assert.equal(analyser.model, 'local-extractive-v1');
    const [j] = JUDGMENTS;
    const source = {
      caseId: j!.caseId,
      caseNumber: 'Criminal Appeal No. 8 of 1951',
      title: null,
      courtName: COURT,
      decisionDate: null,
      text: j!.text,
    };
    assert.deepEqual(await analyser.analyse(source), analysed[0]!.analysis);
    await assert.rejects(analyser.analyse(source, AbortSignal.abort()), { name: 'AbortError' });
  });
});
