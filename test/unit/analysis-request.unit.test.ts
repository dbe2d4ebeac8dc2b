/**
 * The analysis-request aggregate's remote-fetch surcharge, given events, when a command,
 * then events: the spec prices the +20 "with remote fetch actually performed", so a run
 * admitted to fetch that stores without having fetched returns its surcharge, one that
 * fetched keeps it, and a failed run returns it with the rest. Each is decided once: a
 * repeated store or failure (a retried activity) records nothing. Runs admitted before
 * the surcharge was charged apart carry no surcharge id and return nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideAnalysisRequest,
  evolveAnalysisRequest,
  initialAnalysisRequest,
  surchargeIdOf,
  type AnalysisRequestCommand,
  type AnalysisRequestEvent,
} from '../../src/domain/analysis-request/analysis-request.ts';
import { spec } from '../support/decider-spec.ts';

const NOW = '2026-11-26T10:00:00.000Z';
const LATER = '2026-11-26T10:00:40.000Z';
const SUBJECT = { kind: 'single' as const, caseId: 'sc-69848-1986-19900904', caseNumberNormalised: 'diary698481986' };
const RUN = 'analysis-sc-69848-1986-19900904-1';

const run = spec({ decide: decideAnalysisRequest, evolve: evolveAnalysisRequest, initialState: initialAnalysisRequest });

const admit = (surchargeId: string | null): AnalysisRequestCommand => ({
  type: 'AdmitRun',
  subject: SUBJECT,
  accountId: 'org_1',
  paymentId: RUN,
  price: surchargeId === null ? 100 : 120,
  allowRemoteFetch: true,
  remoteFetchPlanned: surchargeId !== null,
  surchargeId,
  requestId: 'req_1',
  now: NOW,
});
const fetched: AnalysisRequestCommand = {
  type: 'RecordRemoteFetch',
  runId: RUN,
  url: 'https://main.sci.gov.in/jonew/judis/7431.pdf',
  bytes: 9000,
  now: LATER,
};
const store: AnalysisRequestCommand = {
  type: 'StoreAnalysis',
  runId: RUN,
  model: 'local-extractive-v1',
  caseIds: [SUBJECT.caseId],
  analysis: {},
  now: LATER,
};
const fail: AnalysisRequestCommand = { type: 'FailRun', runId: RUN, reason: 'the analyser broke', now: LATER };

const admitted = (surchargeId: string | null = surchargeIdOf(RUN)) => run.given([]).when(admit(surchargeId)).thenEvents();
const returned: AnalysisRequestEvent = {
  type: 'RemoteFetchSurchargeReturned',
  data: { runId: RUN, chargeId: `${RUN}:remote-fetch`, returnedAt: LATER },
};
const stored: AnalysisRequestEvent = {
  type: 'AnalysisStored',
  data: { runId: RUN, model: 'local-extractive-v1', caseIds: [SUBJECT.caseId], analysis: {}, storedAt: LATER },
};
const failed: AnalysisRequestEvent = { type: 'AnalysisRunFailed', data: { runId: RUN, reason: 'the analyser broke', failedAt: LATER } };
const remoteFetched: AnalysisRequestEvent = {
  type: 'RemoteDocumentFetched',
  data: { runId: RUN, url: 'https://main.sci.gov.in/jonew/judis/7431.pdf', bytes: 9000, fetchedAt: LATER },
};

describe('the remote-fetch surcharge of an analysis run', () => {
  it('is charged apart under an id of the run’s own namespace', () => {
    const [event] = admitted();
    assert.equal(event?.type, 'AnalysisRunAdmitted');
    assert.equal(event.data.surchargeId, `${RUN}:remote-fetch`);
    assert.equal(event.data.paymentId, RUN);
  });

  it('is returned when the run stores without having fetched (the document was stored meanwhile)', () => {
    run.given(admitted()).when(store).then([stored, returned]);
  });

  it('is kept when the run fetched its document', () => {
    run.given(admitted()).when(fetched).then([remoteFetched]);
    run
      .given([...admitted(), remoteFetched])
      .when(store)
      .then([stored]);
  });

  it('is returned with the rest when the run fails, fetched or not', () => {
    run
      .given([...admitted(), remoteFetched])
      .when(fail)
      .then([failed, returned]);
    run.given(admitted()).when(fail).then([failed, returned]);
  });

  it('is returned once: a retried store or failure records nothing', () => {
    run.given(admitted()).when(store).then([stored, returned]);
    run
      .given([...admitted(), stored, returned])
      .when(store)
      .thenNothing();
    run.given(admitted()).when(fail).then([failed, returned]);
    run
      .given([...admitted(), failed, returned])
      .when(fail)
      .thenNothing();
    // A stored run never fails afterwards, so its kept or returned surcharge stays as it was.
    run
      .given([...admitted(), stored, returned])
      .when(fail)
      .thenRefuses({ tag: 'RunAlreadyEnded', runId: RUN, status: 'stored' });
  });

  it('is not returned for a run that paid none apart (no fetch planned, or admitted before it was charged apart)', () => {
    run.given(admitted(null)).when(store).then([stored]);
    const [event] = admitted();
    assert.ok(event?.type === 'AnalysisRunAdmitted');
    const { surchargeId: _dropped, ...older } = event.data;
    const legacy: AnalysisRequestEvent = { type: 'AnalysisRunAdmitted', data: { ...older, price: 120 } };
    run.given([legacy]).when(store).then([stored]);
  });
});
