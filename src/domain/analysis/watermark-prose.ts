/**
 * Which parts of an analysis are prose, for the per-account watermark every text field of
 * a response carries (the spec), so that a leaked summary or passage names the account it
 * was served to. Prose is what the analyser took from the judgment or wrote: the
 * summaries, the headnote, the passages (facts, reasoning, principles), the issues'
 * questions and holdings, and the precedent's reason. What a consumer matches or joins on
 * stays byte-identical: document ids and paragraph numbers, cited cases (names and
 * citations), practice-area labels, the precedent's level, court and bench, the model,
 * and the fixed disclaimer. Within prose the mark itself leaves identifiers, numbers and
 * citations alone (see watermark/carriers.ts). Every field is named here rather than
 * spread, so a field added to CaseAnalysis does not compile until it is sorted into one
 * side or the other.
 */
import type { CaseAnalysis, Issue, Passage } from './case-analysis.ts';

export function watermarkProse(analysis: CaseAnalysis, mark: (text: string) => string): CaseAnalysis {
  const passage = (p: Passage): Passage => ({ ...p, text: mark(p.text) });
  const issue = (i: Issue): Issue => ({ ...i, question: mark(i.question), holding: i.holding === null ? null : mark(i.holding) });
  return {
    summary: mark(analysis.summary),
    summarySources: analysis.summarySources,
    detailedSummary: mark(analysis.detailedSummary),
    detailedSummarySources: analysis.detailedSummarySources,
    headnote: mark(analysis.headnote),
    headnoteSources: analysis.headnoteSources,
    keyFacts: analysis.keyFacts.map(passage),
    issues: analysis.issues.map(issue),
    courtsReasoning: analysis.courtsReasoning.map(passage),
    citedCases: analysis.citedCases,
    practiceAreas: analysis.practiceAreas,
    legalPrinciples: analysis.legalPrinciples.map(passage),
    precedentValue: { ...analysis.precedentValue, reason: mark(analysis.precedentValue.reason) },
    model: analysis.model,
    disclaimer: analysis.disclaimer,
  };
}
