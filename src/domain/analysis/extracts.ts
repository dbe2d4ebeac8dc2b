/**
 * The extractive parts of an analysis, every one made of the judgment's own sentences in
 * the judgment's order. The detailed summary follows the shape of a law-report headnote:
 * up to a third facts, then the court's reasoning and holdings, then its final order, within
 * a word budget that grows with the judgment (a fifth of its length, the median ratio of
 * headnote to judgment in the IN-Abs reports, within 150 to 900 words). The short summary
 * is the best fact, the best holding and the order. The headnote is the holdings. Key
 * facts, reasoning and legal principles are the best sentences of those roles; a
 * principle is reasoning phrased in general terms (no parties, no "this case"). A
 * sentence too close to one already chosen is skipped. Pure.
 */
import type { Issue, Passage, SourceRef } from './case-analysis.ts';
import type { Role } from './rhetorical-roles.ts';
import { HOLDING_CUE, type ScoredSentence } from './sentence-scores.ts';
import { overlap } from './words.ts';

const REDUNDANT = 0.6;
const SUMMARY_RATIO = 0.2;
const MIN_BUDGET = 150;
const MAX_BUDGET = 900;

const PARTICULAR =
  /\b(?:appellants?|respondents?|petitioners?|accused|plaintiffs?|defendants?|complainant|deceased|he|she|his|her|him|they|this case|present case|instant case|the case before us|here|herein|high court|trial court|tribunal|learned|exhibit|ex\.|rs\.?)\b/i;
const GENERAL =
  /\b(?:principle|rule|settled|doctrine|the law|the test|it is (?:well )?(?:settled|established)|no person|a person|every|any person|where|when(?:ever)?|if|must|cannot|can only|is not|are not|should)\b/i;

function pick(candidates: readonly ScoredSentence[], budget: number, maxSentences: number, taken: ScoredSentence[] = []): ScoredSentence[] {
  const chosen: ScoredSentence[] = [];
  let words = 0;
  for (const s of [...candidates].sort((a, b) => b.score - a.score || a.index - b.index)) {
    if (chosen.length >= maxSentences || words >= budget) break;
    if (s.score <= 0 || words + s.wordCount > budget * 1.15) continue;
    if ([...taken, ...chosen].some((c) => c.index === s.index || overlap(s.words, c.words) > REDUNDANT)) continue;
    chosen.push(s);
    words += s.wordCount;
  }
  return chosen;
}

const inOrder = (list: readonly ScoredSentence[]): ScoredSentence[] => [...list].sort((a, b) => a.index - b.index);
const ofRoles = (all: readonly ScoredSentence[], ...roles: Role[]): ScoredSentence[] => all.filter((s) => roles.includes(s.role));

function sources(list: readonly { paragraph: number }[], caseId: string): SourceRef[] {
  if (list.length === 0) return [];
  return [{ caseId, paragraphs: [...new Set(list.map((s) => s.paragraph))].sort((a, b) => a - b) }];
}

function passages(list: readonly ScoredSentence[], caseId: string): Passage[] {
  return inOrder(list).map((s) => ({ caseId, paragraphs: [s.paragraph], text: s.text }));
}

const joined = (list: readonly ScoredSentence[]): string =>
  inOrder(list)
    .map((s) => s.text.trimEnd())
    .join(' ');

export interface Extracts {
  readonly summary: string;
  readonly summarySources: SourceRef[];
  readonly detailedSummary: string;
  readonly detailedSummarySources: SourceRef[];
  readonly headnote: string;
  readonly headnoteSources: SourceRef[];
  readonly keyFacts: Passage[];
  readonly courtsReasoning: Passage[];
  readonly legalPrinciples: Passage[];
}

export function detailedBudget(sentences: readonly ScoredSentence[]): number {
  const words = sentences.reduce((sum, s) => sum + s.wordCount, 0);
  return Math.round(Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, words * SUMMARY_RATIO)));
}

export function extractsOf(sentences: readonly ScoredSentence[], issues: readonly Issue[], caseId: string): Extracts {
  const facts = ofRoles(sentences, 'facts', 'lowerCourtRuling');
  const reasoning = ofRoles(sentences, 'ratio', 'presentCourtRuling');
  const rulings = ofRoles(sentences, 'presentCourtRuling');
  const order = rulings.filter((s) => s.position > 0.8).at(-1) ?? rulings.at(-1);

  const budget = detailedBudget(sentences);
  const detailedFacts = pick(facts, budget * 0.35, 40);
  const detailedOrder = order ? [order] : [];
  const detailedReasoning = pick(reasoning, budget - detailedFacts.reduce((n, s) => n + s.wordCount, 0) - (order?.wordCount ?? 0), 60, [
    ...detailedFacts,
    ...detailedOrder,
  ]);
  const detailed = [...detailedFacts, ...detailedReasoning, ...detailedOrder];

  const holdingTexts = new Set(issues.flatMap((i) => (i.holding === null ? [] : [i.holding])));
  const holdings = reasoning.filter((s) => holdingTexts.has(s.text) || HOLDING_CUE.test(s.text));
  const headnote = pick(holdings.length > 0 ? holdings : reasoning, 180, 5);

  const short = [...pick(facts, 60, 1), ...pick(holdings.length > 0 ? holdings : reasoning, 60, 1)];
  if (order && !short.some((s) => s.index === order.index)) short.push(order);

  const principles = reasoning.filter((s) => !PARTICULAR.test(s.text) && GENERAL.test(s.text) && s.wordCount >= 10);

  return {
    summary: joined(short),
    summarySources: sources(inOrder(short), caseId),
    detailedSummary: joined(detailed),
    detailedSummarySources: sources(detailed, caseId),
    headnote: joined(headnote),
    headnoteSources: sources(headnote, caseId),
    keyFacts: passages(pick(facts, 400, 8), caseId),
    courtsReasoning: passages(pick(ofRoles(sentences, 'ratio'), 600, 10), caseId),
    legalPrinciples: passages(pick(principles, 300, 6), caseId),
  };
}
