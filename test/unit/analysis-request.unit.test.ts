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

const NOW = '2026-11-26T10:00:00.000Z';
const LATER = '2026-11-26T10:00:40.000Z';
const SUBJECT = { kind: 'single' as const, caseId: 'sc-69848-1986-19900904', caseNumberNormalised: 'diary698481986' };
const RUN = 'analysis-sc-69848-1986-19900904-1';

function given(events: AnalysisRequestEvent[]) {
  const state = events.reduce(evolveAnalysisRequest, initialAnalysisRequest);
  return { when: (command: AnalysisRequestCommand) => decideAnalysisRequest(command, state) };
}

function eventsOf(decision: ReturnType<typeof decideAnalysisRequest>): AnalysisRequestEvent[] {
  assert.ok(decision.ok, JSON.stringify(decision));
  return decision.events;
}

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

const admitted = (surchargeId: string | null = surchargeIdOf(RUN)) => eventsOf(given([]).when(admit(surchargeId)));
const returned = { type: 'RemoteFetchSurchargeReturned', data: { runId: RUN, chargeId: `${RUN}:remote-fetch`, returnedAt: LATER } };

describe('the remote-fetch surcharge of an analysis run', () => {
  it('is charged apart under an id of the run’s own namespace', () => {
    const [event] = admitted();
    assert.equal(event?.type, 'AnalysisRunAdmitted');
    assert.equal(event.data.surchargeId, `${RUN}:remote-fetch`);
    assert.equal(event.data.paymentId, RUN);
  });

  it('is returned when the run stores without having fetched (the document was stored meanwhile)', () => {
    const events = eventsOf(given(admitted()).when(store));
    assert.deepEqual(
      events.map((e) => e.type),
      ['AnalysisStored', 'RemoteFetchSurchargeReturned'],
    );
    assert.deepEqual(events[1], returned);
  });

  it('is kept when the run fetched its document', () => {
    const history = [...admitted(), ...eventsOf(given(admitted()).when(fetched))];
    assert.deepEqual(
      eventsOf(given(history).when(store)).map((e) => e.type),
      ['AnalysisStored'],
    );
  });

  it('is returned with the rest when the run fails, fetched or not', () => {
    const history = [...admitted(), ...eventsOf(given(admitted()).when(fetched))];
    assert.deepEqual(eventsOf(given(history).when(fail))[1], returned);
    assert.deepEqual(eventsOf(given(admitted()).when(fail))[1], returned);
  });

  it('is returned once: a retried store or failure records nothing', () => {
    const stored = [...admitted(), ...eventsOf(given(admitted()).when(store))];
    assert.deepEqual(eventsOf(given(stored).when(store)), []);
    const failed = [...admitted(), ...eventsOf(given(admitted()).when(fail))];
    assert.deepEqual(eventsOf(given(failed).when(fail)), []);
    // A stored run never fails afterwards, so its kept or returned surcharge stays as it was.
    assert.equal(given(stored).when(fail).ok, false);
  });

  it('is not returned for a run that paid none apart (no fetch planned, or admitted before it was charged apart)', () => {
    assert.deepEqual(
      eventsOf(given(admitted(null)).when(store)).map((e) => e.type),
      ['AnalysisStored'],
    );
    const [event] = admitted();
    assert.ok(event?.type === 'AnalysisRunAdmitted');
    const { surchargeId: _dropped, ...older } = event.data;
    const legacy: AnalysisRequestEvent = { type: 'AnalysisRunAdmitted', data: { ...older, price: 120 } };
    assert.deepEqual(
      eventsOf(given([legacy]).when(store)).map((e) => e.type),
      ['AnalysisStored'],
    );
  });
});
