CREATE TABLE "analysis_runs" (
	"run_id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"case_id" text NOT NULL,
	"case_number_normalised" text NOT NULL,
	"account_id" text NOT NULL,
	"status" text NOT NULL,
	"payment_id" text NOT NULL,
	"price" bigint NOT NULL,
	"allow_remote_fetch" boolean NOT NULL,
	"remote_fetch_planned" boolean DEFAULT false NOT NULL,
	"remote_fetched" boolean DEFAULT false NOT NULL,
	"request_id" text NOT NULL,
	"workflow_started" boolean DEFAULT false NOT NULL,
	"failure" text,
	"admitted_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "analysis_runs_status" CHECK ("analysis_runs"."status" in ('running', 'stored', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "case_analyses" (
	"case_id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"model" text NOT NULL,
	"analysis" jsonb NOT NULL,
	"stored_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "consolidated_analyses" (
	"case_number_normalised" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"model" text NOT NULL,
	"case_ids" jsonb NOT NULL,
	"analysis" jsonb NOT NULL,
	"stored_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "timeline_requests" (
	"request_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"case_id" text NOT NULL,
	"cnr" text,
	"refresh" boolean NOT NULL,
	"status" text NOT NULL,
	"reservation_id" text,
	"live_fetched" boolean DEFAULT false NOT NULL,
	"workflow_started" boolean DEFAULT false NOT NULL,
	"timeline" jsonb,
	"error_code" text,
	"error_message" text,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "timeline_requests_status" CHECK ("timeline_requests"."status" in ('running', 'completed', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "analysis_runs_account_running_idx" ON "analysis_runs" USING btree ("account_id","status");--> statement-breakpoint
CREATE INDEX "analysis_runs_unstarted_idx" ON "analysis_runs" USING btree ("workflow_started","admitted_at");--> statement-breakpoint
CREATE INDEX "timeline_requests_account_idx" ON "timeline_requests" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "timeline_requests_unstarted_idx" ON "timeline_requests" USING btree ("workflow_started","created_at");