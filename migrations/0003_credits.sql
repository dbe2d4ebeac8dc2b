CREATE TABLE "credit_balances" (
	"account_id" text PRIMARY KEY NOT NULL,
	"balance" bigint NOT NULL,
	"reserved" bigint NOT NULL,
	"version" bigint NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_balances_not_negative" CHECK ("credit_balances"."balance" >= 0 and "credit_balances"."reserved" >= 0)
);
--> statement-breakpoint
CREATE TABLE "credit_charges" (
	"account_id" text NOT NULL,
	"charge_id" text NOT NULL,
	"reservation_id" text,
	"amount" bigint NOT NULL,
	"request_ref" text NOT NULL,
	"reversed" boolean NOT NULL,
	"charged_at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_charges_account_id_charge_id_pk" PRIMARY KEY("account_id","charge_id")
);
--> statement-breakpoint
CREATE TABLE "credit_reservations" (
	"account_id" text NOT NULL,
	"reservation_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"request_ref" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "credit_reservations_account_id_reservation_id_pk" PRIMARY KEY("account_id","reservation_id")
);
--> statement-breakpoint
CREATE INDEX "credit_reservations_open_idx" ON "credit_reservations" USING btree ("status","created_at");