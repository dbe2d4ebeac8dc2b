/**
 * The case store: one row per court document or registry record, as ingested from the
 * corpus. Not event-sourced: records are facts from the courts, replaced idempotently by
 * content hash; restriction under the removal policy is the one flag we own.
 */
import { boolean, date, index, jsonb, pgTable, text, timestamp, integer } from 'drizzle-orm/pg-core';

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
  },
  (t) => [
    index('cases_case_number_norm_idx').on(t.caseNumberNormalised),
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
