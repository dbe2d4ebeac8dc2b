/**
 * What POST /cases/:id/analyze, POST /cases/:id/analyze-consolidated and GET
 * /cases/:id/analysis ask of the application: the stored analyses, the up-front checks
 * (readable source, remote-fetch allowlist), the cache-hit charge, admission and the start
 * of the run's workflow. A workflow start that fails after admission is not lost: the run
 * stays unstarted in analysis_runs and the dispatcher starts it (see run-dispatcher.ts).
 */
import type { Db } from '../../db/database.ts';
import { isAnalysable } from '../../domain/analysis/paragraphs.ts';
import { documentUrl, hostAllowed } from '../../domain/analysis-request/remote-fetch-policy.ts';
import type { AnalysisSubject, RunStatus } from '../../domain/analysis-request/analysis-request.ts';
import { PRICES } from '../../domain/credits/prices.ts';
import type { AnalysisWorkflows, ConsolidatedStart, RunEnded } from '../../ports/analysis-workflows.ts';
import { judgmentKey, type DocumentStorage } from '../../ports/document-storage.ts';
import type { CaseReader, CaseView } from '../cases/case-reader.ts';
import type { CreditsService } from '../credits/credits-service.ts';
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
export type NotAdmitted = { tag: 'NoReadableSource'; courtLevel: string } | { tag: 'WorkflowsUnavailable' };

type CacheHit =
  | { outcome: 'cache-hit'; stored: StoredAnalysis; balance: number }
  | { outcome: 'refused'; refusal: { tag: 'InsufficientCredits'; required: number; balance: number } };

export type SingleRequest =
  | { outcome: 'cache-hit'; stored: StoredAnalysis; balance: number }
  | { outcome: 'admitted'; runId: string; balance: number; charged: number; remoteFetch: boolean }
  | { outcome: 'refused'; refusal: AdmitRefusal | NotAdmitted | { tag: 'RemoteFetchNotAllowed'; host: string } };

export type ConsolidatedRequest =
  | { outcome: 'cache-hit'; stored: StoredAnalysis; balance: number }
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

  async storedConsolidated(caseNumberNormalised: string): Promise<StoredAnalysis | null> {
    const row = await this.deps.db
      .selectFrom('consolidatedAnalyses')
      .select(['runId', 'model', 'analysis', 'storedAt', 'caseIds'])
      .where('caseNumberNormalised', '=', caseNumberNormalised)
      .executeTakeFirst();
    return row ? { ...row, caseIds: row.caseIds as string[] } : null;
  }

  /** The caller's latest run on a case, for GET /cases/:id/analysis to report progress or failure. */
  async latestRun(caseId: string, accountId: string): Promise<{ runId: string; status: RunStatus; failure: string | null } | null> {
    const row = await this.deps.db
      .selectFrom('analysisRuns')
      .select(['runId', 'status', 'failure'])
      .where('caseId', '=', caseId)
      .where('accountId', '=', accountId)
      .where('kind', '=', 'single')
      .orderBy('admittedAt', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { ...row, status: row.status as RunStatus } : null;
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
    /** Runs after the remote-fetch allowlist check, which the spec puts before tier and balance. */
    readonly entitled: () => void;
  }): Promise<SingleRequest> {
    const { view } = input;
    const plan = await this.sourcePlan(view);
    if (plan.kind === 'remote' && input.allowRemoteFetch && !hostAllowed(plan.url, this.deps.remoteFetchAllowlist)) {
      return { outcome: 'refused', refusal: { tag: 'RemoteFetchNotAllowed', host: new URL(plan.url).host } };
    }
    input.entitled();
    const stored = input.force ? null : await this.stored(view.caseId);
    if (stored) return this.#cacheHit(stored, input.accountId, input.requestId, PRICES.analyze.cacheHit);
    if (plan.kind === 'none' || (plan.kind === 'remote' && !input.allowRemoteFetch)) {
      return { outcome: 'refused', refusal: { tag: 'NoReadableSource', courtLevel: view.court.level } };
    }
    if (!this.deps.workflows.available) return { outcome: 'refused', refusal: { tag: 'WorkflowsUnavailable' } };
    const source = await this.deps.cases.sourceOf(view.caseId);
    const subject: AnalysisSubject = { kind: 'single', caseId: view.caseId, caseNumberNormalised: source?.caseNumberNormalised ?? '' };
    const admitted = await this.deps.runs.admit({
      subject,
      accountId: input.accountId,
      requestId: input.requestId,
      price: PRICES.analyze.credits,
      payment: 'charge',
      allowRemoteFetch: input.allowRemoteFetch,
      remoteFetchPlanned: plan.kind === 'remote',
      concurrencyCap: input.concurrencyCap,
    });
    if (!admitted.ok) return { outcome: 'refused', refusal: admitted.error };
    await this.#start(admitted.runId);
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
      return stored ? this.#cacheHit(stored, input.accountId, input.requestId, PRICES.analyzeConsolidated.cacheHit) : null;
    };
    if (!input.force) {
      const hit = await cacheHit();
      if (hit) return hit;
    }
    const documents = await this.deps.cases.documentsSharingNumber(caseNumberNormalised);
    const plans = await Promise.all(documents.map((d) => this.sourcePlan(d)));
    if (!plans.some((p) => p.kind === 'text' || p.kind === 'document')) {
      return { outcome: 'refused', refusal: { tag: 'NoReadableSource', courtLevel: input.view.court.level } };
    }
    if (!this.deps.workflows.available) return { outcome: 'refused', refusal: { tag: 'WorkflowsUnavailable' } };
    const admitted = await this.deps.runs.admit({
      subject: { kind: 'consolidated', caseId: input.view.caseId, caseNumberNormalised },
      accountId: input.accountId,
      requestId: input.requestId,
      price: PRICES.analyzeConsolidated.credits,
      payment: 'reserve',
      allowRemoteFetch: false,
      remoteFetchPlanned: false,
      concurrencyCap: null,
    });
    if (!admitted.ok) return { outcome: 'refused', refusal: admitted.error };
    let start: ConsolidatedStart;
    try {
      start = await this.deps.workflows.startConsolidated(admitted.runId, caseNumberNormalised, this.deps.consolidatedDeadlineSeconds);
    } catch (error) {
      await this.deps.runs.fail(admitted.runId, 'the workflow could not be started');
      throw error;
    }
    if (!start.started) {
      // Someone else's run of this case number is in progress: ours gives its reservation back and waits for theirs.
      await this.deps.runs.fail(admitted.runId, 'another consolidated run of this case number was in progress');
      const theirs = await start.wait();
      if (theirs.status === 'failed') return { outcome: 'failed', reason: theirs.reason };
      const hit = await cacheHit();
      return hit ?? { outcome: 'failed', reason: 'the concurrent run stored nothing' };
    }
    await this.deps.runs.markStarted(admitted.runId);
    const ended: RunEnded = await start.result();
    if (ended.status === 'failed') return { outcome: 'failed', reason: ended.reason };
    const stored = await this.storedConsolidated(caseNumberNormalised);
    if (!stored) return { outcome: 'failed', reason: 'the run ended without a stored analysis' };
    return { outcome: 'stored', stored, charged: PRICES.analyzeConsolidated.credits };
  }

  async #cacheHit(stored: StoredAnalysis, accountId: string, requestId: string, price: number): Promise<CacheHit> {
    const charge = await this.deps.credits.chargeNow(accountId, price, requestId);
    if (!charge.ok) {
      const error = charge.error;
      if (error.tag === 'InsufficientCredits')
        return { outcome: 'refused', refusal: { tag: 'InsufficientCredits', required: error.required, balance: error.balance } };
      throw new Error(`cache-hit charge refused: ${error.tag}`);
    }
    return { outcome: 'cache-hit', stored, balance: charge.value.balance };
  }

  async #start(runId: string): Promise<void> {
    try {
      await this.deps.workflows.startAnalysis(runId);
      await this.deps.runs.markStarted(runId);
    } catch (error) {
      this.deps.onStartFailure(runId, error);
    }
  }
}
