/**
 * What the two timeline routes share: the links a job's answer carries (its status URL,
 * and GET /cases/:id/pdf once a document is stored for its case).
 */
import type { TimelineRequests } from '../../../application/timeline/timeline-requests.ts';
import type { TimelineJob } from '../../../application/timeline/timeline-jobs.ts';
import { judgmentKey, type DocumentStorage } from '../../../ports/document-storage.ts';
import { ApiError } from '../../api-error.ts';
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
