/**
 * The analysis activities, built by a factory over ports so the worker entry point alone
 * chooses adapters (and tests can pass real ones over a test database). Every activity is
 * safe to repeat: a run already stored, fetched or failed is left as it is, because a
 * worker that dies mid-activity has it retried elsewhere.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { CoversRestrictedError, RunEndedError, type AnalysisRuns, type RunRow } from '../../src/application/analysis/analysis-runs.ts';
import type { CaseReader, CaseView } from '../../src/application/cases/case-reader.ts';
import { consolidate } from '../../src/domain/analysis/consolidate.ts';
import { isAnalysable } from '../../src/domain/analysis/paragraphs.ts';
import { documentUrl } from '../../src/domain/analysis-request/remote-fetch-policy.ts';
import type { AnalysisSource, CaseAnalyser } from '../../src/ports/case-analyser.ts';
import { judgmentKey, type DocumentStorage } from '../../src/ports/document-storage.ts';
import { RemoteFetchFailedError, RemoteFetchRefusedError, type RemoteDocuments } from '../../src/ports/remote-documents.ts';
import type { AnalysisActivities, SourceKind } from '../analysis-activity-types.ts';
import { logActivity } from './activity-log.ts';

export interface AnalysisActivityDeps {
  readonly runs: AnalysisRuns;
  readonly cases: CaseReader;
  readonly documents: DocumentStorage;
  readonly analyser: CaseAnalyser;
  readonly remote: RemoteDocuments;
  /** Turns a document's stored bytes into text (PDF text extraction). */
  readonly documentText: (bytes: Uint8Array) => Promise<string>;
  /** Where the Supreme Court serves the PDFs its index links to. */
  readonly scDocumentsBaseUrl: string;
}

export function createAnalysisActivities(deps: AnalysisActivityDeps): AnalysisActivities {
  /** The run to work on; one that failed was refunded, so nothing more is done for it (not retried). */
  async function runOf(runId: string): Promise<RunRow> {
    const run = await deps.runs.run(runId);
    if (!run) throw ApplicationFailure.nonRetryable(`no analysis run ${runId}`, 'RunNotRunning');
    if (run.status === 'failed')
      throw ApplicationFailure.nonRetryable(`analysis run ${runId} already failed and was refunded`, 'RunNotRunning');
    return run;
  }

  /**
   * Stores a result, unless the run failed (and was refunded) meanwhile. A consolidated
   * result covering a document restricted while it was made is not stored: the retry
   * reads the documents afresh, which leaves the restricted one out.
   */
  async function store(runId: string, result: Parameters<AnalysisRuns['store']>[1]): Promise<void> {
    try {
      await deps.runs.store(runId, result);
    } catch (error) {
      if (error instanceof RunEndedError) throw ApplicationFailure.nonRetryable(error.message, 'RunNotRunning');
      if (error instanceof CoversRestrictedError) throw ApplicationFailure.retryable(error.message, 'DocumentRestricted');
      throw error;
    }
  }

  async function caseOf(caseId: string): Promise<CaseView> {
    const found = await deps.cases.lookup(caseId);
    if (!('found' in found)) throw ApplicationFailure.nonRetryable(`case ${caseId} is ${found.missing}`, 'NoReadableSource');
    return found.found;
  }

  /** The text to analyse: the case's own, else its stored document's; null when neither reads. */
  async function readableText(view: CaseView): Promise<string | null> {
    if (view.text !== null && isAnalysable(view.text)) return view.text;
    const bytes = await deps.documents.get(judgmentKey(view.caseId));
    if (!bytes) return null;
    const text = await deps.documentText(bytes);
    return isAnalysable(text) ? text : null;
  }

  function sourceOf(view: CaseView, text: string): AnalysisSource {
    return {
      caseId: view.caseId,
      caseNumber: view.caseNumber,
      title: view.title,
      courtName: view.court.name,
      decisionDate: view.decisionDate,
      text,
    };
  }

  async function fetchRemote(run: RunRow): Promise<void> {
    const source = await deps.cases.sourceOf(run.caseId);
    const path = source?.documentLinks[0];
    if (!path) throw ApplicationFailure.nonRetryable(`case ${run.caseId} links to no document`, 'NoReadableSource');
    const url = documentUrl(deps.scDocumentsBaseUrl, path);
    let bytes: Uint8Array;
    try {
      bytes = await deps.remote.fetchPdf(url, Context.current().cancellationSignal);
    } catch (error) {
      if (error instanceof RemoteFetchRefusedError) throw ApplicationFailure.nonRetryable(error.message, 'RemoteFetchRefused');
      if (error instanceof RemoteFetchFailedError && error.permanent)
        throw ApplicationFailure.nonRetryable(error.message, 'RemoteFetchPermanent');
      throw error;
    }
    await deps.documents.put(judgmentKey(run.caseId), bytes, 'application/pdf');
    await deps.runs.recordRemoteFetch(run.runId, { url, bytes: bytes.byteLength });
  }

  async function ensure(run: RunRow): Promise<SourceKind> {
    const view = await caseOf(run.caseId);
    if (view.text !== null && isAnalysable(view.text)) return 'text';
    if (run.remoteFetched) return 'remote';
    // Stored meanwhile (by another run, a timeline fetch, or an attempt of this one that died
    // before recording its fetch): nothing is fetched, and storing the run gives the surcharge back.
    if (await deps.documents.exists(judgmentKey(run.caseId))) return 'document';
    if (!run.allowRemoteFetch)
      throw ApplicationFailure.nonRetryable(`case ${run.caseId} has no readable text or stored document`, 'NoReadableSource');
    await fetchRemote(run);
    return 'remote';
  }

  return {
    async ensureSource(runId: string, requestId?: string): Promise<{ source: SourceKind }> {
      const source = await ensure(await runOf(runId));
      logActivity('analysis source ready', { requestId, runId, source });
      return { source };
    },

    async analyseAndStore(runId: string, requestId?: string): Promise<{ model: string }> {
      const run = await runOf(runId);
      const view = await caseOf(run.caseId);
      const text = await readableText(view);
      if (text === null) throw ApplicationFailure.nonRetryable(`case ${run.caseId} has no readable text`, 'NoReadableSource');
      const analysis = await deps.analyser.analyse(sourceOf(view, text), Context.current().cancellationSignal);
      await store(runId, { model: analysis.model, caseIds: [view.caseId], analysis });
      logActivity('analysis stored', { requestId, runId, model: analysis.model });
      return { model: analysis.model };
    },

    async analyseConsolidatedAndStore(runId: string, requestId?: string): Promise<{ model: string; documents: number }> {
      const run = await runOf(runId);
      const views = await deps.cases.documentsSharingNumber(run.caseNumberNormalised);
      const analysed: { caseId: string; analysis: Awaited<ReturnType<CaseAnalyser['analyse']>> }[] = [];
      for (const view of views) {
        const text = await readableText(view);
        if (text === null) continue;
        Context.current().heartbeat(view.caseId);
        analysed.push({
          caseId: view.caseId,
          analysis: await deps.analyser.analyse(sourceOf(view, text), Context.current().cancellationSignal),
        });
      }
      if (analysed.length === 0) {
        throw ApplicationFailure.nonRetryable(`no document of ${run.caseNumberNormalised} has readable text`, 'NoReadableSource');
      }
      const merged = consolidate(analysed);
      await store(runId, { model: merged.model, caseIds: analysed.map((a) => a.caseId), analysis: merged });
      logActivity('consolidated analysis stored', { requestId, runId, model: merged.model, documents: analysed.length });
      return { model: merged.model, documents: analysed.length };
    },

    async failRun(runId: string, reason: string, requestId?: string): Promise<{ ended: 'failed' | 'stored' }> {
      const ended = await deps.runs.fail(runId, reason);
      logActivity('analysis run ended without a new result', { requestId, runId, ended });
      return { ended };
    },
  };
}
