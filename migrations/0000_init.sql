CREATE TABLE "events" (
	"global_position" bigserial PRIMARY KEY NOT NULL,
	"stream_id" text NOT NULL,
	"stream_position" bigint NOT NULL,
	"type" text NOT NULL,
	"schema_version" integer NOT NULL,
	"data" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"transaction_id" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "events_stream_position_unique" UNIQUE("stream_id","stream_position")
);
--> statement-breakpoint
CREATE TABLE "projector_checkpoints" (
	"projector" text PRIMARY KEY NOT NULL,
	"transaction_id" "xid8" NOT NULL,
	"global_position" bigint NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "streams" (
	"stream_id" text PRIMARY KEY NOT NULL,
	"stream_type" text NOT NULL,
	"version" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cases" (
	"case_id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"source_ref" text NOT NULL,
	"case_number" text NOT NULL,
	"case_number_normalised" text NOT NULL,
	"court_code" text NOT NULL,
	"court_name" text NOT NULL,
	"court_level" text NOT NULL,
	"bench" text,
	"case_type" text,
	"title" text,
	"petitioners" jsonb NOT NULL,
	"respondents" jsonb NOT NULL,
	"judges" jsonb NOT NULL,
	"decision_date" date,
	"filing_date" date,
	"decision_year" integer,
	"citations" jsonb NOT NULL,
	"text" text,
	"summary" text,
	"document_bearing" boolean NOT NULL,
	"restricted" boolean DEFAULT false NOT NULL,
	"quirks" jsonb NOT NULL,
	"extra" jsonb NOT NULL,
	"content_hash" text NOT NULL,
	"ingested_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ingest_rejections" (
	"source" text NOT NULL,
	"source_ref" text NOT NULL,
	"reason" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_stream_id_streams_stream_id_fk" FOREIGN KEY ("stream_id") REFERENCES "public"."streams"("stream_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_tx_position_idx" ON "events" USING btree ("transaction_id","global_position");--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" USING btree ("type");--> statement-breakpoint
CREATE INDEX "cases_case_number_norm_idx" ON "cases" USING btree ("case_number_normalised");--> statement-breakpoint
CREATE INDEX "cases_court_year_idx" ON "cases" USING btree ("court_code","decision_year");--> statement-breakpoint
CREATE INDEX "cases_source_ref_idx" ON "cases" USING btree ("source","source_ref");--> statement-breakpoint
CREATE INDEX "ingest_rejections_source_idx" ON "ingest_rejections" USING btree ("source","source_ref");