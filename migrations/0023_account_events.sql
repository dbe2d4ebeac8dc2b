CREATE TABLE "account_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"account_id" text NOT NULL,
	"mode" text NOT NULL,
	"type" text NOT NULL,
	"api_version" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"source_event_id" text NOT NULL,
	CONSTRAINT "account_events_source_event_id_unique" UNIQUE("source_event_id")
);
--> statement-breakpoint
CREATE INDEX "account_events_list_idx" ON "account_events" USING btree ("account_id","mode","seq");--> statement-breakpoint
CREATE INDEX "account_events_type_idx" ON "account_events" USING btree ("account_id","mode","type","seq");--> statement-breakpoint
CREATE INDEX "account_events_created_idx" ON "account_events" USING btree ("created_at");