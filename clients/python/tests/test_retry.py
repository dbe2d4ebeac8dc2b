"""The retry decisions: what is retried, how long it waits, and what is handed back."""

import re
from email.utils import formatdate
from pathlib import Path

import pytest

from court_records._retry import RetryPolicy, backoff_delay, retry_after_seconds, retry_delay, should_retry

POLICY = RetryPolicy(max_retries=3, base_delay=0.5, max_delay=30.0)


def test_backoff_doubles_per_attempt_within_half_to_full_jitter():
    assert [backoff_delay(POLICY, attempt, 0.0) for attempt in range(4)] == [0.25, 0.5, 1.0, 2.0]
    assert [backoff_delay(POLICY, attempt, 0.999999) for attempt in range(4)] == pytest.approx([0.5, 1.0, 2.0, 4.0], rel=1e-5)


def test_backoff_never_exceeds_max_delay():
    assert backoff_delay(POLICY, 20, 0.999999) <= POLICY.max_delay


def test_retry_after_reads_delta_seconds_and_http_dates():
    now = 1_790_000_000.0
    assert retry_after_seconds("7", now) == 7
    assert retry_after_seconds(" 0 ", now) == 0
    assert retry_after_seconds(formatdate(now + 12, usegmt=True), now) == 12
    assert retry_after_seconds(formatdate(now - 60, usegmt=True), now) == 0


@pytest.mark.parametrize("header", [None, "", "-5", "1.5", "soon", "Sun, 29 Nov 2026 10:00:00 +0000"])
def test_retry_after_ignores_what_is_not_a_retry_after(header):
    assert retry_after_seconds(header, 0.0) is None


@pytest.mark.parametrize("status", [408, 500, 502, 503, 504])
def test_transient_statuses_wait_the_backoff_or_the_servers_retry_after(status):
    assert retry_delay(status, "INTERNAL_ERROR", None, 1.5) == 1.5
    assert retry_delay(status, "INTERNAL_ERROR", 4.0, 1.5) == 4.0


def test_a_429_is_retried_only_when_the_server_says_when():
    assert retry_delay(429, "RATE_LIMITED", 9.0, 1.5) == 9.0
    assert retry_delay(429, "RATE_LIMITED", None, 1.5) is None


def test_a_409_is_retried_only_while_the_first_call_runs():
    assert retry_delay(409, "IDEMPOTENCY_IN_PROGRESS", None, 1.5) == 1.5
    assert retry_delay(409, "IDEMPOTENCY_IN_PROGRESS", 2.0, 1.5) == 2.0
    assert retry_delay(409, "IDEMPOTENCY_KEY_REUSED", 2.0, 1.5) is None


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 405, 413])
def test_refusals_are_final(status):
    assert retry_delay(status, "VALIDATION_ERROR", 1.0, 1.5) is None


def test_a_wait_longer_than_max_delay_is_handed_back():
    assert should_retry(30.0, POLICY)
    assert not should_retry(3600.0, POLICY)
    assert not should_retry(None, POLICY)


def test_retries_what_the_customer_guides_error_table_says_the_sdks_retry():
    """docs/customer-guide.md's "SDK retries" column, checked against the TypeScript SDK by test/int/customer-guide.int.test.ts."""
    guide = Path(__file__).resolve().parents[3] / "docs" / "customer-guide.md"
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\d{3}) \| ([^|]+) \|", guide.read_text(encoding="utf-8"), re.M)
    assert len(rows) > 50
    for code, status, says in rows:
        retried = should_retry(retry_delay(int(status), code, 1.0, 0.5), POLICY)
        assert retried == (says.strip() != "no"), f"{code} ({status}): the guide says {says.strip()!r}"
        if says.strip().startswith("after Retry-After"):
            assert retry_delay(int(status), code, None, 0.5) is None, f"{code}: retried without a Retry-After"
            assert not should_retry(retry_delay(int(status), code, 31.0, 0.5), POLICY), f"{code}: waited past 30 s"
