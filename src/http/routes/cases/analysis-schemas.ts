/**
 * The case analysis as the API returns it (GET /cases/:id/analysis, POST
 * /cases/:id/analyze and /analyze-consolidated), field for field the domain's
 * CaseAnalysis: the compile-time check at the bottom fails if either side changes
 * without the other. Every extracted item carries the document it came from (caseId) and
 * that document's paragraph numbers, so a consolidated analysis over several documents
 * reads the same way as a single one. Model output: a research aid, never legal advice.
 */
import { z } from '@hono/zod-openapi';
import { REPORTERS, type CaseAnalysis } from '../../../domain/analysis/case-analysis.ts';

const caseId = z.string().openapi({ example: 'sc-inabs-1181', description: 'The document the paragraphs belong to.' });
const paragraphs = z
  .array(z.number().int().min(1))
  .openapi({ example: [7, 12], description: 'Paragraph numbers in that document, from 1, ascending, as the analysis splits its text.' });

const SourceRefSchema = z.strictObject({ caseId, paragraphs }).openapi('AnalysisSourceRef');

const PassageSchema = z
  .strictObject({
    caseId,
    paragraphs,
    text: z.string().openapi({
      example: 'The appeal is dismissed with costs.',
      description: 'Taken from the judgment (local analyser) or written by the model.',
    }),
  })
  .openapi('AnalysisPassage');

const IssueSchema = z
  .strictObject({
    caseId,
    paragraphs,
    question: z.string().openapi({ description: 'The question as the court framed it.' }),
    holding: z.string().nullable().openapi({ description: "The court's answer; null when the judgment states none in terms." }),
  })
  .openapi('AnalysisIssue');

const CitationSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('report'),
      printed: z.string().openapi({ example: 'AIR 1973 SC 1461', description: 'As printed in the judgment.' }),
      reporter: z.enum(REPORTERS).openapi({ example: 'AIR' }),
      year: z.number().int().nullable().openapi({ example: 1973 }),
      volume: z.string().nullable().openapi({ example: null, description: 'Printed volume, "Supp" or "Supp (1)" included.' }),
      court: z.string().nullable().openapi({ example: 'SC', description: 'Court segment of AIR, JT, ILR and Indlaw citations.' }),
      page: z.number().int().openapi({ example: 1461 }),
    }),
    z.strictObject({
      kind: z.literal('neutral'),
      printed: z.string().openapi({ example: '2023 INSC 1' }),
      year: z.number().int().openapi({ example: 2023 }),
      court: z
        .string()
        .openapi({ example: 'INSC', description: '"INSC" for the Supreme Court, a High Court code such as "DHC" otherwise.' }),
      number: z.number().int().openapi({ example: 1 }),
    }),
  ])
  .openapi('Citation');

const CitedCaseSchema = z
  .strictObject({
    caseId,
    paragraphs,
    caseName: z
      .string()
      .nullable()
      .openapi({ example: 'Kesavananda Bharati v. State of Kerala', description: 'As the judgment names it, when it does.' }),
    citations: z
      .array(CitationSchema)
      .openapi({ description: 'Parallel citations of the case; empty when the judgment names it without one.' }),
  })
  .openapi('CitedCase');

const citedList = (treatment: string) => z.array(CitedCaseSchema).openapi({ description: `Cases the judgment ${treatment}.` });

const PrecedentValueSchema = z
  .strictObject({
    level: z.enum(['binding', 'persuasive', 'unknown']).openapi({ example: 'binding' }),
    court: z.string().openapi({ example: 'Supreme Court of India' }),
    benchStrength: z.number().int().nullable().openapi({ example: 5, description: 'Judges on the bench, when the text lists them.' }),
    reason: z.string().openapi({
      example: 'Supreme Court decision: the law it declares binds all courts in India (Constitution, Article 141). Bench of 5 judges.',
    }),
  })
  .openapi('PrecedentValue');

export const CaseAnalysisSchema = z
  .strictObject({
    summary: z.string().openapi({ description: 'Short summary: the dispute, the holding, the order.' }),
    summarySources: z.array(SourceRefSchema),
    detailedSummary: z
      .string()
      .openapi({ description: 'Headnote-length summary; documents of a consolidated analysis one after another, blank-line separated.' }),
    detailedSummarySources: z.array(SourceRefSchema),
    headnote: z.string().openapi({ description: 'The holdings on points of law.' }),
    headnoteSources: z.array(SourceRefSchema),
    keyFacts: z.array(PassageSchema),
    issues: z.array(IssueSchema),
    courtsReasoning: z.array(PassageSchema).openapi({ description: "The court's reasoning, in the judgment's order." }),
    citedCases: z
      .strictObject({
        followed: citedList('follows, applies or relies on'),
        distinguished: citedList('distinguishes or declines to follow'),
        overruled: citedList('overrules or holds wrongly decided'),
        referred: citedList('only refers to'),
      })
      .openapi({ description: 'Split by how this judgment treats each case.' }),
    practiceAreas: z.array(z.string()).openapi({ example: ['Constitutional', 'Property & Land'] }),
    legalPrinciples: z.array(PassageSchema).openapi({ description: 'Propositions of law stated in general terms.' }),
    precedentValue: PrecedentValueSchema,
    model: z.string().openapi({
      example: 'local-extractive-v1',
      description: 'What produced the analysis: the local extractive analyser or the remote model id.',
    }),
    disclaimer: z.string().openapi({ description: 'Research aid, not legal advice.' }),
  })
  .openapi('CaseAnalysis', { description: 'Model output; a research aid only, not legal advice.' });

type Writable<T> = T extends readonly (infer U)[] ? Writable<U>[] : T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the schema and the domain type drift apart. */
export const SCHEMA_MIRRORS_DOMAIN: Same<z.infer<typeof CaseAnalysisSchema>, Writable<CaseAnalysis>> = true;
