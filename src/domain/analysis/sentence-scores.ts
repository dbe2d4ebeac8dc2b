/**
 * How much each sentence says about the judgment as a whole, for choosing which ones to
 * extract. Three things count: centrality (the sentence uses the words the judgment keeps
 * returning to, each weighted by the log of the number of sentences using it; words in
 * only one sentence or in most of them say nothing), its rhetorical role (the court's
 * reasoning and ruling over the parties' arguments, quoted provisions and other cases),
 * and whether it frames a question or states a holding. Very short sentences (debris,
 * headings), very long ones (quoted schedules) and, in text that keeps its capitals, ones
 * starting in lower case (the tail of a sentence the source broke) are discounted. Pure.
 */
import type { Sentence } from './judgment.ts';
import type { Role } from './rhetorical-roles.ts';
import { contentWords } from './words.ts';

const ROLE_WEIGHT: Readonly<Record<Role, number>> = {
  ratio: 1,
  presentCourtRuling: 1.1,
  facts: 0.9,
  lowerCourtRuling: 0.7,
  argument: 0.55,
  precedent: 0.5,
  statute: 0.45,
};

export const HOLDING_CUE =
  /\b(?:we (?:would |therefore |accordingly )?(?:hold|are of (?:the )?(?:opinion|view)|are satisfied|have come to the conclusion)|in our (?:opinion|view|judgment)|it must (?:therefore )?be held|it follows that|the (?:true|correct|proper) (?:test|position|view|construction|meaning)|is well[- ]settled|the law is)\b/i;
const QUESTION_CUE = /\b(?:question|point|issue)s? (?:is|was|which|that|for|arises?|before us)\b|\bwhether\b/i;

export interface ScoredSentence extends Sentence {
  readonly role: Role;
  readonly words: readonly string[];
  readonly wordCount: number;
  readonly score: number;
}

/** `lowerCase`: the source lost its capitals, so a sentence starting in lower case is not a fragment. */
export function scoreSentences(sentences: readonly Sentence[], roles: readonly Role[], lowerCase: boolean): ScoredSentence[] {
  const words = sentences.map((s) => contentWords(s.text));
  const spread = new Map<string, number>();
  for (const list of words) for (const w of new Set(list)) spread.set(w, (spread.get(w) ?? 0) + 1);
  const common = Math.max(3, sentences.length * 0.3);
  const topical = (w: string): number => {
    const n = spread.get(w) ?? 0;
    return n >= 2 && n <= common ? Math.log(1 + n) : 0;
  };
  const centrality = words.map((list) => {
    const distinct = [...new Set(list)];
    return distinct.reduce((sum, w) => sum + topical(w), 0) / Math.sqrt(distinct.length + 1);
  });
  const top = Math.max(1e-9, ...centrality);
  return sentences.map((s, i) => {
    const role = roles[i]!;
    const wordCount = s.text.split(/\s+/).length;
    const length = wordCount < 8 ? 0.4 : wordCount > 90 ? 0.6 : 1;
    const fragment = !lowerCase && !/^["'(\[]?[A-Z]/.test(s.text) ? 0.2 : 1;
    const cue = HOLDING_CUE.test(s.text) ? 1.3 : QUESTION_CUE.test(s.text) ? 1.15 : 1;
    const opening = s.position < 0.08 ? 1.15 : 1;
    const score = (centrality[i]! / top) * ROLE_WEIGHT[role] * length * fragment * cue * opening;
    return { ...s, role, words: words[i]!, wordCount, score };
  });
}
