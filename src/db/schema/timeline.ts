/**
 * Read model of the timeline-request streams: one row per POST /request-timeline job,
 * kept by an inline projection. GET /request-timeline/:requestId reads it; a row past
 * `expires_at` answers JOB_NOT_FOUND like an unknown id.
 */
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const timelineRequests = pgTable(
  'timeline_requests',
  {
    requestId: text('request_id').primaryKey(),
    accountId: text('account_id').notNull(),
    caseId: text('case_id').notNull(),
    cnr: text('cnr'),
    refresh: boolean('refresh').notNull(),
    status: text('status').notNull(),
    /** The reservation a live fetch pays with; null when no live fetch was asked for. */
    reservationId: text('reservation_id'),
    liveFetched: boolean('live_fetched').notNull().default(false),
    workflowStarted: boolean('workflow_started').notNull().default(false),
    timeline: jsonb('timeline'),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('timeline_requests_status', sql`${t.status} in ('running', 'completed', 'failed')`),
    index('timeline_requests_account_idx').on(t.accountId, t.createdAt),
    index('timeline_requests_unstarted_idx').on(t.workflowStarted, t.createdAt),
  ],
);
