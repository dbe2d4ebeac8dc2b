/**
 * The live timeline fetch's activities, built by a factory over ports so the worker entry
 * point alone chooses adapters (tests pass real ones: a test database and the loopback
 * portal). A portal that times out or fails is a retryable failure of its own type; a CNR
 * the portal does not know is permanent. Every activity is safe to repeat: a job already
 * charged, completed or failed is left as it is, because a worker that dies mid-activity
 * has it retried elsewhere. Nothing here logs or returns the timeline, only its counts: it
 * holds names.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { StoredRecords } from '../../src/application/timeline/stored-records.ts';
import type { TimelineJob, TimelineJobs } from '../../src/application/timeline/timeline-jobs.ts';
import { PRICES } from '../../src/domain/credits/prices.ts';
import type { Refund, TimelineFailureCode } from '../../src/domain/timeline-request/timeline-request.ts';
import type { CaseTimeline } from '../../src/domain/timeline/case-timeline.ts';
import { timelineFromPortalRecord } from '../../src/domain/timeline/timeline-from-portal.ts';
import type { Clock } from '../../src/ports/clock.ts';
import { CourtPortalTimeoutError, CourtPortalUnavailableError, type CourtPortal } from '../../src/ports/court-portal.ts';
import { judgmentKey, type DocumentStorage } from '../../src/ports/document-storage.ts';
import type { FetchedTimeline, TimelineActivities } from '../timeline-activity-types.ts';
import { logActivity } from './activity-log.ts';

/** Order documents tried, latest first, when the portal has none for the latest order. */
const DOCUMENT_CANDIDATES = 3;

/** An attempt's time limit: the case-status call and every document call at the portal's timeout, plus the database work. */
export function timelineActivityTimeoutSeconds(portalTimeoutMs: number): number {
  return Math.ceil(((1 + DOCUMENT_CANDIDATES) * portalTimeoutMs) / 1000) + 10;
}

export interface TimelineActivityDeps {
  readonly jobs: TimelineJobs;
  readonly records: StoredRecords;
  readonly portal: CourtPortal;
  readonly documents: DocumentStorage;
  readonly clock: Clock;
}

/** A portal failure as an activity failure whose type the workflow maps to the job's error code. */
async function fromPortal<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CourtPortalTimeoutError) throw ApplicationFailure.retryable(error.message, 'PortalTimeout');
    if (error instanceof CourtPortalUnavailableError) throw ApplicationFailure.retryable(error.message, 'PortalUnavailable');
    throw error;
  }
}

export function createTimelineActivities(deps: TimelineActivityDeps): TimelineActivities {
  async function runningLiveFetch(requestId: string): Promise<TimelineJob & { cnr: string }> {
    const job = await deps.jobs.job(requestId);
    if (!job) throw ApplicationFailure.nonRetryable(`no timeline job ${requestId}`, 'JobNotRunning');
    if (job.cnr === null || !job.refresh)
      throw ApplicationFailure.nonRetryable(`timeline job ${requestId} is not a live fetch`, 'JobNotRunning');
    if (job.status === 'failed') throw ApplicationFailure.nonRetryable(`timeline job ${requestId} already failed`, 'JobNotRunning');
    return { ...job, cnr: job.cnr };
  }

  /** Stores the latest order document the portal serves at the case's judgment key; how many were stored (0 or 1). */
  async function storeLatestDocument(caseId: string, cnr: string, timeline: CaseTimeline): Promise<number> {
    const signal = Context.current().cancellationSignal;
    const linked = timeline.orders.flatMap((o) => (o.documentId === null ? [] : [o.documentId])).reverse();
    for (const documentId of linked.slice(0, DOCUMENT_CANDIDATES)) {
      const bytes = await fromPortal(() => deps.portal.fetchOrderDocument(cnr, { documentId }, signal));
      if (bytes === null) continue;
      await deps.documents.put(judgmentKey(caseId), bytes, 'application/pdf');
      return 1;
    }
    return 0;
  }

  async function failJob(requestId: string, code: TimelineFailureCode, message: string): Promise<Refund | 'none'> {
    const job = await deps.jobs.job(requestId);
    // A job that completed (or never existed) has nothing to give back.
    if (!job || job.status === 'completed' || job.reservationId === null) return 'none';
    // It may complete between the read and the failure: then it keeps its timeline and its charge.
    if ((await deps.jobs.fail(requestId, code, message)) === 'completed') return 'none';
    return job.liveFetched ? 'reversed' : 'released';
  }

  return {
    async startLiveFetch(requestId: string, callId?: string): Promise<{ charged: number }> {
      const job = await runningLiveFetch(requestId);
      if (job.status === 'running') await deps.jobs.startLiveFetch(requestId);
      logActivity('live fetch started and charged', { requestId: callId, timelineRequestId: requestId });
      return { charged: PRICES.requestTimeline.liveFetch };
    },

    async fetchTimeline(requestId: string, callId?: string): Promise<FetchedTimeline> {
      const job = await runningLiveFetch(requestId);
      if (job.status === 'completed') {
        return { hearings: job.timeline?.hearings.length ?? 0, orders: job.timeline?.orders.length ?? 0, documentsStored: null };
      }
      if (!job.liveFetched)
        throw ApplicationFailure.nonRetryable(`timeline job ${requestId} has not started its live fetch`, 'JobNotRunning');
      const signal = Context.current().cancellationSignal;
      const record = await fromPortal(() => deps.portal.fetchCaseStatus(job.cnr, signal));
      if (record === null)
        throw ApplicationFailure.nonRetryable(`the court portal has no record of CNR ${job.cnr}`, 'PortalRecordNotFound');
      // A case we hold keeps the corpus's court name; its document then becomes readable by GET /cases/:id/pdf.
      const held = await deps.records.byCaseId(job.caseId);
      const fetchedAt = deps.clock.now().toISOString();
      const timeline = timelineFromPortalRecord(record, {
        fetchedAt,
        ...(held ? { court: { code: held.court.code, name: held.court.name } } : {}),
      });
      const documentsStored = held ? await storeLatestDocument(job.caseId, job.cnr, timeline) : 0;
      await deps.jobs.complete(requestId, { timeline, documentsStored });
      const counts = { hearings: timeline.hearings.length, orders: timeline.orders.length, documentsStored };
      logActivity('live fetch completed', { requestId: callId, timelineRequestId: requestId, ...counts });
      return counts;
    },

    async failTimeline(requestId: string, code: TimelineFailureCode, message: string, callId?: string) {
      const refund = await failJob(requestId, code, message);
      logActivity('live fetch failed', { requestId: callId, timelineRequestId: requestId, code, refund });
      return { refund };
    },
  };
}
