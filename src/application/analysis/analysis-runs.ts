/**
 * Commands on analysis runs, each in one transaction with its payment: admission (the
 * concurrency cap, the charges or reservation and the AnalysisRunAdmitted event commit
 * together or not at all), the record of a remote fetch, storing the result (settling what
 * the run held, and giving back a remote-fetch surcharge the run did not earn) and failing
 * (giving every credit of the run back). The ledger moves in the transaction that appends
 * the run's event, and the run's status decides whether it moves, so each is done once
 * however often an activity is retried (Temporal retries activities after a crash).
 */
import { sql } from 'kysely';
import { VersionConflictError, type EventStore } from '../../ports/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import {
  analysisStreamId,
  decideAnalysisRequest,
  evolveAnalysisRequest,
  initialAnalysisRequest,
  nextRunId,
  surchargeIdOf,
  type AnalysisRequestCommand,
  type AnalysisRequestError,
  type AnalysisRequestEvent,
  type AnalysisRequestState,
  type AnalysisSubject,
} from '../../domain/analysis-request/analysis-request.ts';
import { PRICES, type PricedRequest } from '../../domain/credits/prices.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Metrics, WorkflowOutcome } from '../../ports/metrics.ts';
import { handleCommand, type Aggregate } from '../command-handler.ts';
import type { CreditsService } from '../credits/credits-service.ts';
import { creditRefusal, type RefusalOf } from '../admission/decision.ts';
import type { Ticket, Tickets } from '../admission/tickets.ts';

export const ANALYSIS_STREAM_TYPE = 'analysis-request';

const aggregate: Aggregate<AnalysisRequestCommand, AnalysisRequestEvent, AnalysisRequestState, AnalysisRequestError> = {
  streamType: ANALYSIS_STREAM_TYPE,
  initial: initialAnalysisRequest,
  decide: decideAnalysisRequest,
  evolve: evolveAnalysisRequest,
};

export interface AdmitInput {
  readonly subject: AnalysisSubject;
  readonly accountId: string;
  readonly requestId: string;
  readonly price: number;
  /** Single runs are charged at admission; consolidated runs reserve and settle when stored. */
  readonly payment: { readonly kind: 'charge' } | { readonly kind: 'reserve'; readonly holdForMs: number };
  readonly allowRemoteFetch: boolean;
  /** The run fetches its document from the court's site: it is charged the surcharge too (single runs only). */
  readonly remoteFetchPlanned: boolean;
  /** Running runs the account may have; null: no cap. */
  readonly concurrencyCap: number | null;
}

export type AdmitRefusal = RefusalOf<'ConcurrencyLimit' | 'InsufficientCredits' | 'TierNotAllowed'>;

export type AdmitResult = { ok: true; runId: string; balance: number; charged: number } | { ok: false; error: AdmitRefusal };

export interface RunRow {
  readonly runId: string;
  readonly kind: 'single' | 'consolidated';
  readonly caseId: string;
  readonly caseNumberNormalised: string;
  readonly accountId: string;
  readonly status: 'running' | 'stored' | 'failed';
  readonly paymentId: string;
  readonly remoteFetchPlanned: boolean;
  readonly allowRemoteFetch: boolean;
  readonly remoteFetched: boolean;
  readonly workflowStarted: boolean;
  readonly admittedAt: Date;
}

const RUN_COLUMNS = [
  'runId',
  'kind',
  'caseId',
  'caseNumberNormalised',
  'accountId',
  'status',
  'paymentId',
  'remoteFetchPlanned',
  'allowRemoteFetch',
  'remoteFetched',
  'workflowStarted',
  'admittedAt',
] as const;

/** A command for a running run found it already ended. */
export class RunEndedError extends Error {
  override readonly name = 'RunEndedError';

  constructor(
    readonly runId: string,
    readonly status: 'stored' | 'failed',
  ) {
    super(`analysis run ${runId} already ${status}`);
  }
}

/**
 * A consolidated result covers a document restricted while the run analysed it: it is not
 * kept, and the activity's next attempt analyses the documents still open.
 */
export class CoversRestrictedError extends Error {
  override readonly name = 'CoversRestrictedError';

  constructor(
    readonly runId: string,
    readonly caseIds: readonly string[],
  ) {
    super(`analysis run ${runId} covers ${String(caseIds.length)} document(s) restricted since it read them`);
  }
}

/** Thrown inside an admission transaction to roll it back with the refusal. */
class Refused extends Error {
  constructor(readonly refusal: AdmitRefusal) {
    super(refusal.tag);
  }
}

const CONSOLIDATED: PricedRequest = { endpoint: 'analyzeConsolidated' };

/** A consolidated run's hold, as its row keeps it. */
const consolidatedTicket = (run: RunRow): Ticket => ({ account: run.accountId, reservationId: run.paymentId, request: CONSOLIDATED });

const subjectOf = (run: RunRow): AnalysisSubject => ({
  kind: run.kind,
  caseId: run.caseId,
  caseNumberNormalised: run.caseNumberNormalised,
});

export class AnalysisRuns {
  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly store: EventStore<Trx>;
      readonly credits: CreditsService;
      readonly tickets: Pick<Tickets, 'admit' | 'settle' | 'release'>;
      readonly clock: Clock;
      /** Where runs that end are counted, by kind and outcome; nothing is counted without one. */
      readonly metrics?: Pick<Metrics, 'workflowEnded'>;
    },
  ) {}

  async admit(input: AdmitInput): Promise<AdmitResult> {
    // A run admitted concurrently on the same subject conflicts on the stream version; once more decides on the fresh state.
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.deps.credits.transaction((trx) => this.#admit(trx, input));
      } catch (error) {
        if (error instanceof Refused) return { ok: false, error: error.refusal };
        if (attempt > 0 || !(error instanceof VersionConflictError)) throw error;
      }
    }
  }

  /**
   * The run a call admitted, if any: a retry that took over a call whose holder died answers
   * with that run, even once it has stored its analysis (not as a new call finding it cached).
   */
  async admittedBy(accountId: string, requestId: string, trx?: Trx): Promise<{ runId: string; price: number } | null> {
    const row = await (trx ?? this.deps.db)
      .selectFrom('analysisRuns')
      .select(['runId', 'price'])
      .where('accountId', '=', accountId)
      .where('requestId', '=', requestId)
      .executeTakeFirst();
    return row ?? null;
  }

  async #admit(trx: Trx, input: AdmitInput): Promise<AdmitResult> {
    // A retry that took over a call whose holder died finds the run that call admitted and paid for.
    const earlier = await this.admittedBy(input.accountId, input.requestId, trx);
    if (earlier) {
      const { balance } = await this.deps.credits.balance(input.accountId, trx);
      return { ok: true, runId: earlier.runId, balance, charged: input.payment.kind === 'charge' ? earlier.price : 0 };
    }
    if (input.concurrencyCap !== null) {
      // Serialises the account's admissions so two cannot both take the last slot.
      await sql`select pg_advisory_xact_lock(hashtext(${`analysis-admission:${input.accountId}`}))`.execute(trx);
      const running = await trx
        .selectFrom('analysisRuns')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('accountId', '=', input.accountId)
        .where('status', '=', 'running')
        .where('kind', '=', 'single')
        .executeTakeFirstOrThrow();
      if (Number(running.n) >= input.concurrencyCap) throw new Refused({ tag: 'ConcurrencyLimit', running: Number(running.n) });
    }
    const streamId = analysisStreamId(input.subject);
    const { events } = await this.deps.store.readStream(streamId, 1, trx);
    const state = events.reduce(
      (s, e) => evolveAnalysisRequest(s, { type: e.type, data: e.data } as AnalysisRequestEvent),
      initialAnalysisRequest,
    );
    const runId = nextRunId(input.subject, state);
    const { paymentId, surchargeId, price, balance } = await this.#pay(trx, input, runId);
    const decided = await handleCommand(
      this.deps.store,
      aggregate,
      streamId,
      {
        type: 'AdmitRun',
        subject: input.subject,
        accountId: input.accountId,
        paymentId,
        price,
        allowRemoteFetch: input.allowRemoteFetch,
        remoteFetchPlanned: input.remoteFetchPlanned,
        surchargeId,
        requestId: input.requestId,
        now: this.deps.clock.now().toISOString(),
      },
      { occurredAt: this.deps.clock.now().toISOString(), requestId: input.requestId },
      trx,
    );
    if (!decided.ok) throw new Error(`admission refused by the aggregate: ${decided.error.tag}`);
    return { ok: true, runId, balance, charged: input.payment.kind === 'charge' ? price : 0 };
  }

  /**
   * Pays for the run inside the admitting transaction. A single run is charged under its
   * run id (so it can reverse the charge when it fails) and, when it plans a remote fetch,
   * charged the surcharge apart under `surchargeIdOf(runId)`: the ledger reverses only
   * whole charges, and a run that finds its document already stored gives the surcharge
   * alone back. Both charges name the admitting request, so that request's audited
   * creditsDeducted is their sum (finance reconcile compares a success gross). A
   * consolidated run reserves its price.
   */
  async #pay(
    trx: Trx,
    input: AdmitInput,
    runId: string,
  ): Promise<{ paymentId: string; surchargeId: string | null; price: number; balance: number }> {
    const { credits, tickets } = this.deps;
    if (input.payment.kind === 'reserve') {
      const call = { account: input.accountId, callId: input.requestId, request: CONSOLIDATED, holdForMs: input.payment.holdForMs };
      const held = await tickets.admit(call, trx);
      if (!held.ok) throw new Refused(held.refusal);
      return { paymentId: held.ticket.reservationId, surchargeId: null, price: input.price, balance: held.balance };
    }
    const charged = await credits.chargeNow(input.accountId, input.price, input.requestId, trx, runId);
    if (!charged.ok) throw new Refused(creditRefusal(charged.error, `the charge of ${runId}`));
    if (!input.remoteFetchPlanned) return { paymentId: runId, surchargeId: null, price: input.price, balance: charged.value.balance };
    const surchargeId = surchargeIdOf(runId);
    const surcharge = await credits.chargeNow(input.accountId, PRICES.analyze.remoteFetch, input.requestId, trx, surchargeId);
    if (!surcharge.ok) {
      // The refusal states the whole price against the balance before the run's charge, which rolls back with it.
      const short = creditRefusal(surcharge.error, `the surcharge of ${runId}`);
      throw new Refused({ ...short, required: short.required + input.price, balance: short.balance + input.price });
    }
    return { paymentId: runId, surchargeId, price: input.price + PRICES.analyze.remoteFetch, balance: surcharge.value.balance };
  }

  async run(runId: string): Promise<RunRow | null> {
    const row = await this.deps.db.selectFrom('analysisRuns').select(RUN_COLUMNS).where('runId', '=', runId).executeTakeFirst();
    return (row as RunRow | undefined) ?? null;
  }

  /** Records the fetch of a run's document (paid at admission; a run that stores without this record gives the surcharge back). */
  async recordRemoteFetch(runId: string, fetched: { url: string; bytes: number }): Promise<void> {
    await this.#onRun(runId, async (trx, run) => {
      await this.#decide(trx, run, { type: 'RecordRemoteFetch', runId, ...fetched, now: this.#now() });
    });
  }

  /**
   * Keeps the result; a consolidated run's reservation is settled at its price, and a
   * single run that fetched nothing gives its remote-fetch surcharge back. A run that
   * already failed was refunded: its result is not kept (RunEndedError), so nobody gets a
   * result they were given their credits back for. Nor is a consolidated result covering a
   * document restricted meanwhile (CoversRestrictedError).
   */
  async store(runId: string, result: { model: string; caseIds: string[]; analysis: unknown }): Promise<void> {
    const stored = await this.#onRun(runId, async (trx, run) => {
      if (run.status === 'stored') return null;
      if (run.status === 'failed') throw new RunEndedError(runId, run.status);
      if (run.kind === 'consolidated') {
        const restricted = await this.#restrictedAmong(trx, result.caseIds);
        if (restricted.length > 0) throw new CoversRestrictedError(runId, restricted);
        await this.deps.tickets.settle(consolidatedTicket(run), { endpoint: 'analyzeConsolidated', cacheHit: false }, trx);
      }
      const events = await this.#decide(trx, run, { type: 'StoreAnalysis', runId, ...result, now: this.#now() });
      await this.#returnSurcharges(trx, run, events, `analysis run ${runId} found its document stored and fetched nothing`);
      return run;
    });
    if (stored) this.#ended(stored, 'completed');
  }

  /** Counted after the commit, and only by the call that ended the run: a repeated store or fail is not an outcome. */
  #ended(run: RunRow, outcome: WorkflowOutcome): void {
    this.deps.metrics?.workflowEnded(run.kind === 'single' ? 'analysis' : 'consolidated', outcome);
  }

  /**
   * The documents among `caseIds` that are restricted, read under a share lock on their
   * rows: a restriction (which locks the row to set the flag) committing meanwhile either
   * waits for this transaction or is seen by it, so no stored result covers a document
   * restricted before the store committed.
   */
  async #restrictedAmong(trx: Trx, caseIds: readonly string[]): Promise<string[]> {
    const rows = await trx
      .selectFrom('cases')
      .select(['caseId', 'restricted'])
      .where('caseId', 'in', caseIds)
      .orderBy('caseId')
      .forShare()
      .execute();
    return rows.filter((r) => r.restricted).map((r) => r.caseId);
  }

  /**
   * Gives back what a stored consolidated run was charged when its analysis is withheld
   * before its caller saw it (a document it covers was restricted just after it stored):
   * the caller keeps nothing for an answer they did not get. A second call records nothing.
   */
  async refundWithheld(runId: string): Promise<void> {
    await this.#onRun(runId, async (trx, run) => {
      const reversed = await this.deps.credits.reverse(
        run.accountId,
        run.paymentId,
        `consolidated analysis ${runId} withheld: a document it covers was restricted`,
        trx,
      );
      if (!reversed.ok) throw new Error(`refunding ${runId}: ${reversed.error.tag}`);
    });
  }

  /**
   * Ends a run without a result and gives back everything it was charged or held. A run
   * that already ended stays as it ended (a stored run keeps its result and its charge);
   * the answer is how the run ended, so a caller never reports a delivered result as failed.
   */
  async fail(runId: string, reason: string): Promise<'failed' | 'stored'> {
    const ended = await this.#onRun(runId, async (trx, run) => {
      if (run.status !== 'running') return { status: run.status, failedHere: null };
      if (run.kind === 'single') {
        const reversed = await this.deps.credits.reverse(run.accountId, run.paymentId, `analysis run ${runId} failed`, trx);
        if (!reversed.ok) throw new Error(`refunding ${runId}: ${reversed.error.tag}`);
      } else await this.deps.tickets.release(consolidatedTicket(run), trx);
      const events = await this.#decide(trx, run, { type: 'FailRun', runId, reason, now: this.#now() });
      await this.#returnSurcharges(trx, run, events, `analysis run ${runId} failed`);
      return { status: 'failed' as const, failedHere: run };
    });
    if (ended.failedHere) this.#ended(ended.failedHere, 'failed');
    return ended.status;
  }

  /** Reverses in the ledger each surcharge the run's decision returned. */
  async #returnSurcharges(trx: Trx, run: RunRow, events: readonly AnalysisRequestEvent[], reason: string): Promise<void> {
    for (const event of events) {
      if (event.type !== 'RemoteFetchSurchargeReturned') continue;
      const reversed = await this.deps.credits.reverse(run.accountId, event.data.chargeId, reason, trx);
      if (!reversed.ok) throw new Error(`returning the surcharge of ${run.runId}: ${reversed.error.tag}`);
    }
  }

  /** Runs whose admission committed but whose workflow was not seen to start (the outbox). */
  unstarted(admittedBefore: Date): Promise<RunRow[]> {
    return this.#running(false, admittedBefore);
  }

  /** Runs whose workflow started and that are still running (for the watchdog that ends orphans). */
  startedAndRunning(admittedBefore: Date): Promise<RunRow[]> {
    return this.#running(true, admittedBefore);
  }

  async #running(started: boolean, admittedBefore: Date): Promise<RunRow[]> {
    const rows = await this.deps.db
      .selectFrom('analysisRuns')
      .select(RUN_COLUMNS)
      .where('workflowStarted', '=', started)
      .where('status', '=', 'running')
      .where('admittedAt', '<', admittedBefore)
      .orderBy('admittedAt')
      .limit(100)
      .execute();
    return rows as RunRow[];
  }

  async markStarted(runId: string): Promise<void> {
    await this.deps.db.updateTable('analysisRuns').set({ workflowStarted: true }).where('runId', '=', runId).execute();
  }

  async #onRun<T>(runId: string, work: (trx: Trx, run: RunRow) => Promise<T>): Promise<T> {
    return this.deps.credits.transaction(async (trx) => {
      const row = await trx.selectFrom('analysisRuns').select('runId').where('runId', '=', runId).forUpdate().executeTakeFirst();
      if (!row) throw new Error(`no analysis run ${runId}`);
      const run = await this.#runIn(trx, runId);
      return work(trx, run);
    });
  }

  async #runIn(trx: Trx, runId: string): Promise<RunRow> {
    const row = await trx.selectFrom('analysisRuns').select(RUN_COLUMNS).where('runId', '=', runId).executeTakeFirstOrThrow();
    return row as RunRow;
  }

  /** Decides and appends the command on the run's stream; the events it recorded (none when it changed nothing). */
  async #decide(trx: Trx, run: RunRow, command: AnalysisRequestCommand): Promise<AnalysisRequestEvent[]> {
    const decided = await handleCommand(
      this.deps.store,
      aggregate,
      analysisStreamId(subjectOf(run)),
      command,
      { occurredAt: this.#now() },
      trx,
    );
    if (!decided.ok) throw new Error(`${command.type} on ${run.runId}: ${decided.error.tag}`);
    return decided.events;
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }
}
