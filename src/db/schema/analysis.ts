/**
 * Read models of the analysis-request streams, kept by an inline projection in the
 * appending transaction. `analysis_runs` is one row per admitted model run (single-document
 * or consolidated): its status drives the per-account concurrency cap and the dispatcher
 * that starts workflows an admission committed but never started (the outbox). The stored
 * analyses are keyed by what they describe: one case, or one case number for consolidated
 * runs. A case's analysis is shared by every caller; the charge belongs to the run.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const analysisRuns = pgTable(
  'analysis_runs',
  {
    runId: text('run_id').primaryKey(),
    kind: text('kind').notNull(),
    caseId: text('case_id').notNull(),
    caseNumberNormalised: text('case_number_normalised').notNull(),
    accountId: text('account_id').notNull(),
    status: text('status').notNull(),
    /** Ledger charge (single runs) or reservation (consolidated runs) the run pays with. */
    paymentId: text('payment_id').notNull(),
    price: bigint('price', { mode: 'number' }).notNull(),
    allowRemoteFetch: boolean('allow_remote_fetch').notNull(),
    /** The run was admitted to fetch its document remotely (its price includes the surcharge). */
    remoteFetchPlanned: boolean('remote_fetch_planned').notNull().default(false),
    remoteFetched: boolean('remote_fetched').notNull().default(false),
    requestId: text('request_id').notNull(),
    workflowStarted: boolean('workflow_started').notNull().default(false),
    failure: text('failure'),
    admittedAt: timestamp('admitted_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    check('analysis_runs_status', sql`${t.status} in ('running', 'stored', 'failed')`),
    index('analysis_runs_account_running_idx').on(t.accountId, t.status),
    index('analysis_runs_unstarted_idx').on(t.workflowStarted, t.admittedAt),
    // A retry that takes over a call finds the run that call admitted (see AnalysisRuns.admit).
    index('analysis_runs_request_idx').on(t.accountId, t.requestId),
  ],
);

export const caseAnalyses = pgTable('case_analyses', {
  caseId: text('case_id').primaryKey(),
  runId: text('run_id').notNull(),
  model: text('model').notNull(),
  analysis: jsonb('analysis').notNull(),
  storedAt: timestamp('stored_at', { withTimezone: true }).notNull(),
});

export const consolidatedAnalyses = pgTable('consolidated_analyses', {
  caseNumberNormalised: text('case_number_normalised').primaryKey(),
  runId: text('run_id').notNull(),
  model: text('model').notNull(),
  caseIds: jsonb('case_ids').notNull(),
  analysis: jsonb('analysis').notNull(),
  storedAt: timestamp('stored_at', { withTimezone: true }).notNull(),
});
