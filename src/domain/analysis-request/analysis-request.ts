/**
 * The analysis-request aggregate: one stream per subject (a case for single-document runs,
 * a case number for consolidated runs) recording every model run admitted on it and how
 * each ended. Run n of a subject is `<prefix>-<n>`, which is also its Temporal workflow id,
 * so a run can be started at most once. A run is paid at admission (a charge for single
 * runs; a reservation for consolidated ones); it ends either stored (the analysis is kept)
 * or failed (the payment is given back). A single run admitted to fetch its document from
 * the court's site also pays the remote-fetch surcharge, as a charge of its own: the spec
 * prices it "with remote fetch actually performed", and a run can find the document
 * already stored when it gets to it (another run or a timeline fetch stored it
 * meanwhile). Storing a run that fetched nothing therefore returns the surcharge, and
 * failing a run returns it with the rest. A stored run is never failed afterwards, and a
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
        /**
         * The ledger charge of the surcharge, apart from `paymentId`'s; null when none was
         * charged. Absent from runs admitted before it was charged apart: their surcharge is
         * inside the `paymentId` charge, which is only ever given back whole.
         */
        surchargeId?: string | null;
        requestId: string;
        admittedAt: string;
      };
    }
  | { type: 'RemoteDocumentFetched'; data: { runId: string; url: string; bytes: number; fetchedAt: string } }
  /** The run did not earn its surcharge (it fetched nothing, or it failed): the charge `chargeId` goes back. */
  | { type: 'RemoteFetchSurchargeReturned'; data: { runId: string; chargeId: string; returnedAt: string } }
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
      /** The surcharge's own charge (`surchargeIdOf(runId)`), or null when the run pays none. */
      surchargeId: string | null;
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
  /** The surcharge charge a run may have to give back; null when it paid none apart. */
  readonly surchargeId: string | null;
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

/** The ledger charge id of a run's remote-fetch surcharge: the server's own, in the run's namespace. */
export function surchargeIdOf(runId: string): string {
  return `${runId}:remote-fetch`;
}

/** The id the next admitted run of this subject will get. */
export function nextRunId(subject: AnalysisSubject, state: AnalysisRequestState): string {
  return runIdOf(subject, state.admitted + 1);
}

/**
 * The surcharge going back when a run ends: one that stores keeps it only if it fetched,
 * one that fails gives back everything it paid.
 */
function unearnedSurcharge(runId: string, run: RunState, ending: 'stored' | 'failed', now: string): AnalysisRequestEvent[] {
  if (run.surchargeId === null || (ending === 'stored' && run.remoteFetched)) return [];
  return [{ type: 'RemoteFetchSurchargeReturned', data: { runId, chargeId: run.surchargeId, returnedAt: now } }];
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
          surchargeId: command.surchargeId,
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
      return accept<AnalysisRequestEvent>(
        {
          type: 'AnalysisStored',
          data: { runId: command.runId, model: command.model, caseIds: command.caseIds, analysis: command.analysis, storedAt: command.now },
        },
        ...unearnedSurcharge(command.runId, found.run, 'stored', command.now),
      );
    }
    case 'FailRun': {
      const run = state.runs[command.runId];
      if (run?.status === 'failed') return accept();
      const found = running(state, command.runId);
      if (!found.ok) return refuse(found.error);
      return accept<AnalysisRequestEvent>(
        { type: 'AnalysisRunFailed', data: { runId: command.runId, reason: command.reason, failedAt: command.now } },
        ...unearnedSurcharge(command.runId, found.run, 'failed', command.now),
      );
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
          [event.data.runId]: {
            accountId: event.data.accountId,
            paymentId: event.data.paymentId,
            status: 'running',
            remoteFetched: false,
            surchargeId: event.data.surchargeId ?? null,
          },
        },
      };
    case 'RemoteDocumentFetched':
      return withRun(state, event.data.runId, (run) => ({ ...run, remoteFetched: true }));
    case 'RemoteFetchSurchargeReturned':
      // Returned once, when the run ended: the ended status is what keeps it from returning again.
      return state;
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
  'RemoteFetchSurchargeReturned',
  'AnalysisStored',
  'AnalysisRunFailed',
];
