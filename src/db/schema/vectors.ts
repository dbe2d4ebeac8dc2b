/**
 * The vector index: one row per embedded chunk of a case, written only by the embedding
 * projector and read by the pgvector VectorIndex adapter. The filter columns are copied
 * from the case so filters are applied inside the index scan, without a join. The column
 * is a `vector` of no fixed length because the length follows the configured model: each
 * row names its model, and each model gets a partial HNSW index over the column cast to
 * its dimension (the default model's is below; the adapter creates others on start).
 * `input_hash` lets the projector tell a case whose text changed (re-embed) from one whose
 * flags did (update in place). pgvector must be installed: the migration skips the table
 * on a PostgreSQL without it, and semantic search then falls back to keyword search.
 */
import { sql } from 'drizzle-orm';
import { boolean, customType, date, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** pgvector's `vector` without a fixed dimension; values travel in its text form "[0.1,0.2]". */
const vector = customType<{ data: string; driverData: string }>({ dataType: () => 'vector' });

export const DEFAULT_VECTOR_MODEL = 'use-lite-512';

export const caseChunks = pgTable(
  'case_chunks',
  {
    caseId: text('case_id').notNull(),
    chunkNo: integer('chunk_no').notNull(),
    model: text('model').notNull(),
    inputHash: text('input_hash').notNull(),
    embedding: vector('embedding').notNull(),
    courtCode: text('court_code').notNull(),
    caseType: text('case_type'),
    judges: text('judges').array().notNull(),
    decisionYear: integer('decision_year'),
    decisionDate: date('decision_date', { mode: 'string' }),
    caseNumberKey: text('case_number_key').notNull(),
    withheld: boolean('withheld').notNull(),
  },
  (t) => [
    primaryKey({ name: 'case_chunks_pk', columns: [t.caseId, t.chunkNo] }),
    index('case_chunks_use_lite_512_hnsw_idx')
      .using('hnsw', sql`(${t.embedding}::vector(512)) vector_cosine_ops`)
      .where(sql`${t.model} = 'use-lite-512'`),
    index('case_chunks_court_year_idx').on(t.courtCode, t.decisionYear),
    // A year filter alone: the court-and-year index cannot serve it (its leading column is the court).
    index('case_chunks_year_idx').on(t.decisionYear),
    index('case_chunks_judges_idx').using('gin', t.judges),
    index('case_chunks_case_number_idx').on(t.caseNumberKey),
    index('case_chunks_date_idx').on(t.decisionDate),
  ],
);
