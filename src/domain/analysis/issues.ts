/**
 * The questions a court frames ("The question is whether ...", "the point for
 * determination is as to ...", "this appeal raises a question as to ...": a frame that
 * says what is asked) and, for each, the sentence that answers it: of the later sentences
 * of the court's reasoning or ruling, before the next question is framed, that say they
 * decide ("we hold", "in our opinion", "the answer is"), the one sharing most of the
 * question's words. A question the text never answers in those terms keeps a null
 * holding rather than a guessed one. Questions that restate an earlier one are dropped.
 * Pure.
 */
import type { Issue } from './case-analysis.ts';
import type { Sentence } from './judgment.ts';
import type { Role } from './rhetorical-roles.ts';
import { contentWords, overlap } from './words.ts';

const QUESTION =
  /\b(?:(?:the|a|one|first|second|third|next|main|short|only|sole|principal|substantial|important|crucial|core|primary|neat|real|further|other|two|three|following|said)\s+)+(?:question|point|issue|controversy)s?\s+(?:(?:which|that)\s+)?(?:arises?|arising|arose|falls?|fell|survives?|remains?|requires?|involved|raised|posed|canvassed|before us|for (?:our )?(?:consideration|determination|decision)|to be (?:decided|determined|considered|answered)|is whether|was whether|in (?:this|these|the present) (?:appeal|case|petition)s?)|\b(?:question|point|issue)s? (?:for|of) (?:determination|consideration|decision)\b|\b(?:turns|depends) (?:up)?on the (?:question|point)\b|\braises? (?:a|the|an|two|three|some) (?:short |important |interesting |substantial )?(?:question|point|issue)s?\b|\bthe (?:question|point|issue) (?:is|was|before us is|in this appeal is|therefore is|then is) whether\b/i;

const HOLDING =
  /\b(?:(?:we|i) (?:would |therefore |accordingly |must |are constrained to |am constrained to |have no hesitation in |are inclined to |am inclined to )?(?:hold|answer|find|conclude|agree|think|are of (?:the )?(?:opinion|view)|am of (?:the )?(?:opinion|view)|are satisfied|am satisfied|are clearly|am clearly|have no doubt|have come to the conclusion)|in (?:our|my) (?:opinion|view|judgment)|our answer|the answer (?:to|is|must)|must be answered|it must (?:therefore )?be held|it follows that|it is (?:therefore )?clear that|there (?:is|can be) no doubt that|we are unable|we cannot (?:accept|agree|hold)|we see no|there is no (?:substance|merit|force))\b/i;
/** A framed question says what is to be decided. */
const ASKS = /\b(?:whether|as to|how far|what)\b/i;

const HOLDING_ROLES: ReadonlySet<Role> = new Set(['ratio', 'presentCourtRuling']);
const MIN_SHARED = 0.15;
const SAME_QUESTION = 0.7;

export function issuesIn(sentences: readonly Sentence[], roles: readonly Role[], caseId: string, limit = 8): Issue[] {
  const questions = sentences
    .map((s, i) => i)
    .filter((i) => roles[i] !== 'argument' && QUESTION.test(sentences[i]!.text) && ASKS.test(sentences[i]!.text));
  const issues: Issue[] = [];
  const asked: string[][] = [];
  questions.forEach((q, n) => {
    if (issues.length >= limit) return;
    const question = sentences[q]!;
    const words = contentWords(question.text);
    if (words.length < 3 || asked.some((a) => overlap(words, a) >= SAME_QUESTION)) return;
    asked.push(words);
    const until = Math.min(questions[n + 1] ?? sentences.length, sentences.length);
    let holding: Sentence | null = null;
    let best = MIN_SHARED;
    for (let i = q + 1; i < until; i++) {
      const s = sentences[i]!;
      if (!HOLDING_ROLES.has(roles[i]!) || !HOLDING.test(s.text)) continue;
      const shared = overlap(words, contentWords(s.text));
      if (shared > best) {
        best = shared;
        holding = s;
      }
    }
    const paragraphs = [...new Set([question.paragraph, ...(holding ? [holding.paragraph] : [])])].sort((a, b) => a - b);
    issues.push({ caseId, paragraphs, question: question.text, holding: holding?.text ?? null });
  });
  return issues;
}
