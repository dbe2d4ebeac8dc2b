CREATE TABLE "credit_lots" (
	"account_id" text NOT NULL,
	"grant_id" text NOT NULL,
	"remaining" bigint NOT NULL,
	"expires_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_lots_account_id_grant_id_pk" PRIMARY KEY("account_id","grant_id"),
	CONSTRAINT "credit_lots_not_negative" CHECK ("credit_lots"."remaining" >= 0)
);
--> statement-breakpoint
ALTER TABLE "credit_balances" ADD COLUMN "lots_ready" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_charges" ADD COLUMN "lots" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_reservations" ADD COLUMN "held" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "credit_lots_due_idx" ON "credit_lots" USING btree ("expires_at") WHERE "credit_lots"."remaining" > 0 and "credit_lots"."expires_at" is not null;