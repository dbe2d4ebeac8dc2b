-- Usage and audit analytics: one row per keyed request, projected from the event log.
--
-- Replays never double count. The projector may deliver an event more than once (a restart
-- before its checkpoint, a rebuild), so the table is a ReplacingMergeTree whose sorting key
-- is event_id alone: rows sharing an event_id collapse into one when parts merge. Merges
-- happen whenever the server likes, so every query reads the table with FINAL, which
-- collapses at read time too:
--
--   SELECT key_id, toDate(occurred_at) AS day, count() AS requests, sum(credits_deducted) AS credits
--   FROM audit_events FINAL
--   WHERE occurred_at >= {from:DateTime64(3, 'UTC')} AND occurred_at < {to:DateTime64(3, 'UTC')}
--   GROUP BY key_id, day
--
-- A replayed row is a copy of the same immutable event, so filtering before or after the
-- collapse gives the same answer. Partitions are by month of occurred_at (the event's own
-- time, so a replay lands in the same partition) and keep FINAL's work per partition.
-- The deduplication window also lets a retried batch carrying the same dedup token be
-- dropped at insert time; correctness does not depend on it.
CREATE TABLE IF NOT EXISTS audit_events
(
    event_id String,
    occurred_at DateTime64(3, 'UTC'),
    request_id String,
    key_id String,
    user_id String,
    organization_id Nullable(String),
    endpoint LowCardinality(String),
    method LowCardinality(String),
    status UInt16,
    response_ms UInt32,
    credits_deducted UInt32,
    client_address String,
    user_agent String,
    INDEX audit_events_key_id key_id TYPE bloom_filter GRANULARITY 4,
    INDEX audit_events_user_id user_id TYPE bloom_filter GRANULARITY 4,
    INDEX audit_events_occurred_at occurred_at TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(occurred_at)
ORDER BY event_id
SETTINGS non_replicated_deduplication_window = 1000
