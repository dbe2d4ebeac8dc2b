"""The retry decisions, free of IO so they are tested without a network or a clock.

Retried: network failures and per-attempt timeouts, 408, 500, 502, 503, 504, 409
IDEMPOTENCY_IN_PROGRESS (the first attempt is still running), and 429 when the server says
when to come back. A Retry-After is honoured exactly; when it asks for longer than
``max_delay`` the answer goes back to the caller instead of waiting (a daily cap). The same
rules as the TypeScript SDK's retry loop (sdk/src/retry.ts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRIED_STATUSES = frozenset({408, 500, 502, 503, 504})

_IMF_FIXDATE = re.compile(r"^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard a call tries. Delays are in seconds."""

    max_retries: int = 3
    """Attempts after the first."""
    base_delay: float = 0.5
    """First backoff step; doubles per attempt, with jitter."""
    max_delay: float = 30.0
    """The longest single wait, Retry-After included."""


def backoff_delay(policy: RetryPolicy, attempt: int, random: float) -> float:
    """The wait before retry number ``attempt + 1`` when the server named none; ``random`` in [0, 1)."""
    return min(policy.max_delay, policy.base_delay * 2**attempt) * (0.5 + random / 2)


def retry_after_seconds(header: str | None, now: float) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3); ``now`` in epoch seconds."""
    if header is None:
        return None
    text = header.strip()
    if text.isdigit() and text.isascii():
        return float(int(text))
    if not _IMF_FIXDATE.match(text):
        return None
    try:
        at = parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError):
        return None
    return float(max(0, -(-(at - now) // 1)))


def retry_delay(status: int, code: str | None, retry_after: float | None, backoff: float) -> float | None:
    """How long to wait before retrying this answer, or None when it is final."""
    if status == 429:
        return retry_after
    if status == 409:
        if code != "IDEMPOTENCY_IN_PROGRESS":
            return None
        return backoff if retry_after is None else retry_after
    if status not in RETRIED_STATUSES:
        return None
    return backoff if retry_after is None else retry_after


def should_retry(delay: float | None, policy: RetryPolicy) -> bool:
    """A wait the policy accepts; a longer one (a daily cap) is handed back to the caller."""
    return delay is not None and delay <= policy.max_delay
