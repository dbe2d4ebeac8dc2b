-- The vector index (case_chunks) needs pgvector. On a PostgreSQL without the extension (or
-- without the right to create it) the table is skipped with a notice rather than failing
-- the whole migration: the service then runs with semantic search falling back to keyword
-- search. Statements are those drizzle-kit generated from src/db/schema/vectors.ts.
DO $migration$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    RAISE NOTICE 'pgvector is not installed: case_chunks not created, semantic search unavailable';
    RETURN;
  END IF;
  BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'no privilege to create extension vector: case_chunks not created, semantic search unavailable';
    RETURN;
  END;
  CREATE TABLE "case_chunks" (
    "case_id" text NOT NULL,
    "chunk_no" integer NOT NULL,
    "model" text NOT NULL,
    "input_hash" text NOT NULL,
    "embedding" vector NOT NULL,
    "court_code" text NOT NULL,
    "case_type" text,
    "judges" text[] NOT NULL,
    "decision_year" integer,
    "decision_date" date,
    "case_number_key" text NOT NULL,
    "withheld" boolean NOT NULL,
    CONSTRAINT "case_chunks_pk" PRIMARY KEY("case_id","chunk_no")
  );
  CREATE INDEX "case_chunks_use_lite_512_hnsw_idx" ON "case_chunks" USING hnsw (("embedding"::vector(512)) vector_cosine_ops) WHERE "case_chunks"."model" = 'use-lite-512';
  CREATE INDEX "case_chunks_court_year_idx" ON "case_chunks" USING btree ("court_code","decision_year");
  CREATE INDEX "case_chunks_judges_idx" ON "case_chunks" USING gin ("judges");
  CREATE INDEX "case_chunks_case_number_idx" ON "case_chunks" USING btree ("case_number_key");
  CREATE INDEX "case_chunks_date_idx" ON "case_chunks" USING btree ("decision_date");
END
$migration$;
