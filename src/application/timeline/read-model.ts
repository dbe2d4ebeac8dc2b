/**
 * Inline projection of the timeline-request events into timeline_requests, in the
 * appending transaction: a job's row changes together with its events, so GET
 * /request-timeline/:requestId and the daily live-fetch cap read what the stream says.
 * `workflow_started` is outbox bookkeeping, not a fact of the domain: the dispatcher sets
 * it, and Temporal refuses a second start of the same job anyway.
 */
import type { InlineProjection, RecordedEvent } from '../../ports/event-store.ts';
import type { Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { assertNever } from '../../domain/decider.ts';
import { TIMELINE_REQUEST_EVENT_TYPES, type TimelineRequestEvent } from '../../domain/timeline-request/timeline-request.ts';

async function apply(trx: Trx, event: TimelineRequestEvent): Promise<void> {
  switch (event.type) {
    case 'TimelineRequested': {
      const d = event.data;
      await trx
        .insertInto('timelineRequests')
        .values({
          requestId: d.requestId,
          accountId: d.accountId,
          caseId: d.caseId,
          cnr: d.cnr,
          refresh: d.refresh,
          status: 'running',
          reservationId: d.reservationId,
          createdAt: new Date(d.requestedAt),
          expiresAt: new Date(d.expiresAt),
        })
        .execute();
      return;
    }
    case 'LiveFetchStarted':
      await trx.updateTable('timelineRequests').set({ liveFetched: true }).where('requestId', '=', event.data.requestId).execute();
      return;
    case 'TimelineCompleted': {
      const d = event.data;
      await trx
        .updateTable('timelineRequests')
        .set({ status: 'completed', timeline: d.timeline === null ? null : jsonb(d.timeline), finishedAt: new Date(d.completedAt) })
        .where('requestId', '=', d.requestId)
        .execute();
      return;
    }
    case 'TimelineFailed': {
      const d = event.data;
      await trx
        .updateTable('timelineRequests')
        .set({ status: 'failed', errorCode: d.code, errorMessage: d.message, finishedAt: new Date(d.failedAt) })
        .where('requestId', '=', d.requestId)
        .execute();
      return;
    }
    default:
      assertNever(event);
  }
}

export const timelineReadModel: InlineProjection<Trx> = {
  name: 'timeline-requests',
  handles: TIMELINE_REQUEST_EVENT_TYPES,
  async apply(trx: Trx, events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) await apply(trx, { type: event.type, data: event.data } as TimelineRequestEvent);
  },
};
