CREATE TABLE "api_keys" (
	"key_id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"organization_id" text,
	"name" text NOT NULL,
	"display_key" text NOT NULL,
	"status" text NOT NULL,
	"grace_ends_at" timestamp with time zone,
	"rotated_from" text,
	"replaced_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "dashboard_sessions" (
	"session_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"allowlist" jsonb NOT NULL,
	"strict_allowlist" boolean NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"user_id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"tier" text NOT NULL,
	"organization_id" text,
	"role" text NOT NULL,
	"trial" boolean NOT NULL,
	"email_verified" boolean NOT NULL,
	"api_access" boolean NOT NULL,
	"password_hash" text,
	"limit_overrides" jsonb NOT NULL,
	"standing" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "api_keys_organization_idx" ON "api_keys" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "dashboard_sessions_user_idx" ON "dashboard_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "users_organization_idx" ON "users" USING btree ("organization_id");