ALTER TABLE "webhook_deliveries" ADD COLUMN "last_outcome" text;--> statement-breakpoint
-- Deliveries attempted before the column: their outcome read from the status and error kept then.
UPDATE "webhook_deliveries" SET "last_outcome" = CASE
  WHEN "last_response_status" BETWEEN 200 AND 299 THEN 'delivered'
  WHEN "last_response_status" BETWEEN 300 AND 399 THEN 'http_3xx'
  WHEN "last_response_status" BETWEEN 400 AND 499 THEN 'http_4xx'
  WHEN "last_response_status" IS NOT NULL THEN 'http_5xx'
  WHEN "last_error" LIKE 'WebhookAddressRefusedError%' THEN 'address_refused'
  ELSE 'no_answer'
END WHERE "attempts" > 0;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_last_outcome" CHECK ("webhook_deliveries"."last_outcome" in ('delivered', 'no_answer', 'http_3xx', 'http_4xx', 'http_5xx', 'address_refused'));
