CREATE TABLE "subject_keys" (
	"subject_id" text PRIMARY KEY NOT NULL,
	"material" text,
	"created_at" timestamp with time zone NOT NULL,
	"shredded_at" timestamp with time zone
);
--> statement-breakpoint
-- Erasure of a person whose events were written before personal fields were sealed: the one
-- change the log admits. Only inside a transaction that names the stream being erased
-- (set_config('court_records.erasing_stream', stream, true)), and only to `data`: every id,
-- position, type, metadata and timestamp stays as it was.
CREATE OR REPLACE FUNCTION events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND OLD.stream_id = current_setting('court_records.erasing_stream', true)
     AND NEW.global_position = OLD.global_position AND NEW.stream_id = OLD.stream_id
     AND NEW.stream_position = OLD.stream_position AND NEW.type = OLD.type
     AND NEW.schema_version = OLD.schema_version AND NEW.metadata = OLD.metadata
     AND NEW.transaction_id = OLD.transaction_id AND NEW.recorded_at = OLD.recorded_at THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'events are immutable: % refused', TG_OP
    USING ERRCODE = 'restrict_violation';
END;
$$;
