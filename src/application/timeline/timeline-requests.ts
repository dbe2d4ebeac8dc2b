/**
 * What POST /request-timeline and GET /request-timeline/:requestId ask of the
 * application: which case a request names (a case id or case number, or a CNR, held or
 * not), the checks a live fetch must pass before anything is charged (a registry case, a
 * configured court portal and workflow engine, then the daily cap and the balance inside
 * the admitting transaction), the answer from the store, the start of the fetch's
 * workflow, and reading a job back for its own account while it has not expired. A
 * workflow the engine cannot start is refused to the caller with the job failed and its
 * hold released; a start lost to a crash is recovered by the dispatcher (see
 * timeline-dispatcher.ts).
 */
import type { RefusalOf } from '../admission/decision.ts';
import type { CourtLevel } from '../../domain/case/case-record.ts';
import type { CaseTimeline } from '../../domain/timeline/case-timeline.ts';
import type { Clock } from '../../ports/clock.ts';
import type { TimelineWorkflows } from '../../ports/timeline-workflows.ts';
import type { WorkflowCaller } from '../../ports/analysis-workflows.ts';
import type { CaseReader } from '../cases/case-reader.ts';
import { caseIdOfCnr, type StoredRecords } from './stored-records.ts';
import type { AdmitRefusal, TimelineJob, TimelineJobs } from './timeline-jobs.ts';

/** How the caller named the case: exactly one of the two. */
export type CaseReference = { readonly caseId: string } | { readonly cnr: string };

/** The case a request is about, once resolved. */
export type TimelineTarget =
  | {
      readonly held: true;
      readonly caseId: string;
      readonly caseNumber: string;
      readonly courtLevel: CourtLevel;
      readonly cnr: string | null;
      readonly stored: CaseTimeline | null;
    }
  /** A CNR we hold no case for: only a live fetch can answer it. */
  | { readonly held: false; readonly caseId: string; readonly cnr: string };

const LIVE_FETCH_ENGINE_DOWN = { tag: 'WorkflowsUnavailable', work: 'live fetch' } as const;

export type TimelineRefusal =
  RefusalOf<'CaseNotFound' | 'CaseRestricted' | 'NotLiveFetchable' | 'LiveFetchNotConfigured' | 'WorkflowsUnavailable'> | AdmitRefusal;

export type TimelineRequestOutcome =
  | { outcome: 'answered'; job: TimelineJob; target: TimelineTarget }
  | { outcome: 'admitted'; requestId: string; held: number; balance: number; target: TimelineTarget }
  | { outcome: 'refused'; refusal: TimelineRefusal };

export interface TimelineRequestsDeps {
  readonly cases: CaseReader;
  readonly records: StoredRecords;
  readonly jobs: TimelineJobs;
  readonly workflows: TimelineWorkflows;
  /** Whether a court portal is configured (COURT_PORTAL_URL) for live fetches. */
  readonly livePortal: boolean;
  readonly clock: Clock;
  /** A workflow start that failed after its job was admitted (the job was failed and its hold released). */
  readonly onStartFailure: (requestId: string, error: unknown) => void;
}

/** What a job failed for want of a workflow engine tells the caller who reads it. */
export const ENGINE_DOWN_MESSAGE = 'The workflow engine could not run the live fetch; its payment was given back.';

const LIVE_FETCH_LEVELS: readonly CourtLevel[] = ['high', 'district'];

/** The CNR a live fetch would ask the portal for: a held case must be an eCourts registry case with one. */
function liveFetchable(target: TimelineTarget): { cnr: string } | { refusal: TimelineRefusal } {
  if (!target.held) return { cnr: target.cnr };
  if (target.cnr === null || !LIVE_FETCH_LEVELS.includes(target.courtLevel)) {
    return { refusal: { tag: 'NotLiveFetchable', courtLevel: target.courtLevel } };
  }
  return { cnr: target.cnr };
}

export class TimelineRequests {
  constructor(private readonly deps: TimelineRequestsDeps) {}

  /** The case a request names; a case id may also be a case number in any printed form. */
  async resolve(reference: CaseReference): Promise<{ target: TimelineTarget } | { refusal: TimelineRefusal }> {
    if ('cnr' in reference) {
      const record = await this.deps.records.byCaseId(caseIdOfCnr(reference.cnr));
      if (!record) return { target: { held: false, caseId: caseIdOfCnr(reference.cnr), cnr: reference.cnr } };
      if (record.restricted) return { refusal: { tag: 'CaseRestricted' } };
      return { target: { held: true, ...record, courtLevel: record.court.level, stored: record.timeline } };
    }
    const lookup = await this.deps.cases.lookup(reference.caseId);
    if ('missing' in lookup)
      return { refusal: lookup.missing === 'Restricted' ? { tag: 'CaseRestricted' } : { tag: 'CaseNotFound', cnr: null } };
    const record = await this.deps.records.byCaseId(lookup.found.caseId);
    if (!record) return { refusal: { tag: 'CaseNotFound', cnr: null } };
    return { target: { held: true, ...record, courtLevel: record.court.level, stored: record.timeline } };
  }

  async request(input: {
    reference: CaseReference;
    refresh: boolean;
    accountId: string;
    dailyCap: number;
    /** The server's id of this call (never a caller's): a live fetch's hold is tied to it. */
    callId: string;
  }): Promise<TimelineRequestOutcome> {
    const resolved = await this.resolve(input.reference);
    if ('refusal' in resolved) return { outcome: 'refused', refusal: resolved.refusal };
    const { target } = resolved;
    if (!input.refresh) {
      if (!target.held) return { outcome: 'refused', refusal: { tag: 'CaseNotFound', cnr: target.cnr } };
      const job = await this.deps.jobs.answerFromStore({
        subject: { caseId: target.caseId, cnr: target.cnr },
        accountId: input.accountId,
        timeline: target.stored,
      });
      return { outcome: 'answered', job, target };
    }
    const fetchable = liveFetchable(target);
    if ('refusal' in fetchable) return { outcome: 'refused', refusal: fetchable.refusal };
    if (!this.deps.livePortal) return { outcome: 'refused', refusal: { tag: 'LiveFetchNotConfigured' } };
    if (!this.deps.workflows.available) return { outcome: 'refused', refusal: LIVE_FETCH_ENGINE_DOWN };
    const { cnr } = fetchable;
    const admitted = await this.deps.jobs.admitLiveFetch({
      subject: { caseId: target.caseId, cnr },
      accountId: input.accountId,
      dailyCap: input.dailyCap,
      callId: input.callId,
    });
    if (!admitted.ok) return { outcome: 'refused', refusal: admitted.error };
    if ((await this.#start(admitted.requestId, { accountId: input.accountId, requestId: input.callId })) === 'released')
      return { outcome: 'refused', refusal: LIVE_FETCH_ENGINE_DOWN };
    return { outcome: 'admitted', requestId: admitted.requestId, held: admitted.held, balance: admitted.balance, target };
  }

  /** A job of `accountId` that has not expired; null otherwise, whether unknown, expired or another account's. */
  async job(requestId: string, accountId: string): Promise<TimelineJob | null> {
    const job = await this.deps.jobs.job(requestId);
    if (!job || job.accountId !== accountId) return null;
    return job.expiresAt.getTime() > this.deps.clock.now().getTime() ? job : null;
  }

  /**
   * Starts the fetch's workflow while the caller still waits. When the engine cannot start
   * it, the job is failed and its hold released at once and the caller told so; if that
   * cannot be written either, the job stays unstarted and the dispatcher starts or fails it.
   */
  async #start(requestId: string, caller: WorkflowCaller): Promise<'started' | 'released'> {
    try {
      await this.deps.workflows.startTimelineFetch(requestId, caller);
    } catch (error) {
      this.deps.onStartFailure(requestId, error);
      const ended = await this.deps.jobs.fail(requestId, 'UPSTREAM_UNAVAILABLE', ENGINE_DOWN_MESSAGE);
      // An ambiguous start may have run already: then the caller has a job to read.
      return ended === 'failed' ? 'released' : 'started';
    }
    await this.deps.jobs.markStarted(requestId);
    return 'started';
  }
}
