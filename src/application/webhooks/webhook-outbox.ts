/**
 * The webhook projector: it follows the event log (checkpointed, never skipping a late
 * commit) and turns each fact a customer may subscribe to into one delivery row per
 * subscribed endpoint of the fact's account, in the transaction that advances its
 * checkpoint. A crash between the fact's commit and its delivery therefore loses nothing:
 * the projector resumes from its checkpoint, and the unique (source event, endpoint) key
 * makes a batch applied twice insert nothing new. An endpoint only hears of facts
 * recorded after it was registered, and of its mode's only (live, or test mode's).
 * Each fact is also recorded as the account's event (GET /events), endpoint or not, in the
 * same write; a delivery's body is that event. Payloads carry ids only, never names or text.
 *
 * An account has at most `pendingCap` deliveries pending: a fact beyond it is still
 * recorded, as a `dropped` delivery the account sees in its history, never attempted. A
 * disabled endpoint hears of nothing until its owner enables it again.
 */
import { createHash } from 'node:crypto';
import type { Db, Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { admitsDelivery, type FairDeliveryLimits } from '../../domain/webhook/fair-delivery.ts';
import { EVENT_API_VERSION, type WebhookEventType, type WebhookPayload } from '../../domain/webhook/webhook-endpoints.ts';
import type { RecordedEvent } from '../../ports/event-store.ts';
import type { AsyncProjection } from '../../projections/projector.ts';

export const WEBHOOK_PROJECTOR = 'webhook-deliveries';

const SOURCE_TYPES = ['AnalysisStored', 'AnalysisRunFailed', 'TimelineCompleted', 'TimelineFailed'] as const;
type SourceType = (typeof SOURCE_TYPES)[number];

const EVENT_TYPE_OF: Readonly<Record<SourceType, WebhookEventType>> = {
  AnalysisStored: 'analysis.stored',
  AnalysisRunFailed: 'analysis.failed',
  TimelineCompleted: 'timeline.completed',
  TimelineFailed: 'timeline.failed',
};

/** The webhook-id of one fact to one endpoint: stable however often the projector meets the fact. */
export function deliveryIdOf(sourceEventId: string, endpointId: string): string {
  return `msg_${createHash('sha256').update(`${sourceEventId}\0${endpointId}`).digest('base64url').slice(0, 32)}`;
}

/** The event id of one fact: stable however often the projector meets the fact. */
export function eventIdOf(sourceEventId: string): string {
  return `evt_${createHash('sha256').update(sourceEventId).digest('base64url').slice(0, 32)}`;
}

/** The account the fact belongs to and the ids a customer fetches the result with. */
async function announce(trx: Trx, event: RecordedEvent): Promise<{ accountId: string; data: WebhookPayload['data'] } | null> {
  const type = event.type as SourceType;
  if (type === 'AnalysisStored' || type === 'AnalysisRunFailed') {
    const { runId } = event.data as { runId: string };
    const run = await trx.selectFrom('analysisRuns').select(['accountId', 'kind', 'caseId']).where('runId', '=', runId).executeTakeFirst();
    return run ? { accountId: run.accountId, data: { runId, kind: run.kind, caseId: run.caseId } } : null;
  }
  const { requestId, code } = event.data as { requestId: string; code?: string };
  const job = await trx
    .selectFrom('timelineRequests')
    .select(['accountId', 'caseId'])
    .where('requestId', '=', requestId)
    .executeTakeFirst();
  if (!job) return null;
  return { accountId: job.accountId, data: { requestId, caseId: job.caseId, ...(code === undefined ? {} : { errorCode: code }) } };
}

/**
 * Whose facts the projector follows. `live`: the service's own log, its deliveries written
 * in the transaction that advances the checkpoint. `test`: test mode's log, in its own
 * database, while the endpoints and the deliveries are the live database's (`into`), so the
 * one dispatcher, worker and dashboard serve both. A write there is outside the checkpoint's
 * transaction: a batch applied again after a crash finds its rows by their unique source
 * key and inserts nothing, so the deliveries still happen once.
 */
export type OutboxSource = { readonly mode: 'live' } | { readonly mode: 'test'; readonly into: Db };

/** What a dropped delivery's row says, for the operator; the account sees its status. */
export const DROPPED_AT_CAP = "the account's pending deliveries were at the cap";

export function webhookOutbox(source: OutboxSource, limits: Pick<FairDeliveryLimits, 'pendingCap'>): AsyncProjection {
  // Test facts' stream positions are another log's: kept apart from live ones in the unique source key.
  const sourcePrefix = source.mode === 'test' ? 'test:' : '';
  return {
    name: WEBHOOK_PROJECTOR,
    handles: SOURCE_TYPES,
    async apply(events, trx) {
      const into: Db = source.mode === 'test' ? source.into : trx;
      for (const event of events) {
        const announced = await announce(trx, event);
        if (!announced) continue;
        const type = EVENT_TYPE_OF[event.type as SourceType];
        const sourceEventId = `${sourcePrefix}${event.streamId}@${String(event.streamPosition)}`;
        const createdAt = event.recordedAt.toISOString();
        const payload: WebhookPayload = {
          id: eventIdOf(sourceEventId),
          object: 'event',
          type,
          createdAt,
          timestamp: createdAt,
          apiVersion: EVENT_API_VERSION,
          mode: source.mode,
          data: announced.data,
        };
        await into
          .insertInto('accountEvents')
          .values({
            eventId: payload.id,
            accountId: announced.accountId,
            mode: source.mode,
            type,
            apiVersion: payload.apiVersion,
            data: jsonb(payload.data),
            createdAt: event.recordedAt,
            sourceEventId,
          })
          .onConflict((oc) => oc.doNothing())
          .execute();
        const endpoints = await into
          .selectFrom('webhookEndpoints')
          .select(['endpointId', 'eventTypes'])
          .where('accountId', '=', announced.accountId)
          .where('mode', '=', source.mode)
          .where('createdAt', '<=', event.recordedAt)
          .where('disabledAt', 'is', null)
          .execute();
        for (const endpoint of endpoints) {
          if (!(endpoint.eventTypes as string[]).includes(type)) continue;
          const pending = await into
            .selectFrom('webhookDeliveries')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('accountId', '=', announced.accountId)
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow();
          const admitted = admitsDelivery(Number(pending.n), limits.pendingCap);
          await into
            .insertInto('webhookDeliveries')
            .values({
              deliveryId: deliveryIdOf(sourceEventId, endpoint.endpointId),
              accountId: announced.accountId,
              endpointId: endpoint.endpointId,
              sourceEventId,
              eventType: type,
              payload: jsonb(payload),
              createdAt: event.recordedAt,
              ...(admitted ? { status: 'pending' } : { status: 'dropped', finishedAt: event.recordedAt, lastError: DROPPED_AT_CAP }),
            })
            .onConflict((oc) => oc.doNothing())
            .execute();
        }
      }
    },
    // Deliveries are history the customer reads, not a derived view: a rebuild does not erase them.
    reset: async () => undefined,
  };
}
