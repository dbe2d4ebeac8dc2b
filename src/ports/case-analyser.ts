/**
 * Analysing one judgment behind one port: the local extractive analyser (deterministic,
 * no network) as the embedded default and a remote OpenAI-compatible model in
 * production. Either returns the same CaseAnalysis shape, every item referring to the
 * paragraphs `paragraphsOf(text)` numbers, so storage, routes and consolidation do not
 * care which one ran; `model` records which did.
 */
import type { CaseAnalysis } from '../domain/analysis/case-analysis.ts';

export interface AnalysisSource {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly title: string | null;
  readonly courtName: string;
  readonly decisionDate: string | null;
  /** The judgment text; the analyser splits it into paragraphs itself (numbered from 1) */
  readonly text: string;
}

export interface CaseAnalyser {
  /** Honest name of what produced the analysis, e.g. 'local-extractive-v1' or the remote model id. */
  readonly model: string;
  analyse(source: AnalysisSource, signal?: AbortSignal): Promise<CaseAnalysis>;
}
