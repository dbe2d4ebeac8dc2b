/**
 * The embedded default CaseAnalyser: the pure extractive analysis of the domain, run in
 * process. No model, no network, no randomness: every sentence it returns is a sentence
 * of the judgment, and the same text always gives the same analysis. Its name,
 * 'local-extractive-v1', is stored with each analysis so a reader can tell it from a
 * remote model's. The work is synchronous and takes milliseconds (see
 * docs/analysis-evaluation.md), so the abort signal is only checked before it starts.
 */
import { analyseJudgment, LOCAL_EXTRACTIVE_MODEL } from '../../domain/analysis/analyse-judgment.ts';
import type { CaseAnalysis } from '../../domain/analysis/case-analysis.ts';
import type { AnalysisSource, CaseAnalyser } from '../../ports/case-analyser.ts';

export class LocalExtractiveAnalyser implements CaseAnalyser {
  readonly model = LOCAL_EXTRACTIVE_MODEL;

  async analyse(source: AnalysisSource, signal?: AbortSignal): Promise<CaseAnalysis> {
    signal?.throwIfAborted();
    return analyseJudgment({ caseId: source.caseId, courtName: source.courtName, text: source.text }, this.model);
  }
}
