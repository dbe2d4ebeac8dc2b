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
  type Refund,
  type TimelineFailureCode,
  type TimelineRequestCommand,
  type TimelineRequestEvent,
} from '../../src/domain/timeline-request/timeline-request.ts';
import { spec } from '../support/decider-spec.ts';
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

const job = spec({ decide: decideTimelineRequest, evolve: evolveTimelineRequest, initialState: initialTimelineRequest });

const admit: TimelineRequestCommand = {
  type: 'AdmitLiveFetch',
  requestId: ID,
  accountId: 'acct',
  subject: SUBJECT,
  reservationId: 'rsv_1',
  price: 50,
  now: NOW,
};

const requestedLive: TimelineRequestEvent = {
  type: 'TimelineRequested',
  data: {
    requestId: ID,
    accountId: 'acct',
    caseId: SUBJECT.caseId,
    cnr: SUBJECT.cnr,
    refresh: true,
    reservationId: 'rsv_1',
    price: 50,
    requestedAt: NOW,
    expiresAt: '2025-03-08T10:00:00.000Z',
  },
};
const liveFetchStarted: TimelineRequestEvent = {
  type: 'LiveFetchStarted',
  data: { requestId: ID, chargeId: 'rsv_1', amount: 50, startedAt: LATER },
};
const start: TimelineRequestCommand = { type: 'StartLiveFetch', requestId: ID, now: LATER };
const failedWith = (code: TimelineFailureCode, message: string, refund: Refund): TimelineRequestEvent => ({
  type: 'TimelineFailed',
  data: { requestId: ID, code, message, refund, failedAt: LATER },
});

describe('a timeline answered from the store', () => {
  it('is requested and completed in one decision, with no reservation and no price', () => {
    const timeline = realTimeline();
    job
      .given([])
      .when({ type: 'AnswerFromStore', requestId: ID, accountId: 'acct', subject: SUBJECT, timeline, now: NOW })
      .then([
        { type: 'TimelineRequested', data: { ...requestedLive.data, refresh: false, reservationId: null, price: 0 } },
        { type: 'TimelineCompleted', data: { requestId: ID, timeline, documentsStored: 0, completedAt: NOW } },
      ]);
  });

  it('completes with no timeline for a case without a registry record', () => {
    const [, completed] = job
      .given([])
      .when({
        type: 'AnswerFromStore',
        requestId: ID,
        accountId: 'acct',
        subject: { caseId: 'sc-inabs-5861', cnr: null },
        timeline: null,
        now: NOW,
      })
      .thenEvents();
    assert.ok(completed?.type === 'TimelineCompleted');
    assert.equal(completed.data.timeline, null);
  });

  it('cannot be started as a live fetch', () => {
    const answered = job
      .given([])
      .when({ type: 'AnswerFromStore', requestId: ID, accountId: 'acct', subject: SUBJECT, timeline: null, now: NOW })
      .thenEvents();
    job.given(answered).when(start).thenRefuses({ tag: 'NotALiveFetch', requestId: ID });
  });
});

describe('a live fetch', () => {
  it('is admitted running with its reservation, expiring seven days after the request', () => {
    job.given([]).when(admit).then([requestedLive]);
    assert.equal(jobExpiresAt('2024-02-26T23:30:00.000Z'), '2024-03-04T23:30:00.000Z');
  });

  it('cannot be requested twice under one id', () => {
    job.given([requestedLive]).when(admit).thenRefuses({ tag: 'AlreadyRequested', requestId: ID });
  });

  it('is charged once when it starts: the reservation becomes the charge, and a retried start records nothing', () => {
    job.given([requestedLive]).when(start).then([liveFetchStarted]);
    job.given([requestedLive, liveFetchStarted]).when(start).thenNothing();
  });

  it('completes with the fetched timeline only after it started', () => {
    const timeline = realTimeline();
    const complete: TimelineRequestCommand = { type: 'CompleteLiveFetch', requestId: ID, timeline, documentsStored: 1, now: LATER };
    job.given([requestedLive]).when(complete).thenRefuses({ tag: 'LiveFetchNotStarted', requestId: ID });
    const completed: TimelineRequestEvent = {
      type: 'TimelineCompleted',
      data: { requestId: ID, timeline, documentsStored: 1, completedAt: LATER },
    };
    job.given([requestedLive, liveFetchStarted]).when(complete).then([completed]);
    assert.equal(timeline.hearings.length, 5);
    // A retried completion (the activity ran again after a crash) records nothing more.
    job.given([requestedLive, liveFetchStarted, completed]).when(complete).thenNothing();
  });

  it('fails with its charge reversed once started, or its reservation released before', () => {
    const fail: TimelineRequestCommand = { type: 'FailLiveFetch', requestId: ID, code: 'UPSTREAM_TIMEOUT', message: 'slow', now: LATER };
    job
      .given([requestedLive, liveFetchStarted])
      .when(fail)
      .then([failedWith('UPSTREAM_TIMEOUT', 'slow', 'reversed')]);
    const released = failedWith('UPSTREAM_TIMEOUT', 'slow', 'released');
    job.given([requestedLive]).when(fail).then([released]);
    job.given([requestedLive, released]).when(fail).thenNothing();
  });

  it('never fails once completed, and never completes or starts once failed', () => {
    const timeline = realTimeline();
    const completed: TimelineRequestEvent = {
      type: 'TimelineCompleted',
      data: { requestId: ID, timeline, documentsStored: 0, completedAt: LATER },
    };
    job
      .given([requestedLive, liveFetchStarted, completed])
      .when({ type: 'FailLiveFetch', requestId: ID, code: 'INTERNAL_ERROR', message: 'x', now: LATER })
      .thenRefuses({ tag: 'JobEnded', requestId: ID, status: 'completed' });
    const failed = job
      .given([requestedLive])
      .when({ type: 'FailLiveFetch', requestId: ID, code: 'CASE_NOT_FOUND', message: 'x', now: LATER })
      .thenEvents();
    job
      .given([requestedLive, ...failed])
      .when({ type: 'CompleteLiveFetch', requestId: ID, timeline, documentsStored: 0, now: LATER })
      .thenRefuses({ tag: 'JobEnded', requestId: ID, status: 'failed' });
    job
      .given([requestedLive, ...failed])
      .when(start)
      .thenRefuses({ tag: 'JobEnded', requestId: ID, status: 'failed' });
  });

  it('refuses commands on a job that was never requested', () => {
    job.given([]).when(start).thenRefuses({ tag: 'UnknownJob', requestId: ID });
  });
});
