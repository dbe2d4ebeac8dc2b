-- Test mode's audit trail (compose-test-mode.ts): the same table under its own name, so
-- test-mode calls never appear in a live account's usage or audit, and the reverse.
CREATE TABLE IF NOT EXISTS test_mode_audit_events AS audit_events
