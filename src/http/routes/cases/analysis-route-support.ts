/**
 * What the three analysis routes share: their dependencies, the stored-analysis body
 * (the analysis with the case it describes, the model that produced it and when, its
 * prose watermarked for the caller's billing account as it leaves, the stored analysis
 * staying clean), and the mapping of their refusals onto the spec's error codes.
 */
import { z } from '@hono/zod-openapi';
import type { AnalysisRequests, NotAdmitted, StoredAnalysis } from '../../../application/analysis/analysis-requests.ts';
import type { AdmitRefusal } from '../../../application/analysis/analysis-runs.ts';
import type { CaseReader, CaseView } from '../../../application/cases/case-reader.ts';
import type { CaseAnalysis } from '../../../domain/analysis/case-analysis.ts';
import { watermarkProse } from '../../../domain/analysis/watermark-prose.ts';
import type { TierNotAllowed } from '../../../application/admission/decision.ts';
import { refusalError, type RefusalLinks } from '../../admission.ts';
import { ApiError, workflowEngineUnavailable } from '../../api-error.ts';
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

const NO_SOURCE_HINT: Readonly<Record<string, string>> = {
  supreme:
    'This judgment is held as an index entry only. Retry with allowRemoteFetch true to fetch it from the Supreme Court’s site (+20 credits, only if fetched).',
  high: 'No document is held for this case. Use POST /request-timeline with refresh true to fetch its orders from the court portal, then analyse again.',
  district:
    'No document is held for this case. Use POST /request-timeline with refresh true to fetch its orders from the court portal, then analyse again.',
  tribunal: 'No document is held for this tribunal case, and tribunal documents cannot be fetched through this API.',
};

/** The error a refused analysis request answers with; the refusals every priced call shares go through the one table. */
export function analysisRefusal(
  refusal: AdmitRefusal | NotAdmitted | TierNotAllowed | { tag: 'RemoteFetchNotAllowed'; host: string },
  links: RefusalLinks,
): ApiError {
  switch (refusal.tag) {
    case 'InsufficientCredits':
    case 'TierNotAllowed':
      return refusalError(refusal, links);
    case 'ConcurrencyLimit':
      return new ApiError('CONCURRENT_ANALYSIS_LIMIT', {
        message: `${String(refusal.running)} analyses of yours are running, the most your tier allows at once; retry in 30 seconds. Nothing was charged.`,
        headers: { 'Retry-After': '30' },
      });
    case 'NoReadableSource':
      return new ApiError('PDF_NOT_STORED', {
        message: 'This case has no readable text and no stored document to analyse; nothing was charged.',
        extra: { hint: NO_SOURCE_HINT[refusal.courtLevel] ?? NO_SOURCE_HINT.high },
      });
    case 'WorkflowsUnavailable':
      return workflowEngineUnavailable('analysis run');
    case 'RemoteFetchNotAllowed':
      return new ApiError('REMOTE_FETCH_NOT_ALLOWED', {
        message: `The document's host ${refusal.host} is not on the remote-fetch allowlist; nothing was charged.`,
      });
  }
}
