CREATE TABLE "account_events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"account_id" text NOT NULL,
	"mode" text NOT NULL,
	"type" text NOT NULL,
	"api_version" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"source_event_id" text NOT NULL,
	CONSTRAINT "account_events_event_id_unique" UNIQUE("event_id"),
	CONSTRAINT "account_events_source_event_id_unique" UNIQUE("source_event_id")
);
--> statement-breakpoint
CREATE INDEX "account_events_list_idx" ON "account_events" USING btree ("account_id","mode","seq");--> statement-breakpoint
CREATE INDEX "account_events_created_idx" ON "account_events" USING btree ("created_at");