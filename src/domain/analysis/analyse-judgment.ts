/**
 * The local extractive analysis of one judgment, end to end: read the text into
 * paragraphs and body sentences, give each sentence its rhetorical role, score it, and
 * take from it the summaries, headnote, facts, issues, reasoning, principles and cited
 * cases; practice areas and precedent value come from the whole text and the court.
 * Nothing is written that the judgment does not say: every sentence of the output is a
 * sentence of the judgment, referenced to its paragraph. Deterministic: the same text
 * gives the same analysis. Pure.
 */
import { ANALYSIS_DISCLAIMER, type CaseAnalysis } from './case-analysis.ts';
import { citedCasesIn } from './cited-cases.ts';
import { extractsOf } from './extracts.ts';
import { issuesIn } from './issues.ts';
import { readJudgment } from './judgment.ts';
import { practiceAreasOf } from './practice-areas.ts';
import { precedentValueOf } from './precedent-value.ts';
import { classifyRoles } from './rhetorical-roles.ts';
import { scoreSentences } from './sentence-scores.ts';

export const LOCAL_EXTRACTIVE_MODEL = 'local-extractive-v1';

export interface JudgmentToAnalyse {
  readonly caseId: string;
  readonly courtName: string;
  readonly text: string;
}

export function analyseJudgment(judgment: JudgmentToAnalyse, model = LOCAL_EXTRACTIVE_MODEL): CaseAnalysis {
  const { caseId } = judgment;
  const read = readJudgment(judgment.text);
  const roles = classifyRoles(read.sentences);
  const scored = scoreSentences(read.sentences, roles, read.lowerCase);
  const issues = issuesIn(read.sentences, roles, caseId);
  return {
    ...extractsOf(scored, issues, caseId),
    issues,
    citedCases: citedCasesIn(read.sentences, caseId, read.lowerCase),
    practiceAreas: practiceAreasOf(judgment.text),
    precedentValue: precedentValueOf(judgment.courtName, judgment.text),
    model,
    disclaimer: ANALYSIS_DISCLAIMER,
  };
}
