/**
 * What the two timeline routes share: the links a job's answer carries (its status URL,
 * and GET /cases/:id/pdf once a document is stored for its case) and the mapping of
 * refusals onto the spec's error codes.
 */
import type { TimelineRefusal, TimelineRequests } from '../../../application/timeline/timeline-requests.ts';
import type { TimelineJob } from '../../../application/timeline/timeline-jobs.ts';
import { judgmentKey, type DocumentStorage } from '../../../ports/document-storage.ts';
import { ApiError, workflowEngineUnavailable } from '../../api-error.ts';
import { refusalError, type RefusalLinks } from '../../admission.ts';
import { jobBody, type TimelineJobBody } from './timeline-schemas.ts';

export interface TimelineRouteDeps {
  readonly requests: TimelineRequests;
  /** Where fetched order documents are stored, to say whether GET /cases/:id/pdf has one. */
  readonly documents: DocumentStorage;
  /** Carried in every 402 body. */
  readonly topUpUrl: string;
  /** Carried in the Free tier's LIVE_FETCH_NOT_ALLOWED body. */
  readonly upgradeUrl: string;
  /** The API root path, for the status links in answers. */
  readonly basePath: string;
}

export async function jobAnswer(job: TimelineJob, deps: TimelineRouteDeps): Promise<TimelineJobBody> {
  const statusUrl = `${deps.basePath}/request-timeline/${encodeURIComponent(job.requestId)}`;
  let pdfUrl: string | null = null;
  if (job.status === 'completed') {
    const stored = await deps.documents.exists(judgmentKey(job.caseId)).catch((error: unknown) => {
      throw new ApiError('UPSTREAM_UNAVAILABLE', { message: 'Document storage did not respond. Retry shortly.', cause: error });
    });
    if (stored) pdfUrl = `${deps.basePath}/cases/${encodeURIComponent(job.caseId)}/pdf`;
  }
  return jobBody(job, { statusUrl, pdfUrl });
}

const COURT_WORDS: Readonly<Record<string, string>> = {
  supreme: 'a Supreme Court judgment',
  tribunal: 'a tribunal record',
  high: 'a High Court case without a CNR',
  district: 'a District Court case without a CNR',
};

/** The error a refused request answers with; nothing was charged for any of them. */
export function timelineRefusal(refusal: TimelineRefusal, links: RefusalLinks): ApiError {
  switch (refusal.tag) {
    case 'CaseNotFound':
      return new ApiError('CASE_NOT_FOUND', {
        message:
          refusal.cnr === null
            ? 'No case matches this identifier.'
            : `No case with CNR ${refusal.cnr} is held. Send refresh true to fetch it live from the court portal.`,
      });
    case 'CaseRestricted':
      return new ApiError('CASE_RESTRICTED');
    case 'NotLiveFetchable': {
      const detail = `caseId: ${COURT_WORDS[refusal.courtLevel] ?? 'this case'} cannot be fetched live; live fetches reach the eCourts High Court and District Court registries only`;
      return new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${detail}. Nothing was charged.`, details: [detail] });
    }
    case 'LiveFetchNotConfigured':
      return new ApiError('UPSTREAM_UNAVAILABLE', {
        message:
          'Live fetches are not configured on this service (no court portal is set up); nothing was charged. refresh false answers from the stored record.',
      });
    case 'WorkflowsUnavailable':
      return workflowEngineUnavailable('live fetch');
    case 'DailyLimit':
      return new ApiError('LIVE_FETCH_LIMIT_REACHED', {
        message: `${refusal.used} live fetches today, the most your tier allows (${refusal.cap}); the count resets at 00:00 UTC. Nothing was charged.`,
        headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
        extra: { limit: refusal.cap, used: refusal.used, retryAfter: refusal.retryAfterSeconds, resetTime: refusal.resetAt.toISOString() },
      });
    case 'InsufficientCredits':
      return refusalError(refusal, links);
  }
}
