/**
 * The case store: one row per court document or registry record, as ingested from the
 * corpus. Not event-sourced: records are facts from the courts, replaced idempotently by
 * content hash; restriction under the removal policy is the one flag we own. Every insert
 * and update stamps the row with the writing transaction and a change sequence (a trigger
 * in a custom migration), so async projectors (the search index) can follow the table
 * like an event log without skipping a row committed late.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, date, index, jsonb, pgSequence, pgTable, text, timestamp, integer } from 'drizzle-orm/pg-core';
import { xid8 } from './types.ts';

export const casesChangeSeq = pgSequence('cases_change_seq');

export const cases = pgTable(
  'cases',
  {
    caseId: text('case_id').primaryKey(),
    source: text('source').notNull(),
    sourceRef: text('source_ref').notNull(),
    caseNumber: text('case_number').notNull(),
    caseNumberNormalised: text('case_number_normalised').notNull(),
    courtCode: text('court_code').notNull(),
    courtName: text('court_name').notNull(),
    courtLevel: text('court_level').notNull(),
    bench: text('bench'),
    caseType: text('case_type'),
    title: text('title'),
    petitioners: jsonb('petitioners').notNull(),
    respondents: jsonb('respondents').notNull(),
    judges: jsonb('judges').notNull(),
    decisionDate: date('decision_date', { mode: 'string' }),
    filingDate: date('filing_date', { mode: 'string' }),
    decisionYear: integer('decision_year'),
    citations: jsonb('citations').notNull(),
    text: text('text'),
    summary: text('summary'),
    documentBearing: boolean('document_bearing').notNull(),
    restricted: boolean('restricted').notNull().default(false),
    quirks: jsonb('quirks').notNull(),
    extra: jsonb('extra').notNull(),
    contentHash: text('content_hash').notNull(),
    ingestedAt: timestamp('ingested_at', { withTimezone: true }).notNull(),
    changeXid: xid8('change_xid')
      .notNull()
      .default(sql`pg_current_xact_id()`),
    changeSeq: bigint('change_seq', { mode: 'number' })
      .notNull()
      .default(sql`nextval('cases_change_seq')`),
  },
  (t) => [
    index('cases_case_number_norm_idx').on(t.caseNumberNormalised),
    index('cases_change_idx').on(t.changeXid, t.changeSeq),
    index('cases_court_year_idx').on(t.courtCode, t.decisionYear),
    index('cases_source_ref_idx').on(t.source, t.sourceRef),
  ],
);

export const ingestRejections = pgTable(
  'ingest_rejections',
  {
    source: text('source').notNull(),
    sourceRef: text('source_ref').notNull(),
    reason: text('reason').notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('ingest_rejections_source_idx').on(t.source, t.sourceRef)],
);
