/**
 * The watermark on an analysis (domain/analysis/watermark-prose.ts), over the local
 * analyser's output for real judgments: every prose field is marked and reads the same
 * once the marks are folded away, everything else (ids, paragraphs, cited cases and their
 * citations, labels, precedent level, model, disclaimer) is byte-identical, two accounts'
 * copies differ only by the mark, and the prose alone traces to its account.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { traceExtract, type BillingAccount } from '../../src/application/watermark/trace.ts';
import { analyseJudgment } from '../../src/domain/analysis/analyse-judgment.ts';
import type { CaseAnalysis } from '../../src/domain/analysis/case-analysis.ts';
import { watermarkProse } from '../../src/domain/analysis/watermark-prose.ts';
import { foldHomoglyphs, stripZeroWidthMarks } from '../../src/domain/watermark/alphabet.ts';
import { embed } from '../../src/domain/watermark/embed.ts';
import { tagFromBytes } from '../../src/domain/watermark/tag.ts';
import { corpusDir } from '../support/corpus.ts';

const judgments = readFileSync(join(corpusDir, 'sc-judgments-text-inabs-sample/in_abs_sample.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, 6)
  .map((line) => JSON.parse(line) as { doc_id: number; judgement: string });
const analyses = judgments.map((j) =>
  analyseJudgment({ caseId: `sc-inabs-${String(j.doc_id)}`, text: j.judgement, courtName: 'Supreme Court of India' }),
);

const accounts: BillingAccount[] = ['org_firm', 'usr_solo', 'org_other'].map((accountId) => ({
  accountId,
  kind: 'organization',
  name: accountId,
}));
const tags = new Map(
  accounts.map((a, i) => [a.accountId, tagFromBytes(Uint8Array.from({ length: 8 }, (_, k) => (i * 97 + k * 31 + 7) & 255))]),
);
const tagOf = (accountId: string) => tags.get(accountId)!;
const markFor = (accountId: string) => (text: string) => embed(text, tagOf(accountId));
const clean = (text: string) => foldHomoglyphs(stripZeroWidthMarks(text));

/** The prose of an analysis, in a fixed order. */
function proseOf(a: CaseAnalysis): string[] {
  return [
    a.summary,
    a.detailedSummary,
    a.headnote,
    ...a.keyFacts.map((p) => p.text),
    ...a.issues.flatMap((i) => [i.question, i.holding ?? '']),
    ...a.courtsReasoning.map((p) => p.text),
    ...a.legalPrinciples.map((p) => p.text),
    a.precedentValue.reason,
  ];
}

/** The analysis with every prose field blanked: what must stay byte-identical. */
function withoutProse(a: CaseAnalysis): CaseAnalysis {
  return watermarkProse(a, () => '');
}

describe('analysis prose watermark', () => {
  it('marks the prose, which reads the same once the marks are folded away', () => {
    for (const analysis of analyses) {
      const marked = watermarkProse(analysis, markFor('org_firm'));
      assert.notEqual(proseOf(marked).join('\n'), proseOf(analysis).join('\n'));
      assert.deepEqual(proseOf(marked).map(clean), proseOf(analysis));
    }
  });

  it('leaves ids, paragraphs, cited cases, citations, labels, the model and the disclaimer byte-identical', () => {
    for (const analysis of analyses) {
      const marked = watermarkProse(analysis, markFor('usr_solo'));
      assert.deepEqual(withoutProse(marked), withoutProse(analysis));
      assert.deepEqual(marked.citedCases, analysis.citedCases);
      assert.equal(marked.disclaimer, analysis.disclaimer);
    }
  });

  it('gives two accounts copies that differ only by the mark, each tracing to its account from the prose alone', () => {
    const analysis = analyses[0]!;
    const firm = watermarkProse(analysis, markFor('org_firm'));
    const solo = watermarkProse(analysis, markFor('usr_solo'));
    assert.notDeepEqual(firm, solo);
    assert.deepEqual(proseOf(firm).map(clean), proseOf(solo).map(clean));
    for (const [accountId, copy] of [
      ['org_firm', firm],
      ['usr_solo', solo],
    ] as const) {
      const traced = traceExtract(proseOf(copy).join('\n'), accounts, tagOf);
      assert.ok(traced.found, JSON.stringify({ reason: traced.found ? null : traced.reason }));
      assert.equal(traced.account.accountId, accountId);
    }
  });
});
