/**
 * Webhook read models. `webhook_endpoints` is kept by an inline projection of the
 * `webhooks-<accountId>` streams (a removed endpoint's row goes). `webhook_deliveries` is
 * the delivery outbox: the webhook projector inserts one row per (domain event, endpoint)
 * in the transaction that advances its checkpoint, so a fact committed is never lost to a
 * crash; the unique source key collapses a replayed batch. The dispatcher starts one
 * workflow per row, and each attempt writes its outcome back here.
 */
import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    endpointId: text('endpoint_id').primaryKey(),
    accountId: text('account_id').notNull(),
    url: text('url').notNull(),
    eventTypes: jsonb('event_types').notNull(),
    /** `live` hears the account's live events, `test` its test-mode ones. */
    mode: text('mode').notNull().default('live'),
    sealedSecret: text('sealed_secret').notNull(),
    secretHint: text('secret_hint').notNull(),
    /** The secret before the last rotation, still signing until `previous_valid_until`. */
    previousSealedSecret: text('previous_sealed_secret'),
    previousValidUntil: timestamp('previous_valid_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /**
     * Delivery health, kept by the attempts rather than the stream (operational state, like a
     * delivery's attempts): failures in a row and when the run began, and once they pass the
     * disabling policy, when and why the endpoint was disabled. Its owner re-enables it.
     */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    failingSince: timestamp('failing_since', { withTimezone: true }),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    disabledReason: text('disabled_reason'),
  },
  (t) => [index('webhook_endpoints_account_idx').on(t.accountId)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** The webhook-id: the same on every attempt, so receivers deduplicate on it. */
    deliveryId: text('delivery_id').primaryKey(),
    accountId: text('account_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    /** The domain event it announces, as `<streamId>@<streamPosition>`. */
    sourceEventId: text('source_event_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').notNull(),
    /** `dropped`: never attempted, the account being at its pending cap when the fact was recorded. */
    status: text('status').notNull(),
    workflowStarted: boolean('workflow_started').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    /** Operator-only: the exact status and the kind of error; accounts see `lastOutcome`. */
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    /** The last attempt's coarse outcome (domain/webhook/delivery-outcome.ts), the only one an account sees. */
    lastOutcome: text('last_outcome'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** When the watchdog last found its workflow running: a delivery waiting out a long backoff is asked about again only after a while. */
    watchedAt: timestamp('watched_at', { withTimezone: true }),
  },
  (t) => [
    unique('webhook_deliveries_source_unique').on(t.sourceEventId, t.endpointId),
    check('webhook_deliveries_status', sql`${t.status} in ('pending', 'delivered', 'failed', 'cancelled', 'dropped')`),
    check(
      'webhook_deliveries_last_outcome',
      sql`${t.lastOutcome} in ('delivered', 'no_answer', 'http_3xx', 'http_4xx', 'http_5xx', 'address_refused')`,
    ),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_unstarted_idx').on(t.workflowStarted, t.createdAt),
    // The retention sweep's: ended deliveries by when they ended.
    index('webhook_deliveries_finished_idx').on(t.finishedAt),
    // The watchdog's, every dispatch pass: the few pending deliveries, not every one ever sent.
    index('webhook_deliveries_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending'`),
    // The fair dispatcher's and the pending cap's: one account's pending deliveries, counted often.
    index('webhook_deliveries_account_pending_idx')
      .on(t.accountId, t.workflowStarted)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/**
 * The account's events (GET /events): one row per fact a webhook announces, written by the
 * webhook projector whether or not the account has an endpoint, and kept for the retention
 * window so a receiver that was down can catch up. Per (account, mode) a single projector
 * writes them in order, so `seq` is the order they were committed in and a reader paging
 * by it never skips one committed late. A delivery's body is the row as an event object.
 */
export const accountEvents = pgTable(
  'account_events',
  {
    /** `evt_…`, made by the service. */
    eventId: text('event_id').primaryKey(),
    // Not a key of its own: an index on it alone would tempt the planner to walk every account's events.
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    accountId: text('account_id').notNull(),
    /** `live` or `test`: a key sees its own mode's events only. */
    mode: text('mode').notNull(),
    type: text('type').notNull(),
    /** The shape `data` was written in, fixed when the event was recorded. */
    apiVersion: text('api_version').notNull(),
    data: jsonb('data').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** The domain fact it announces, as the deliveries name it: a batch applied twice records it once. */
    sourceEventId: text('source_event_id').notNull().unique(),
  },
  (t) => [
    index('account_events_list_idx').on(t.accountId, t.mode, t.seq),
    // A type filter: without it a type the account rarely (or never) had scans all its events.
    index('account_events_type_idx').on(t.accountId, t.mode, t.type, t.seq),
    // The retention sweep's.
    index('account_events_created_idx').on(t.createdAt),
  ],
);
