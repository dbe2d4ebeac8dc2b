/**
 * What the three analysis routes share: their dependencies, the stored-analysis body
 * (the analysis with the case it describes, the model that produced it and when, its
 * prose watermarked for the caller's billing account as it leaves, the stored analysis
 * staying clean).
 */
import { z } from '@hono/zod-openapi';
import type { AnalysisRequests, StoredAnalysis } from '../../../application/analysis/analysis-requests.ts';
import type { CaseReader, CaseView } from '../../../application/cases/case-reader.ts';
import type { CaseAnalysis } from '../../../domain/analysis/case-analysis.ts';
import { watermarkProse } from '../../../domain/analysis/watermark-prose.ts';
import { CaseAnalysisSchema } from './analysis-schemas.ts';

export interface AnalysisRouteDeps {
  readonly cases: CaseReader;
  readonly requests: AnalysisRequests;
  readonly topUpUrl: string;
  readonly upgradeUrl: string;
  /** The API root path, for the result links in 202 answers. */
  readonly basePath: string;
}

/** Marks prose with a billing account's watermark: the research routes' own, so case text and analyses carry the same tag. */
export type Watermark = (accountId: string, text: string) => string;

export const StoredAnalysisSchema = z.object({
  caseId: z.string(),
  caseNumber: z.string(),
  hasAnalysis: z.literal(true),
  analysis: CaseAnalysisSchema,
  model: z.string().openapi({ description: 'What produced the analysis, e.g. local-extractive-v1 (the built-in extractive analyser).' }),
  analysedAt: z.string().openapi({ format: 'date-time' }),
  runId: z.string(),
  documents: z.array(z.string()).openapi({ description: 'The document ids the analysis covers (several for a consolidated analysis).' }),
});

/** The body of a stored analysis as `accountId` receives it. */
export function storedAnalysisOf(view: CaseView, stored: StoredAnalysis, watermark: Watermark, accountId: string) {
  const analysis = watermarkProse(stored.analysis as CaseAnalysis, (text) => watermark(accountId, text));
  return {
    caseId: view.caseId,
    caseNumber: view.caseNumber,
    hasAnalysis: true as const,
    analysis: analysis as z.infer<typeof CaseAnalysisSchema>,
    model: stored.model,
    analysedAt: stored.storedAt.toISOString(),
    runId: stored.runId,
    documents: [...stored.caseIds],
  };
}
