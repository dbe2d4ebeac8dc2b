/**
 * Commands on analysis runs, each in one transaction with its payment: admission (the
 * concurrency cap, the charge or reservation and the AnalysisRunAdmitted event commit
 * together or not at all), the remote-fetch surcharge, storing the result (settling what
 * the run held) and failing (giving every credit of the run back). Workflow activities call
 * these; each is safe to repeat, because Temporal retries activities after a crash.
 */
import { sql } from 'kysely';
import type { PostgresEventStore } from '../../adapters/postgres/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import {
  analysisStreamId,
  decideAnalysisRequest,
  evolveAnalysisRequest,
  initialAnalysisRequest,
  nextRunId,
  type AnalysisRequestCommand,
  type AnalysisRequestError,
  type AnalysisRequestEvent,
  type AnalysisRequestState,
  type AnalysisSubject,
} from '../../domain/analysis-request/analysis-request.ts';
import { PRICES } from '../../domain/credits/prices.ts';
import type { Clock } from '../../ports/clock.ts';
import { VersionConflictError } from '../../ports/event-store.ts';
import { handleCommand, type Aggregate } from '../command-handler.ts';
import type { CreditsService } from '../credits/credits-service.ts';

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
  /** The run fetches its document from the court's site: its price includes the surcharge. */
  readonly remoteFetchPlanned: boolean;
  /** Running runs the account may have; null: no cap. */
  readonly concurrencyCap: number | null;
}

export type AdmitRefusal = { tag: 'ConcurrencyLimit'; running: number } | { tag: 'InsufficientCredits'; required: number; balance: number };

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

/** Thrown inside an admission transaction to roll it back with the refusal. */
class Refused extends Error {
  constructor(readonly refusal: AdmitRefusal) {
    super(refusal.tag);
  }
}

const subjectOf = (run: RunRow): AnalysisSubject => ({
  kind: run.kind,
  caseId: run.caseId,
  caseNumberNormalised: run.caseNumberNormalised,
});

export class AnalysisRuns {
  constructor(
    private readonly deps: { readonly db: Db; readonly store: PostgresEventStore; readonly credits: CreditsService; readonly clock: Clock },
  ) {}

  async admit(input: AdmitInput): Promise<AdmitResult> {
    // A run admitted concurrently on the same subject conflicts on the stream version; once more decides on the fresh state.
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.deps.db.transaction().execute((trx) => this.#admit(trx, input));
      } catch (error) {
        if (error instanceof Refused) return { ok: false, error: error.refusal };
        if (attempt > 0 || !(error instanceof VersionConflictError)) throw error;
      }
    }
  }

  async #admit(trx: Trx, input: AdmitInput): Promise<AdmitResult> {
    const { credits } = this.deps;
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

    const price = input.price + (input.remoteFetchPlanned ? PRICES.analyze.remoteFetch : 0);
    // The charge is the run's (it reverses it on failure); its request reference is the call that was charged.
    const paid =
      input.payment.kind === 'charge'
        ? await credits.chargeNow(input.accountId, price, input.requestId, trx, runId)
        : await credits.reserve(input.accountId, price, input.requestId, input.payment.holdForMs, trx);
    if (!paid.ok) throw this.#refusal(paid.error);
    const paymentId = 'reservationId' in paid.value ? paid.value.reservationId : paid.value.chargeId;
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
        requestId: input.requestId,
        now: this.deps.clock.now().toISOString(),
      },
      { occurredAt: this.deps.clock.now().toISOString(), requestId: input.requestId },
      trx,
    );
    if (!decided.ok) throw new Error(`admission refused by the aggregate: ${decided.error.tag}`);
    return { ok: true, runId, balance: paid.value.balance, charged: input.payment.kind === 'charge' ? price : 0 };
  }

  #refusal(error: { tag: string; required?: number; balance?: number }): Refused {
    if (error.tag === 'InsufficientCredits' && error.required !== undefined && error.balance !== undefined) {
      return new Refused({ tag: 'InsufficientCredits', required: error.required, balance: error.balance });
    }
    throw new Error(`payment refused: ${error.tag}`);
  }

  async run(runId: string): Promise<RunRow | null> {
    const row = await this.deps.db.selectFrom('analysisRuns').select(RUN_COLUMNS).where('runId', '=', runId).executeTakeFirst();
    return (row as RunRow | undefined) ?? null;
  }

  /** Records the fetch of a run's document (already paid at admission). */
  async recordRemoteFetch(runId: string, fetched: { url: string; bytes: number }): Promise<void> {
    await this.#onRun(runId, (trx, run) => this.#decide(trx, run, { type: 'RecordRemoteFetch', runId, ...fetched, now: this.#now() }));
  }

  /**
   * Keeps the result; a consolidated run's reservation is settled at its price. A run that
   * already failed was refunded: its result is not kept (RunEndedError), so nobody gets a
   * result they were given their credits back for.
   */
  async store(runId: string, result: { model: string; caseIds: string[]; analysis: unknown }): Promise<void> {
    await this.#onRun(runId, async (trx, run) => {
      if (run.status === 'stored') return;
      if (run.status === 'failed') throw new RunEndedError(runId, run.status);
      const { credits } = this.deps;
      if (run.kind === 'consolidated') {
        const settled = await credits.settle(run.accountId, run.paymentId, PRICES.analyzeConsolidated.credits, trx);
        if (!settled.ok) throw new Error(`settling ${runId}: ${settled.error.tag}`);
      }
      await this.#decide(trx, run, { type: 'StoreAnalysis', runId, ...result, now: this.#now() });
    });
  }

  /**
   * Ends a run without a result and gives back everything it was charged or held. A run
   * that already ended stays as it ended (a stored run keeps its result and its charge);
   * the answer is how the run ended, so a caller never reports a delivered result as failed.
   */
  async fail(runId: string, reason: string): Promise<'failed' | 'stored'> {
    let ended: 'failed' | 'stored' = 'failed';
    await this.#onRun(runId, async (trx, run) => {
      if (run.status !== 'running') {
        ended = run.status;
        return;
      }
      const { credits } = this.deps;
      const reversed =
        run.kind === 'single'
          ? await credits.reverse(run.accountId, run.paymentId, `analysis run ${runId} failed`, trx)
          : await credits.release(run.accountId, run.paymentId, trx);
      if (!reversed.ok) throw new Error(`refunding ${runId}: ${reversed.error.tag}`);
      await this.#decide(trx, run, { type: 'FailRun', runId, reason, now: this.#now() });
    });
    return ended;
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

  async #onRun(runId: string, work: (trx: Trx, run: RunRow) => Promise<void>): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('analysisRuns').select('runId').where('runId', '=', runId).forUpdate().executeTakeFirst();
      if (!row) throw new Error(`no analysis run ${runId}`);
      const run = await this.#runIn(trx, runId);
      await work(trx, run);
    });
  }

  async #runIn(trx: Trx, runId: string): Promise<RunRow> {
    const row = await trx.selectFrom('analysisRuns').select(RUN_COLUMNS).where('runId', '=', runId).executeTakeFirstOrThrow();
    return row as RunRow;
  }

  async #decide(trx: Trx, run: RunRow, command: AnalysisRequestCommand): Promise<void> {
    const decided = await handleCommand(
      this.deps.store,
      aggregate,
      analysisStreamId(subjectOf(run)),
      command,
      { occurredAt: this.#now() },
      trx,
    );
    if (!decided.ok) throw new Error(`${command.type} on ${run.runId}: ${decided.error.tag}`);
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }
}
