CREATE TABLE "credit_payment_references" (
	"payment_reference" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"grant_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
