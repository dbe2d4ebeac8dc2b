ALTER TABLE "search_documents" ADD COLUMN "parties" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "search_documents_parties_idx" ON "search_documents" USING gin ("parties");--> statement-breakpoint
-- Rows indexed before this have no `parties`: the projector writes every case again from the start.
DELETE FROM "projector_checkpoints" WHERE "projector" = 'search-index:postgres';
