/**
 * The timeline-request aggregate, given events, when a command, then events or a refusal:
 * an answer from the store is requested and completed at once, free; a live fetch is
 * admitted running with its reservation, charged once when it starts however often the
 * start is retried, completed only after it started, and failed with its payment given
 * back (reversed after the start, released before it). A completed job never fails and a
 * failed one never completes. The stored timeline in these tests is the real eCourts
 * record of Gauhati High Court AB/3142/2018, through the real mapper.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CaseTimeline } from '../../src/domain/timeline/case-timeline.ts';
import { readPortalRecord } from '../../src/domain/timeline/read-portal-record.ts';
import { timelineFromPortalRecord } from '../../src/domain/timeline/timeline-from-portal.ts';
import {
  decideTimelineRequest,
  evolveTimelineRequest,
  initialTimelineRequest,
  jobExpiresAt,
  type TimelineRequestCommand,
  type TimelineRequestEvent,
} from '../../src/domain/timeline-request/timeline-request.ts';
import { fixtureRecords } from '../support/ecourts-portal-server.ts';

const ID = 'tlr_1';
const NOW = '2025-03-01T10:00:00.000Z';
const LATER = '2025-03-01T10:00:02.000Z';
const SUBJECT = { caseId: 'hc-GAHC010225502018', cnr: 'GAHC010225502018' };

function realTimeline(): CaseTimeline {
  const read = readPortalRecord(fixtureRecords().get(SUBJECT.cnr));
  assert.ok('record' in read);
  return timelineFromPortalRecord(read.record, { fetchedAt: LATER });
}

function given(events: TimelineRequestEvent[]) {
  const state = events.reduce(evolveTimelineRequest, initialTimelineRequest);
  return { when: (command: TimelineRequestCommand) => decideTimelineRequest(command, state) };
}

const admit: TimelineRequestCommand = {
  type: 'AdmitLiveFetch',
  requestId: ID,
  accountId: 'acct',
  subject: SUBJECT,
  reservationId: 'rsv_1',
  price: 50,
  now: NOW,
};

function eventsOf(decision: ReturnType<typeof decideTimelineRequest>): TimelineRequestEvent[] {
  assert.ok(decision.ok, JSON.stringify(decision));
  return decision.events;
}

const admitted = () => eventsOf(given([]).when(admit));
const started = () => {
  const before = admitted();
  return [...before, ...eventsOf(given(before).when({ type: 'StartLiveFetch', requestId: ID, now: LATER }))];
};

describe('a timeline answered from the store', () => {
  it('is requested and completed in one decision, with no reservation and no price', () => {
    const timeline = realTimeline();
    const events = eventsOf(
      given([]).when({ type: 'AnswerFromStore', requestId: ID, accountId: 'acct', subject: SUBJECT, timeline, now: NOW }),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['TimelineRequested', 'TimelineCompleted'],
    );
    const [requested, completed] = events;
    assert.ok(requested?.type === 'TimelineRequested' && completed?.type === 'TimelineCompleted');
    assert.deepEqual([requested.data.refresh, requested.data.reservationId, requested.data.price], [false, null, 0]);
    assert.equal(completed.data.timeline, timeline);
    assert.equal(completed.data.documentsStored, 0);
  });

  it('completes with no timeline for a case without a registry record', () => {
    const events = eventsOf(
      given([]).when({
        type: 'AnswerFromStore',
        requestId: ID,
        accountId: 'acct',
        subject: { caseId: 'sc-inabs-5861', cnr: null },
        timeline: null,
        now: NOW,
      }),
    );
    const completed = events[1];
    assert.ok(completed?.type === 'TimelineCompleted');
    assert.equal(completed.data.timeline, null);
  });

  it('cannot be started as a live fetch', () => {
    const answered = eventsOf(
      given([]).when({ type: 'AnswerFromStore', requestId: ID, accountId: 'acct', subject: SUBJECT, timeline: null, now: NOW }),
    );
    assert.deepEqual(given(answered).when({ type: 'StartLiveFetch', requestId: ID, now: LATER }), {
      ok: false,
      error: { tag: 'NotALiveFetch', requestId: ID },
    });
  });
});

describe('a live fetch', () => {
  it('is admitted running with its reservation, expiring seven days after the request', () => {
    const [requested] = admitted();
    assert.ok(requested?.type === 'TimelineRequested');
    assert.deepEqual(
      [requested.data.refresh, requested.data.reservationId, requested.data.price, requested.data.cnr],
      [true, 'rsv_1', 50, SUBJECT.cnr],
    );
    assert.equal(requested.data.expiresAt, '2025-03-08T10:00:00.000Z');
    assert.equal(jobExpiresAt('2024-02-26T23:30:00.000Z'), '2024-03-04T23:30:00.000Z');
  });

  it('cannot be requested twice under one id', () => {
    assert.deepEqual(given(admitted()).when(admit), { ok: false, error: { tag: 'AlreadyRequested', requestId: ID } });
  });

  it('is charged once when it starts: the reservation becomes the charge, and a retried start records nothing', () => {
    const events = started();
    const start = events[1];
    assert.ok(start?.type === 'LiveFetchStarted');
    assert.deepEqual(start.data, { requestId: ID, chargeId: 'rsv_1', amount: 50, startedAt: LATER });
    assert.deepEqual(given(events).when({ type: 'StartLiveFetch', requestId: ID, now: LATER }), { ok: true, events: [] });
  });

  it('completes with the fetched timeline only after it started', () => {
    const timeline = realTimeline();
    const complete: TimelineRequestCommand = { type: 'CompleteLiveFetch', requestId: ID, timeline, documentsStored: 1, now: LATER };
    assert.deepEqual(given(admitted()).when(complete), { ok: false, error: { tag: 'LiveFetchNotStarted', requestId: ID } });
    const done = eventsOf(given(started()).when(complete));
    assert.equal(done.length, 1);
    assert.ok(done[0]?.type === 'TimelineCompleted');
    assert.equal(done[0].data.timeline?.hearings.length, 5);
    assert.equal(done[0].data.documentsStored, 1);
    // A retried completion (the activity ran again after a crash) records nothing more.
    assert.deepEqual(given([...started(), ...done]).when(complete), { ok: true, events: [] });
  });

  it('fails with its charge reversed once started, or its reservation released before', () => {
    const fail: TimelineRequestCommand = { type: 'FailLiveFetch', requestId: ID, code: 'UPSTREAM_TIMEOUT', message: 'slow', now: LATER };
    const afterStart = eventsOf(given(started()).when(fail));
    assert.ok(afterStart[0]?.type === 'TimelineFailed');
    assert.equal(afterStart[0].data.refund, 'reversed');
    const beforeStart = eventsOf(given(admitted()).when(fail));
    assert.ok(beforeStart[0]?.type === 'TimelineFailed');
    assert.equal(beforeStart[0].data.refund, 'released');
    assert.deepEqual(given([...admitted(), ...beforeStart]).when(fail), { ok: true, events: [] });
  });

  it('never fails once completed, and never completes or starts once failed', () => {
    const timeline = realTimeline();
    const completed = [
      ...started(),
      ...eventsOf(given(started()).when({ type: 'CompleteLiveFetch', requestId: ID, timeline, documentsStored: 0, now: LATER })),
    ];
    assert.deepEqual(given(completed).when({ type: 'FailLiveFetch', requestId: ID, code: 'INTERNAL_ERROR', message: 'x', now: LATER }), {
      ok: false,
      error: { tag: 'JobEnded', requestId: ID, status: 'completed' },
    });
    const failed = [
      ...admitted(),
      ...eventsOf(given(admitted()).when({ type: 'FailLiveFetch', requestId: ID, code: 'CASE_NOT_FOUND', message: 'x', now: LATER })),
    ];
    assert.deepEqual(given(failed).when({ type: 'CompleteLiveFetch', requestId: ID, timeline, documentsStored: 0, now: LATER }), {
      ok: false,
      error: { tag: 'JobEnded', requestId: ID, status: 'failed' },
    });
    assert.deepEqual(given(failed).when({ type: 'StartLiveFetch', requestId: ID, now: LATER }), {
      ok: false,
      error: { tag: 'JobEnded', requestId: ID, status: 'failed' },
    });
  });

  it('refuses commands on a job that was never requested', () => {
    assert.deepEqual(given([]).when({ type: 'StartLiveFetch', requestId: ID, now: LATER }), {
      ok: false,
      error: { tag: 'UnknownJob', requestId: ID },
    });
  });
});
