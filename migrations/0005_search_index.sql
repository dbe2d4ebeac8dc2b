CREATE SEQUENCE "public"."cases_change_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "search_documents" (
	"case_id" text PRIMARY KEY NOT NULL,
	"case_number" text NOT NULL,
	"case_number_key" text NOT NULL,
	"cnr" text,
	"court_code" text NOT NULL,
	"case_type" text,
	"judges" text[] NOT NULL,
	"decision_date" date,
	"decision_year" integer,
	"party_names" text NOT NULL,
	"document" "tsvector" NOT NULL,
	"withheld" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "change_xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "change_seq" bigint DEFAULT nextval('cases_change_seq') NOT NULL;--> statement-breakpoint
CREATE INDEX "search_documents_document_idx" ON "search_documents" USING gin ("document");--> statement-breakpoint
CREATE INDEX "search_documents_party_trgm_idx" ON "search_documents" USING gin ("party_names" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_documents_case_number_trgm_idx" ON "search_documents" USING gin ("case_number_key" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_documents_case_number_idx" ON "search_documents" USING btree ("case_number_key");--> statement-breakpoint
CREATE INDEX "search_documents_cnr_idx" ON "search_documents" USING btree ("cnr");--> statement-breakpoint
CREATE INDEX "search_documents_judges_idx" ON "search_documents" USING gin ("judges");--> statement-breakpoint
CREATE INDEX "search_documents_court_year_idx" ON "search_documents" USING btree ("court_code","decision_year");--> statement-breakpoint
CREATE INDEX "search_documents_date_idx" ON "search_documents" USING btree ("decision_date","case_id");--> statement-breakpoint
CREATE INDEX "search_documents_withheld_idx" ON "search_documents" USING btree ("case_id") WHERE "search_documents"."withheld";--> statement-breakpoint
CREATE INDEX "cases_change_idx" ON "cases" USING btree ("change_xid","change_seq");