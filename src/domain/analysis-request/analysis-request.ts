/**
 * The analysis-request aggregate: one stream per subject (a case for single-document runs,
 * a case number for consolidated runs) recording every model run admitted on it and how
 * each ended. Run n of a subject is `<prefix>-<n>`, which is also its Temporal workflow id,
 * so a run can be started at most once. A run is paid at admission (a charge for single
 * runs, including the remote-fetch surcharge when it is admitted to fetch its document; a
 * reservation for consolidated ones); it ends either stored (the analysis is kept) or
 * failed (the payment is given back). A run admitted to fetch does fetch (or fails), so
 * the surcharge is only ever kept when a fetch happened. A stored run is never failed afterwards, and a
 * failed run never stores, so no run is both charged and without a result.
 */
import { accept, assertNever, refuse, type Decision } from '../decider.ts';

export type RunKind = 'single' | 'consolidated';

export interface AnalysisSubject {
  readonly kind: RunKind;
  /** The case analysed, or for consolidated runs the case the caller named. */
  readonly caseId: string;
  readonly caseNumberNormalised: string;
}

export type AnalysisRequestEvent =
  | {
      type: 'AnalysisRunAdmitted';
      data: {
        runId: string;
        kind: RunKind;
        caseId: string;
        caseNumberNormalised: string;
        accountId: string;
        paymentId: string;
        price: number;
        allowRemoteFetch: boolean;
        /** The run fetches its document from the court's site; its price includes the surcharge. */
        remoteFetchPlanned: boolean;
        requestId: string;
        admittedAt: string;
      };
    }
  | { type: 'RemoteDocumentFetched'; data: { runId: string; url: string; bytes: number; fetchedAt: string } }
  | {
      type: 'AnalysisStored';
      data: { runId: string; model: string; caseIds: string[]; analysis: unknown; storedAt: string };
    }
  | { type: 'AnalysisRunFailed'; data: { runId: string; reason: string; failedAt: string } };

export type AnalysisRequestCommand =
  | {
      type: 'AdmitRun';
      subject: AnalysisSubject;
      accountId: string;
      paymentId: string;
      price: number;
      allowRemoteFetch: boolean;
      remoteFetchPlanned: boolean;
      requestId: string;
      now: string;
    }
  | { type: 'RecordRemoteFetch'; runId: string; url: string; bytes: number; now: string }
  | { type: 'StoreAnalysis'; runId: string; model: string; caseIds: string[]; analysis: unknown; now: string }
  | { type: 'FailRun'; runId: string; reason: string; now: string };

export type RunStatus = 'running' | 'stored' | 'failed';

export interface RunState {
  readonly accountId: string;
  readonly paymentId: string;
  readonly status: RunStatus;
  readonly remoteFetched: boolean;
}

export interface AnalysisRequestState {
  readonly admitted: number;
  readonly runs: Readonly<Record<string, RunState>>;
}

export type AnalysisRequestError = { tag: 'UnknownRun'; runId: string } | { tag: 'RunAlreadyEnded'; runId: string; status: RunStatus };

export const initialAnalysisRequest: AnalysisRequestState = { admitted: 0, runs: {} };

const PREFIX: Record<RunKind, string> = { single: 'analysis', consolidated: 'consolidated' };

/** The stream of a subject: its runs are numbered within it. */
export function analysisStreamId(subject: AnalysisSubject): string {
  return subject.kind === 'single' ? `analysis-${subject.caseId}` : `consolidated-${subject.caseNumberNormalised}`;
}

/** The id run n of a subject gets: `analysis-<caseId>-<n>` or `consolidated-<caseNumber>-<n>`. */
export function runIdOf(subject: AnalysisSubject, n: number): string {
  const key = subject.kind === 'single' ? subject.caseId : subject.caseNumberNormalised;
  return `${PREFIX[subject.kind]}-${key}-${String(n)}`;
}

/** The id the next admitted run of this subject will get. */
export function nextRunId(subject: AnalysisSubject, state: AnalysisRequestState): string {
  return runIdOf(subject, state.admitted + 1);
}

function running(state: AnalysisRequestState, runId: string): { ok: true; run: RunState } | { ok: false; error: AnalysisRequestError } {
  const run = state.runs[runId];
  if (!run) return { ok: false, error: { tag: 'UnknownRun', runId } };
  if (run.status !== 'running') return { ok: false, error: { tag: 'RunAlreadyEnded', runId, status: run.status } };
  return { ok: true, run };
}

export function decideAnalysisRequest(
  command: AnalysisRequestCommand,
  state: AnalysisRequestState,
): Decision<AnalysisRequestEvent, AnalysisRequestError> {
  switch (command.type) {
    case 'AdmitRun':
      return accept({
        type: 'AnalysisRunAdmitted',
        data: {
          runId: nextRunId(command.subject, state),
          kind: command.subject.kind,
          caseId: command.subject.caseId,
          caseNumberNormalised: command.subject.caseNumberNormalised,
          accountId: command.accountId,
          paymentId: command.paymentId,
          price: command.price,
          allowRemoteFetch: command.allowRemoteFetch,
          remoteFetchPlanned: command.remoteFetchPlanned,
          requestId: command.requestId,
          admittedAt: command.now,
        },
      });
    case 'RecordRemoteFetch': {
      const found = running(state, command.runId);
      if (!found.ok) return refuse(found.error);
      // A retried fetch activity records the fetch once.
      if (found.run.remoteFetched) return accept();
      return accept({
        type: 'RemoteDocumentFetched',
        data: { runId: command.runId, url: command.url, bytes: command.bytes, fetchedAt: command.now },
      });
    }
    case 'StoreAnalysis': {
      const run = state.runs[command.runId];
      // A retried store after the first one committed records nothing.
      if (run?.status === 'stored') return accept();
      const found = running(state, command.runId);
      if (!found.ok) return refuse(found.error);
      return accept({
        type: 'AnalysisStored',
        data: { runId: command.runId, model: command.model, caseIds: command.caseIds, analysis: command.analysis, storedAt: command.now },
      });
    }
    case 'FailRun': {
      const run = state.runs[command.runId];
      if (run?.status === 'failed') return accept();
      const found = running(state, command.runId);
      if (!found.ok) return refuse(found.error);
      return accept({ type: 'AnalysisRunFailed', data: { runId: command.runId, reason: command.reason, failedAt: command.now } });
    }
    default:
      return assertNever(command);
  }
}

function withRun(state: AnalysisRequestState, runId: string, change: (run: RunState) => RunState): AnalysisRequestState {
  const run = state.runs[runId];
  return run ? { ...state, runs: { ...state.runs, [runId]: change(run) } } : state;
}

export function evolveAnalysisRequest(state: AnalysisRequestState, event: AnalysisRequestEvent): AnalysisRequestState {
  switch (event.type) {
    case 'AnalysisRunAdmitted':
      return {
        admitted: state.admitted + 1,
        runs: {
          ...state.runs,
          [event.data.runId]: { accountId: event.data.accountId, paymentId: event.data.paymentId, status: 'running', remoteFetched: false },
        },
      };
    case 'RemoteDocumentFetched':
      return withRun(state, event.data.runId, (run) => ({ ...run, remoteFetched: true }));
    case 'AnalysisStored':
      return withRun(state, event.data.runId, (run) => ({ ...run, status: 'stored' }));
    case 'AnalysisRunFailed':
      return withRun(state, event.data.runId, (run) => ({ ...run, status: 'failed' }));
    default:
      return assertNever(event);
  }
}

export const ANALYSIS_REQUEST_EVENT_TYPES: readonly AnalysisRequestEvent['type'][] = [
  'AnalysisRunAdmitted',
  'RemoteDocumentFetched',
  'AnalysisStored',
  'AnalysisRunFailed',
];
