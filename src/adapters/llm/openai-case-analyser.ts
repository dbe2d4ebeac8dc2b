/**
 * The production CaseAnalyser: a remote model behind the OpenAI chat-completions API,
 * asked for JSON under a strict schema. The judgment goes in as numbered paragraphs
 * ("[1] ...", split by the same `paragraphsOf` every analysis refers to), cut at a
 * character budget for the model's context window; the model answers every item with the
 * paragraph numbers it drew on. Nothing the model says is trusted as it stands: its JSON
 * is validated with zod, every paragraph reference must be a whole number within the
 * paragraphs it was shown and every item must have one, or the whole answer is refused
 * (LlmBadOutputError) and the activity's retry policy decides what next. Citations come
 * back as printed and are parsed here with the same parser as the local analyser (a
 * string it cannot parse is dropped rather than guessed); practice areas are limited to
 * the local analyser's list; the precedent value is computed from the court and the text,
 * not asked of the model. The stored `model` is the id the service says answered.
 */
import { z } from 'zod';
import {
  ANALYSIS_DISCLAIMER,
  type CaseAnalysis,
  type Citation,
  type CitedCase,
  type Treatment,
} from '../../domain/analysis/case-analysis.ts';
import { findCitations } from '../../domain/analysis/citations.ts';
import { paragraphsOf } from '../../domain/analysis/paragraphs.ts';
import { PRACTICE_AREAS } from '../../domain/analysis/practice-areas.ts';
import { precedentValueOf } from '../../domain/analysis/precedent-value.ts';
import type { AnalysisSource, CaseAnalyser } from '../../ports/case-analyser.ts';
import { LlmBadOutputError, type ChatMessage, type OpenAiChat } from './openai-chat.ts';

export interface OpenAiCaseAnalyserOptions {
  /** Paragraphs are sent until this many characters; the rest is left out and said to be. */
  readonly maxInputChars?: number;
}

const DEFAULT_MAX_INPUT_CHARS = 300_000;

const AREAS = Object.keys(PRACTICE_AREAS) as [string, ...string[]];
const Paragraphs = z.array(z.number()).describe('Numbers of the paragraphs ([n]) this is drawn from.');
const Item = z.strictObject({ text: z.string(), paragraphs: Paragraphs });
const Cited = z.strictObject({
  caseName: z.string().nullable().describe('The cited case as named in the judgment, or null.'),
  citations: z.array(z.string()).describe('Each citation of the case exactly as printed in the judgment.'),
  paragraphs: Paragraphs,
});

/** What the model is asked to return; references to this document are added afterwards. */
export const ModelAnalysis = z.strictObject({
  summary: z.string().describe('Three or four sentences: the dispute, the answer, the order.'),
  summaryParagraphs: Paragraphs,
  detailedSummary: z.string().describe('A headnote-length account: facts, questions, holdings with reasons, order.'),
  detailedSummaryParagraphs: Paragraphs,
  headnote: z.string().describe('The holdings on points of law, as a law report headnote states them.'),
  headnoteParagraphs: Paragraphs,
  keyFacts: z.array(Item),
  issues: z.array(
    z.strictObject({
      question: z.string(),
      holding: z.string().nullable().describe('The court’s answer, or null when the judgment gives none.'),
      paragraphs: Paragraphs,
    }),
  ),
  courtsReasoning: z.array(Item).describe('The steps of the court’s reasoning, in order.'),
  citedCases: z.strictObject({
    followed: z.array(Cited),
    distinguished: z.array(Cited),
    overruled: z.array(Cited),
    referred: z.array(Cited),
  }),
  practiceAreas: z.array(z.enum(AREAS)),
  legalPrinciples: z.array(Item).describe('Propositions of law the judgment states or applies, in general terms.'),
});
type ModelAnalysis = z.infer<typeof ModelAnalysis>;

const SCHEMA = (() => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(ModelAnalysis, { target: 'draft-7' });
  return schema;
})();

const INSTRUCTIONS = [
  'You analyse judgments of Indian courts for legal researchers. Use only the judgment given; never add facts, cases or citations it does not contain.',
  'Its paragraphs are numbered [1], [2], ... Every summary, item, issue and cited case must list the numbers of the paragraphs it is drawn from, and only numbers shown.',
  'Sort each cited case by how this judgment treats it: followed (applied or relied on by this court), distinguished (held not to apply), overruled (overruled or held wrongly decided), otherwise referred.',
  'Copy citations exactly as printed. Choose practice areas only from the list the schema allows.',
].join(' ');

/** Numbered paragraphs up to the budget, and how many were sent. */
export function numberedParagraphs(paragraphs: readonly string[], maxChars: number): { text: string; count: number } {
  const lines: string[] = [];
  let used = 0;
  for (const [i, p] of paragraphs.entries()) {
    const line = `[${String(i + 1)}] ${p}`;
    if (used + line.length > maxChars && lines.length > 0) break;
    lines.push(line);
    used += line.length + 1;
  }
  const omitted = paragraphs.length - lines.length;
  const note = omitted > 0 ? `\n(Paragraphs [${String(lines.length + 1)}] to [${String(paragraphs.length)}] are left out for length.)` : '';
  return { text: lines.join('\n') + note, count: lines.length };
}

/** Every paragraph reference in the model's answer, with where it sits, for the range check. */
function references(answer: ModelAnalysis): { where: string; paragraphs: readonly number[] }[] {
  const refs: { where: string; paragraphs: readonly number[] }[] = [
    { where: 'summaryParagraphs', paragraphs: answer.summaryParagraphs },
    { where: 'detailedSummaryParagraphs', paragraphs: answer.detailedSummaryParagraphs },
    { where: 'headnoteParagraphs', paragraphs: answer.headnoteParagraphs },
  ];
  const lists = {
    keyFacts: answer.keyFacts,
    issues: answer.issues,
    courtsReasoning: answer.courtsReasoning,
    legalPrinciples: answer.legalPrinciples,
  };
  for (const [name, list] of Object.entries(lists))
    list.forEach((item, i) => refs.push({ where: `${name}[${String(i)}]`, paragraphs: item.paragraphs }));
  for (const [treatment, list] of Object.entries(answer.citedCases)) {
    list.forEach((item, i) => refs.push({ where: `citedCases.${treatment}[${String(i)}]`, paragraphs: item.paragraphs }));
  }
  return refs;
}

function checkReferences(answer: ModelAnalysis, count: number): void {
  const texts: Readonly<Record<string, string>> = {
    summaryParagraphs: answer.summary,
    detailedSummaryParagraphs: answer.detailedSummary,
    headnoteParagraphs: answer.headnote,
  };
  for (const ref of references(answer)) {
    const bad = ref.paragraphs.find((n) => !Number.isInteger(n) || n < 1 || n > count);
    if (bad !== undefined)
      throw new LlmBadOutputError(
        `the model cited paragraph ${String(bad)} at ${ref.where}; the judgment sent has paragraphs 1 to ${String(count)}`,
      );
    // An empty summary may come without paragraphs; anything said needs a source.
    const saysSomething = ref.where in texts ? texts[ref.where] !== '' : true;
    if (saysSomething && ref.paragraphs.length === 0) throw new LlmBadOutputError(`the model gave no paragraph for ${ref.where}`);
  }
}

const sorted = (paragraphs: readonly number[]): number[] => [...new Set(paragraphs)].sort((a, b) => a - b);

function parsedCitations(printed: readonly string[]): Citation[] {
  return printed.flatMap((p) => findCitations(p).map((m) => m.citation));
}

export class OpenAiCaseAnalyser implements CaseAnalyser {
  readonly model: string;

  constructor(
    private readonly chat: OpenAiChat,
    private readonly options: OpenAiCaseAnalyserOptions = {},
  ) {
    this.model = chat.model;
  }

  async analyse(source: AnalysisSource, signal?: AbortSignal): Promise<CaseAnalysis> {
    const { text, count } = numberedParagraphs(paragraphsOf(source.text), this.options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS);
    if (count === 0) throw new RangeError(`case ${source.caseId} has no text to analyse`);
    const heading = [
      `Case number: ${source.caseNumber}`,
      `Title: ${source.title ?? 'not recorded'}`,
      `Court: ${source.courtName}`,
      `Decision date: ${source.decisionDate ?? 'not recorded'}`,
    ].join('\n');
    const messages: ChatMessage[] = [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: `${heading}\n\n${text}` },
    ];
    const result = await this.chat.completeJson(messages, { name: 'case_analysis', schema: SCHEMA }, signal);
    const parsed = ModelAnalysis.safeParse(result.json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new LlmBadOutputError(
        `the model's JSON does not match the analysis schema at ${first?.path.join('.') ?? '?'}: ${first?.message ?? ''}`,
      );
    }
    checkReferences(parsed.data, count);
    return this.#toAnalysis(parsed.data, source, result.model ?? this.model);
  }

  #toAnalysis(answer: ModelAnalysis, source: AnalysisSource, model: string): CaseAnalysis {
    const { caseId } = source;
    const sourceRef = (paragraphs: readonly number[]) => (paragraphs.length === 0 ? [] : [{ caseId, paragraphs: sorted(paragraphs) }]);
    const item = (i: { text: string; paragraphs: number[] }) => ({ caseId, paragraphs: sorted(i.paragraphs), text: i.text });
    const cited = (t: Treatment): CitedCase[] =>
      answer.citedCases[t].map((c) => ({
        caseId,
        paragraphs: sorted(c.paragraphs),
        caseName: c.caseName,
        citations: parsedCitations(c.citations),
      }));
    return {
      summary: answer.summary,
      summarySources: sourceRef(answer.summaryParagraphs),
      detailedSummary: answer.detailedSummary,
      detailedSummarySources: sourceRef(answer.detailedSummaryParagraphs),
      headnote: answer.headnote,
      headnoteSources: sourceRef(answer.headnoteParagraphs),
      keyFacts: answer.keyFacts.map(item),
      issues: answer.issues.map((i) => ({ caseId, paragraphs: sorted(i.paragraphs), question: i.question, holding: i.holding })),
      courtsReasoning: answer.courtsReasoning.map(item),
      citedCases: {
        followed: cited('followed'),
        distinguished: cited('distinguished'),
        overruled: cited('overruled'),
        referred: cited('referred'),
      },
      practiceAreas: [...new Set(answer.practiceAreas)],
      legalPrinciples: answer.legalPrinciples.map(item),
      precedentValue: precedentValueOf(source.courtName, source.text),
      model,
      disclaimer: ANALYSIS_DISCLAIMER,
    };
  }
}
