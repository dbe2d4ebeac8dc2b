-- The non-personal detail a route attaches to its audit row (a litigation check's purpose,
-- entity type, and the lengths and counts of what was sent), as JSON text; '' for rows
-- without any, including every row written before this column existed. Adding a column
-- with a default rewrites nothing (old parts read the default), and IF NOT EXISTS makes the
-- statement safe to repeat, as the migration runner requires.
ALTER TABLE audit_events ADD COLUMN IF NOT EXISTS detail String DEFAULT ''
