/**
 * What POST /cases/:id/analyze, POST /cases/:id/analyze-consolidated and GET
 * /cases/:id/analysis ask of the application: the stored analyses, the up-front checks
 * (readable source, remote-fetch allowlist), the cache-hit charge, admission and the start
 * of the run's workflow. A workflow the engine cannot start is refused to the caller with
 * the run failed and refunded; a start lost to a crash is recovered by the dispatcher
 * (see run-dispatcher.ts).
 *
 * A restricted case is returned by no endpoint, and a consolidated analysis is made of its
 * documents' content: one that covers a document restricted since it was stored is never
 * served, not even to a caller asking through an open sibling. It counts as none stored,
 * so the call runs the model again over the documents still open (at the full price: the
 * caller gets a new analysis, not the stored one) and the new result replaces it.
 */
import type { Db } from '../../db/database.ts';
import type { Tier } from '../../domain/access/tiers.ts';
import { isAnalysable } from '../../domain/analysis/paragraphs.ts';
import { documentUrl, hostAllowed } from '../../domain/analysis-request/remote-fetch-policy.ts';
import type { AnalysisSubject, RunStatus } from '../../domain/analysis-request/analysis-request.ts';
import { customerFailure, failureReason, type AnalysisFailureCode } from '../../domain/analysis-request/failure.ts';
import { finalPrice, PRICES } from '../../domain/credits/prices.ts';
import type { AnalysisWorkflows, ConsolidatedStart, RunEnded, WorkflowCaller } from '../../ports/analysis-workflows.ts';
import { judgmentKey, type DocumentStorage } from '../../ports/document-storage.ts';
import { creditRefusal, entitlement, type InsufficientCredits, type RefusalOf } from '../admission/decision.ts';
import type { CaseReader, CaseView } from '../cases/case-reader.ts';
import { callChargeId, type CreditsService } from '../credits/credits-service.ts';
import type { AdmitRefusal, AnalysisRuns } from './analysis-runs.ts';

export interface StoredAnalysis {
  readonly runId: string;
  readonly model: string;
  readonly analysis: unknown;
  readonly storedAt: Date;
  /** The documents it covers (one for a single-document analysis). */
  readonly caseIds: readonly string[];
}

/** How a case can be read for analysis; `remote` carries the court URL a fetch would use. */
export type SourcePlan = { kind: 'text' } | { kind: 'document' } | { kind: 'remote'; url: string } | { kind: 'none'; courtLevel: string };

/** Refusals decided before admission: nothing to read, or no workflow engine to run on. */
export type NotAdmitted = RefusalOf<'NoReadableSource' | 'WorkflowsUnavailable'>;

const ENGINE_DOWN = { tag: 'WorkflowsUnavailable', work: 'analysis run' } as const;

/** A stored analysis answered again, at the domain's cache-hit price. */
type CacheHit =
  { outcome: 'cache-hit'; stored: StoredAnalysis; charged: number; balance: number } | { outcome: 'refused'; refusal: InsufficientCredits };

export type SingleRequest =
  | { outcome: 'cache-hit'; stored: StoredAnalysis; charged: number; balance: number }
  | { outcome: 'admitted'; runId: string; balance: number; charged: number; remoteFetch: boolean }
  | {
      outcome: 'refused';
      refusal: AdmitRefusal | NotAdmitted | RefusalOf<'RemoteFetchNotAllowed' | 'TierNotAllowed'>;
    };

export type ConsolidatedRequest =
  | { outcome: 'cache-hit'; stored: StoredAnalysis; charged: number; balance: number }
  | { outcome: 'stored'; stored: StoredAnalysis; charged: number }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'refused'; refusal: AdmitRefusal | NotAdmitted };

export interface AnalysisRequestsDeps {
  readonly db: Db;
  readonly cases: CaseReader;
  readonly runs: AnalysisRuns;
  readonly credits: CreditsService;
  readonly documents: DocumentStorage;
  readonly workflows: AnalysisWorkflows;
  readonly remoteFetchAllowlist: readonly string[];
  readonly scDocumentsBaseUrl: string;
  readonly consolidatedDeadlineSeconds: number;
  /** A workflow start that failed after its run was admitted; the dispatcher retries it. */
  readonly onStartFailure: (runId: string, error: unknown) => void;
}

/** How long past its deadline a consolidated run's hold stays: longer than the watchdog's slack (run-dispatcher.ts). */
const CONSOLIDATED_HOLD_SLACK_MS = 15 * 60_000;

export class AnalysisRequests {
  constructor(private readonly deps: AnalysisRequestsDeps) {}

  async stored(caseId: string): Promise<StoredAnalysis | null> {
    const row = await this.deps.db
      .selectFrom('caseAnalyses')
      .select(['runId', 'model', 'analysis', 'storedAt'])
      .where('caseId', '=', caseId)
      .executeTakeFirst();
    return row ? { ...row, caseIds: [caseId] } : null;
  }

  /** The stored consolidated analysis of a case number, or null: none stored, or it covers a restricted document (see the header). */
  async storedConsolidated(caseNumberNormalised: string): Promise<StoredAnalysis | null> {
    const row = await this.deps.db
      .selectFrom('consolidatedAnalyses')
      .select(['runId', 'model', 'analysis', 'storedAt', 'caseIds'])
      .where('caseNumberNormalised', '=', caseNumberNormalised)
      .executeTakeFirst();
    if (!row) return null;
    const caseIds = row.caseIds as string[];
    const restricted = await this.deps.db
      .selectFrom('cases')
      .select('caseId')
      .where('caseId', 'in', caseIds)
      .where('restricted', '=', true)
      .executeTakeFirst();
    return restricted ? null : { ...row, caseIds };
  }

  /**
   * The caller's latest run on a case, for GET /cases/:id/analysis to report progress or
   * failure: a failure as its documented code and message, never the recorded reason.
   */
  async latestRun(
    caseId: string,
    accountId: string,
  ): Promise<{ runId: string; status: RunStatus; failure: { code: AnalysisFailureCode; message: string } | null } | null> {
    const row = await this.deps.db
      .selectFrom('analysisRuns')
      .select(['runId', 'status', 'failure'])
      .where('caseId', '=', caseId)
      .where('accountId', '=', accountId)
      .where('kind', '=', 'single')
      .orderBy('admittedAt', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    return { runId: row.runId, status: row.status as RunStatus, failure: row.failure === null ? null : customerFailure(row.failure) };
  }

  async sourcePlan(view: CaseView): Promise<SourcePlan> {
    if (view.text !== null && isAnalysable(view.text)) return { kind: 'text' };
    if (await this.deps.documents.exists(judgmentKey(view.caseId))) return { kind: 'document' };
    const source = await this.deps.cases.sourceOf(view.caseId);
    const path = view.court.level === 'supreme' ? source?.documentLinks[0] : undefined;
    return path ? { kind: 'remote', url: documentUrl(this.deps.scDocumentsBaseUrl, path) } : { kind: 'none', courtLevel: view.court.level };
  }

  async requestSingle(input: {
    readonly view: CaseView;
    readonly accountId: string;
    readonly requestId: string;
    readonly force: boolean;
    readonly allowRemoteFetch: boolean;
    readonly concurrencyCap: number;
    readonly tier: Tier;
  }): Promise<SingleRequest> {
    const { view } = input;
    const plan = await this.sourcePlan(view);
    if (plan.kind === 'remote' && input.allowRemoteFetch && !hostAllowed(plan.url, this.deps.remoteFetchAllowlist)) {
      return { outcome: 'refused', refusal: { tag: 'RemoteFetchNotAllowed', host: new URL(plan.url).host } };
    }
    // The spec puts the remote-fetch allowlist check before the tier and the balance.
    const denied = entitlement(input.tier, 'aiAnalysis');
    if (denied) return { outcome: 'refused', refusal: denied };
    // A call taken over after its holder died answers with the run it admitted, whatever that run has stored since.
    const takenOver = (await this.deps.runs.admittedBy(input.accountId, input.requestId)) !== null;
    const stored = input.force || takenOver ? null : await this.stored(view.caseId);
    if (stored)
      return this.#cacheHit(
        stored,
        input.accountId,
        input.requestId,
        finalPrice({ endpoint: 'analyze', cacheHit: true, remoteFetched: false }),
      );
    if (plan.kind === 'none' || (plan.kind === 'remote' && !input.allowRemoteFetch)) {
      return { outcome: 'refused', refusal: { tag: 'NoReadableSource', courtLevel: view.court.level } };
    }
    if (!this.deps.workflows.available) return { outcome: 'refused', refusal: ENGINE_DOWN };
    const source = await this.deps.cases.sourceOf(view.caseId);
    const subject: AnalysisSubject = { kind: 'single', caseId: view.caseId, caseNumberNormalised: source?.caseNumberNormalised ?? '' };
    const admitted = await this.deps.runs.admit({
      subject,
      accountId: input.accountId,
      requestId: input.requestId,
      price: PRICES.analyze.credits,
      payment: { kind: 'charge' },
      allowRemoteFetch: input.allowRemoteFetch,
      remoteFetchPlanned: plan.kind === 'remote',
      concurrencyCap: input.concurrencyCap,
    });
    if (!admitted.ok) return { outcome: 'refused', refusal: admitted.error };
    if ((await this.#start(admitted.runId, { accountId: input.accountId, requestId: input.requestId })) === 'refunded')
      return { outcome: 'refused', refusal: ENGINE_DOWN };
    return {
      outcome: 'admitted',
      runId: admitted.runId,
      balance: admitted.balance,
      charged: admitted.charged,
      remoteFetch: plan.kind === 'remote',
    };
  }

  async requestConsolidated(input: {
    readonly view: CaseView;
    readonly accountId: string;
    readonly requestId: string;
    readonly force: boolean;
  }): Promise<ConsolidatedRequest> {
    const source = await this.deps.cases.sourceOf(input.view.caseId);
    const caseNumberNormalised = source?.caseNumberNormalised ?? '';
    const cacheHit = async () => {
      const stored = await this.storedConsolidated(caseNumberNormalised);
      const price = finalPrice({ endpoint: 'analyzeConsolidated', cacheHit: true });
      return stored ? this.#cacheHit(stored, input.accountId, input.requestId, price) : null;
    };
    if (!input.force && (await this.deps.runs.admittedBy(input.accountId, input.requestId)) === null) {
      const hit = await cacheHit();
      if (hit) return hit;
    }
    const documents = await this.deps.cases.documentsSharingNumber(caseNumberNormalised);
    const plans = await Promise.all(documents.map((d) => this.sourcePlan(d)));
    if (!plans.some((p) => p.kind === 'text' || p.kind === 'document')) {
      return { outcome: 'refused', refusal: { tag: 'NoReadableSource', courtLevel: input.view.court.level } };
    }
    if (!this.deps.workflows.available) return { outcome: 'refused', refusal: ENGINE_DOWN };
    const admitted = await this.deps.runs.admit({
      subject: { kind: 'consolidated', caseId: input.view.caseId, caseNumberNormalised },
      accountId: input.accountId,
      requestId: input.requestId,
      price: PRICES.analyzeConsolidated.credits,
      // Held past the caller's deadline and the watchdog's, which fail the run (and release the hold) first.
      payment: { kind: 'reserve', holdForMs: this.deps.consolidatedDeadlineSeconds * 1000 + CONSOLIDATED_HOLD_SLACK_MS },
      allowRemoteFetch: false,
      remoteFetchPlanned: false,
      concurrencyCap: null,
    });
    if (!admitted.ok) return { outcome: 'refused', refusal: admitted.error };
    const { runId } = admitted;
    let start: ConsolidatedStart;
    try {
      start = await this.deps.workflows.startConsolidated(runId, caseNumberNormalised, this.deps.consolidatedDeadlineSeconds, {
        accountId: input.accountId,
        requestId: input.requestId,
      });
    } catch (error) {
      this.deps.onStartFailure(runId, error);
      return this.#ended(
        runId,
        await this.deps.runs.fail(runId, failureReason('WORKFLOW_ENGINE_UNAVAILABLE', 'the workflow engine could not start the run')),
      );
    }
    if (!start.started) {
      // Someone else's run of this case number is in progress: ours gives its reservation back and waits for theirs.
      await this.deps.runs.fail(runId, failureReason('CONCURRENT_RUN', 'another consolidated run of this case number was in progress'));
      let theirs: RunEnded;
      try {
        theirs = await start.wait();
      } catch (error) {
        this.deps.onStartFailure(runId, error);
        return { outcome: 'refused', refusal: ENGINE_DOWN };
      }
      if (theirs.status === 'failed') return { outcome: 'failed', reason: theirs.reason };
      const hit = await cacheHit();
      return hit ?? { outcome: 'failed', reason: failureReason('ANALYSIS_FAILED', 'the concurrent run stored nothing') };
    }
    await this.deps.runs.markStarted(runId);
    let reason = failureReason('ANALYSIS_FAILED', 'the run ended without a stored analysis');
    try {
      const ended: RunEnded = await start.result();
      if (ended.status === 'failed') reason = ended.reason;
    } catch (error) {
      // The engine went away while the caller waited: the run is failed and refunded, unless it stored first.
      this.deps.onStartFailure(runId, error);
      return this.#ended(
        runId,
        await this.deps.runs.fail(runId, failureReason('WORKFLOW_ENGINE_UNAVAILABLE', 'the workflow engine became unreachable')),
      );
    }
    // The run's row, not the workflow's answer, says what the caller paid for: a run can store just before its deadline fails it.
    const final = await this.deps.runs.fail(runId, reason);
    return final === 'stored' ? this.#ended(runId, final) : { outcome: 'failed', reason };
  }

  /**
   * The answer for a consolidated run that ended: its stored analysis, or an answer that
   * charged nothing. A document it covers can be restricted between the store and this
   * read; the analysis is then withheld and its charge given back.
   */
  async #ended(runId: string, status: 'failed' | 'stored'): Promise<ConsolidatedRequest> {
    if (status === 'failed') return { outcome: 'refused', refusal: ENGINE_DOWN };
    const run = await this.deps.runs.run(runId);
    if (!run) throw new Error(`consolidated run ${runId} is stored but cannot be read`);
    const stored = await this.storedConsolidated(run.caseNumberNormalised);
    if (stored) return { outcome: 'stored', stored, charged: finalPrice({ endpoint: 'analyzeConsolidated', cacheHit: false }) };
    await this.deps.runs.refundWithheld(runId);
    return { outcome: 'failed', reason: failureReason('CASE_RESTRICTED', 'a document the analysis covers was restricted as it completed') };
  }

  async #cacheHit(stored: StoredAnalysis, accountId: string, requestId: string, price: number): Promise<CacheHit> {
    const charge = await this.deps.credits.chargeNow(accountId, price, requestId, undefined, callChargeId(requestId));
    if (!charge.ok) return { outcome: 'refused', refusal: creditRefusal(charge.error, 'a cache-hit charge') };
    return { outcome: 'cache-hit', stored, charged: price, balance: charge.value.balance };
  }

  /**
   * Starts the run's workflow while the caller still waits for the answer. When the engine
   * cannot start it, the run is failed and refunded at once and the caller told so, rather
   * than answered 202 for a run nobody may run; if that refund cannot be written either,
   * the run stays unstarted and the dispatcher starts or refunds it.
   */
  async #start(runId: string, caller: WorkflowCaller): Promise<'started' | 'refunded'> {
    try {
      await this.deps.workflows.startAnalysis(runId, caller);
    } catch (error) {
      this.deps.onStartFailure(runId, error);
      // An ambiguous start may have run and stored already: then the caller did get what they paid for.
      return (await this.deps.runs.fail(
        runId,
        failureReason('WORKFLOW_ENGINE_UNAVAILABLE', 'the workflow engine could not start the run'),
      )) === 'stored'
        ? 'started'
        : 'refunded';
    }
    await this.deps.runs.markStarted(runId);
    return 'started';
  }
}
