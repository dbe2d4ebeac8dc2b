/**
 * The PostgreSQL search index: one row per case, written only by the search-index
 * projector through the SearchIndex port's Postgres adapter. `document` is the weighted
 * tsvector (A: party names and case-number key, B: title and summary, C: judgment text),
 * built by the adapter from the SearchDocument, so the raw judgment text is not stored a
 * second time. `party_names` (normalised) and `case_number_key` carry trigram indexes for
 * names with typos and numbers in other printed forms; `parties` (each name apart, GIN)
 * finds a case with exactly the party typed; pg_trgm comes from a custom
 * migration that runs first.
 */
import { sql } from 'drizzle-orm';
import { boolean, customType, date, index, integer, pgTable, text } from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string; driverData: string }>({ dataType: () => 'tsvector' });

export const searchDocuments = pgTable(
  'search_documents',
  {
    caseId: text('case_id').primaryKey(),
    caseNumber: text('case_number').notNull(),
    caseNumberKey: text('case_number_key').notNull(),
    cnr: text('cnr'),
    courtCode: text('court_code').notNull(),
    caseType: text('case_type'),
    judges: text('judges').array().notNull(),
    decisionDate: date('decision_date', { mode: 'string' }),
    decisionYear: integer('decision_year'),
    partyNames: text('party_names').notNull(),
    /** Each party's normalised name on its own: `party_names` runs them together, so "exact party" needs this. */
    parties: text('parties')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    document: tsvector('document').notNull(),
    withheld: boolean('withheld').notNull(),
  },
  (t) => [
    index('search_documents_document_idx').using('gin', t.document),
    index('search_documents_parties_idx').using('gin', t.parties),
    index('search_documents_party_trgm_idx').using('gin', t.partyNames.op('gin_trgm_ops')),
    index('search_documents_case_number_trgm_idx').using('gin', t.caseNumberKey.op('gin_trgm_ops')),
    index('search_documents_case_number_idx').on(t.caseNumberKey),
    index('search_documents_cnr_idx').on(t.cnr),
    index('search_documents_judges_idx').using('gin', t.judges),
    index('search_documents_court_year_idx').on(t.courtCode, t.decisionYear),
    index('search_documents_date_idx').on(t.decisionDate, t.caseId),
    index('search_documents_withheld_idx')
      .on(t.caseId)
      .where(sql`${t.withheld}`),
  ],
);
