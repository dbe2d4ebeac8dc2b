-- Like 0008: case_chunks exists only where pgvector does, so on a PostgreSQL without it this
-- does nothing, and migrate runs it again (RETRIED_WHILE_MISSING) until the index exists,
-- after 0008 has made the table. The statement is the one drizzle-kit generated from
-- src/db/schema/vectors.ts.
DO $migration$
BEGIN
  IF to_regclass('case_chunks') IS NULL THEN
    RAISE NOTICE 'case_chunks not created (no pgvector): case_chunks_year_idx skipped';
    RETURN;
  END IF;
  CREATE INDEX IF NOT EXISTS "case_chunks_year_idx" ON "case_chunks" USING btree ("decision_year");
END
$migration$;
