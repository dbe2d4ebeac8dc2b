-- Every write to a case row takes a new place in the change feed the search-index projector
-- follows: the writing transaction (so a late commit is never skipped) and a sequence.
CREATE OR REPLACE FUNCTION cases_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id();
  NEW.change_seq := nextval('cases_change_seq');
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER cases_change_feed
  BEFORE INSERT OR UPDATE ON "cases"
  FOR EACH ROW EXECUTE FUNCTION cases_stamp_change();
