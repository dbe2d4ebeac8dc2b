/**
 * Commands on timeline jobs, each in one transaction with its payment: answering from the
 * store (free), admitting a live fetch (the daily cap, the reservation and the
 * TimelineRequested event commit together or not at all), starting it (the reservation is
 * settled: the charge), completing it, and failing it (the charge reversed, or the
 * reservation released if the fetch never started). Workflow activities call the last
 * three; each is safe to repeat, because Temporal retries activities after a crash.
 */
import { sql } from 'kysely';
import type { EventStore } from '../../ports/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import { worstCase, type PricedRequest } from '../../domain/credits/prices.ts';
import type { CaseTimeline } from '../../domain/timeline/case-timeline.ts';
import {
  decideTimelineRequest,
  evolveTimelineRequest,
  initialTimelineRequest,
  timelineRequestStreamId,
  type TimelineFailureCode,
  type TimelineJobStatus,
  type TimelineRequestCommand,
  type TimelineRequestError,
  type TimelineRequestEvent,
  type TimelineRequestState,
  type TimelineSubject,
} from '../../domain/timeline-request/timeline-request.ts';
import type { Clock, IdGenerator } from '../../ports/clock.ts';
import type { Metrics } from '../../ports/metrics.ts';
import { handleCommand, type Aggregate } from '../command-handler.ts';
import type { CreditsService } from '../credits/credits-service.ts';
import type { RefusalOf } from '../admission/decision.ts';
import type { Ticket, Tickets } from '../admission/tickets.ts';

export const TIMELINE_STREAM_TYPE = 'timeline-request';

const DAY_MS = 86_400_000;

const LIVE_FETCH: PricedRequest = { endpoint: 'requestTimeline' };

const aggregate: Aggregate<TimelineRequestCommand, TimelineRequestEvent, TimelineRequestState, TimelineRequestError> = {
  streamType: TIMELINE_STREAM_TYPE,
  initial: initialTimelineRequest,
  decide: decideTimelineRequest,
  evolve: evolveTimelineRequest,
};

export interface TimelineJob {
  readonly requestId: string;
  readonly accountId: string;
  readonly caseId: string;
  readonly cnr: string | null;
  readonly refresh: boolean;
  readonly status: TimelineJobStatus;
  readonly reservationId: string | null;
  readonly liveFetched: boolean;
  readonly workflowStarted: boolean;
  readonly timeline: CaseTimeline | null;
  readonly errorCode: TimelineFailureCode | null;
  readonly errorMessage: string | null;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
  readonly expiresAt: Date;
}

const JOB_COLUMNS = [
  'requestId',
  'accountId',
  'caseId',
  'cnr',
  'refresh',
  'status',
  'reservationId',
  'liveFetched',
  'workflowStarted',
  'timeline',
  'errorCode',
  'errorMessage',
  'createdAt',
  'finishedAt',
  'expiresAt',
] as const;

export type AdmitRefusal = RefusalOf<'DailyLimit' | 'InsufficientCredits' | 'TierNotAllowed'>;

/** `held`: what the live fetch holds now and is charged when it starts. */
export type AdmitResult = { ok: true; requestId: string; held: number; balance: number } | { ok: false; error: AdmitRefusal };

/** Where a job's payment stands: nothing (from the store), held, charged, or given back. */
export function jobCharge(job: Pick<TimelineJob, 'refresh' | 'status' | 'liveFetched'>): {
  credits: number;
  state: 'none' | 'reserved' | 'charged' | 'released' | 'reversed';
} {
  if (!job.refresh) return { credits: 0, state: 'none' };
  if (job.status === 'failed') return { credits: 0, state: job.liveFetched ? 'reversed' : 'released' };
  return { credits: worstCase(LIVE_FETCH), state: job.liveFetched ? 'charged' : 'reserved' };
}

/** Thrown inside an admission transaction to roll it back with the refusal. */
class Refused extends Error {
  constructor(readonly refusal: AdmitRefusal) {
    super(refusal.tag);
  }
}

export class TimelineJobs {
  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly store: EventStore<Trx>;
      readonly credits: CreditsService;
      readonly tickets: Pick<Tickets, 'admit' | 'settle'>;
      readonly clock: Clock;
      readonly ids: IdGenerator;
      /** How long a fetch's hold may stay open: past the watchdog's bound, which fails the job (releasing it) first. */
      readonly holdForMs: number;
      /** Where live fetches that end are counted by outcome; nothing is counted without one. */
      readonly metrics?: Pick<Metrics, 'workflowEnded'>;
    },
  ) {}

  /** A job answered at once from the record we hold: completed, free. */
  async answerFromStore(input: { subject: TimelineSubject; accountId: string; timeline: CaseTimeline | null }): Promise<TimelineJob> {
    const requestId = this.#newRequestId();
    await this.deps.db.transaction().execute((trx) =>
      this.#decide(trx, requestId, {
        type: 'AnswerFromStore',
        requestId,
        accountId: input.accountId,
        subject: input.subject,
        timeline: input.timeline,
        now: this.#now(),
      }),
    );
    const job = await this.job(requestId);
    if (!job) throw new Error(`timeline job ${requestId} vanished after it was answered`);
    return job;
  }

  /** Admits a live fetch: within the account's daily cap, with its price reserved. `dailyCap` counts fetches started today (UTC). */
  async admitLiveFetch(input: {
    subject: TimelineSubject & { readonly cnr: string };
    accountId: string;
    dailyCap: number;
    /** The server's id of the call admitting it: the hold's request reference, joined to its audit row. */
    callId: string;
  }): Promise<AdmitResult> {
    const requestId = this.#newRequestId();
    try {
      return await this.deps.credits.transaction(async (trx) => {
        // Serialises the account's admissions so two cannot both take the last slot of the day.
        await sql`select pg_advisory_xact_lock(hashtext(${`timeline-live-fetch:${input.accountId}`}))`.execute(trx);
        const now = this.deps.clock.now();
        const dayStart = new Date(Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`));
        const used = await this.#liveFetchesSince(trx, input.accountId, dayStart);
        if (used >= input.dailyCap) {
          const resetAt = new Date(dayStart.getTime() + DAY_MS);
          const retryAfterSeconds = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
          throw new Refused({ tag: 'DailyLimit', used, cap: input.dailyCap, retryAfterSeconds, resetAt });
        }
        const call = { account: input.accountId, callId: input.callId, request: LIVE_FETCH, holdForMs: this.deps.holdForMs };
        const held = await this.deps.tickets.admit(call, trx);
        if (!held.ok) throw new Refused(held.refusal);
        await this.#decide(trx, requestId, {
          type: 'AdmitLiveFetch',
          requestId,
          accountId: input.accountId,
          subject: input.subject,
          reservationId: held.ticket.reservationId,
          price: worstCase(LIVE_FETCH),
          now: this.#now(),
        });
        return { ok: true as const, requestId, held: worstCase(LIVE_FETCH), balance: held.balance };
      });
    } catch (error) {
      if (error instanceof Refused) return { ok: false, error: error.refusal };
      throw error;
    }
  }

  /**
   * Live fetches that count against the day: admitted today and not failed before they
   * started (a fetch that started asked the portal, whatever came of it).
   */
  async #liveFetchesSince(trx: Trx, accountId: string, since: Date): Promise<number> {
    const row = await trx
      .selectFrom('timelineRequests')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('accountId', '=', accountId)
      .where('refresh', '=', true)
      .where('createdAt', '>=', since)
      .where((eb) => eb.or([eb('status', '!=', 'failed'), eb('liveFetched', '=', true)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async job(requestId: string): Promise<TimelineJob | null> {
    const row = await this.deps.db.selectFrom('timelineRequests').select(JOB_COLUMNS).where('requestId', '=', requestId).executeTakeFirst();
    return (row as TimelineJob | undefined) ?? null;
  }

  /** The live fetch starts: its reservation is settled at the full price (the charge). */
  async startLiveFetch(requestId: string): Promise<void> {
    await this.#onJob(requestId, async (trx, job) => {
      if (job.liveFetched) return;
      if (job.reservationId === null) throw new Error(`timeline job ${requestId} is not a live fetch`);
      // Decided first: a job that already ended refuses, before anything is settled.
      await this.#decide(trx, requestId, { type: 'StartLiveFetch', requestId, now: this.#now() });
      const ticket: Ticket = { account: job.accountId, reservationId: job.reservationId, request: LIVE_FETCH };
      await this.deps.tickets.settle(ticket, { endpoint: 'requestTimeline', liveFetchStarted: true }, trx);
    });
  }

  async complete(requestId: string, result: { timeline: CaseTimeline; documentsStored: number }): Promise<void> {
    await this.#onJob(requestId, async (trx) => {
      await this.#decide(trx, requestId, { type: 'CompleteLiveFetch', requestId, ...result, now: this.#now() });
    });
    // A job that had already ended is refused above (it throws), so each fetch counts once.
    this.deps.metrics?.workflowEnded('timeline', 'completed');
  }

  /**
   * Ends a live fetch without a timeline and gives its payment back. A job that already
   * ended stays as it ended (a completed fetch keeps its charge); the answer is how it ended.
   */
  async fail(requestId: string, code: TimelineFailureCode, message: string): Promise<TimelineJobStatus> {
    const ended = await this.#onJob(requestId, async (trx, job) => {
      if (job.status !== 'running') return { status: job.status, endedHere: false };
      await this.#decide(trx, requestId, { type: 'FailLiveFetch', requestId, code, message, now: this.#now() });
      if (job.reservationId !== null) {
        const { credits } = this.deps;
        const back = job.liveFetched
          ? await credits.reverse(job.accountId, job.reservationId, `live timeline fetch ${requestId} failed`, trx)
          : await credits.release(job.accountId, job.reservationId, trx);
        if (!back.ok) throw new Error(`refunding the live fetch of ${requestId}: ${back.error.tag}`);
      }
      return { status: 'failed' as const, endedHere: true };
    });
    if (ended.endedHere) this.deps.metrics?.workflowEnded('timeline', 'failed');
    return ended.status;
  }

  /** Live fetches whose admission committed but whose workflow was not seen to start (the outbox). */
  unstarted(requestedBefore: Date): Promise<{ requestId: string; accountId: string; createdAt: Date }[]> {
    return this.#running(false, requestedBefore);
  }

  /** Live fetches whose workflow started and that are still running (for the watchdog that ends orphans). */
  startedAndRunning(requestedBefore: Date): Promise<{ requestId: string; accountId: string; createdAt: Date }[]> {
    return this.#running(true, requestedBefore);
  }

  #running(started: boolean, requestedBefore: Date): Promise<{ requestId: string; accountId: string; createdAt: Date }[]> {
    return this.deps.db
      .selectFrom('timelineRequests')
      .select(['requestId', 'accountId', 'createdAt'])
      .where('workflowStarted', '=', started)
      .where('refresh', '=', true)
      .where('status', '=', 'running')
      .where('createdAt', '<', requestedBefore)
      .orderBy('createdAt')
      .limit(100)
      .execute();
  }

  async markStarted(requestId: string): Promise<void> {
    await this.deps.db.updateTable('timelineRequests').set({ workflowStarted: true }).where('requestId', '=', requestId).execute();
  }

  async #onJob<T>(requestId: string, work: (trx: Trx, job: TimelineJob) => Promise<T>): Promise<T> {
    return this.deps.credits.transaction(async (trx) => {
      const row = await trx
        .selectFrom('timelineRequests')
        .select(JOB_COLUMNS)
        .where('requestId', '=', requestId)
        .forUpdate()
        .executeTakeFirst();
      if (!row) throw new Error(`no timeline job ${requestId}`);
      return work(trx, row as TimelineJob);
    });
  }

  async #decide(trx: Trx, requestId: string, command: TimelineRequestCommand): Promise<void> {
    const at = this.#now();
    const decided = await handleCommand(this.deps.store, aggregate, timelineRequestStreamId(requestId), command, { occurredAt: at }, trx);
    if (!decided.ok) throw new TimelineJobRefused(decided.error);
  }

  #newRequestId(): string {
    return `tlr_${this.deps.ids.next()}`;
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** The aggregate refused a command: e.g. completing a job that already failed. */
export class TimelineJobRefused extends Error {
  override readonly name = 'TimelineJobRefused';

  constructor(readonly refusal: TimelineRequestError) {
    super(`timeline job ${refusal.requestId}: ${refusal.tag}`);
  }
}
