"""Verifying the webhooks the API sends. They follow the Standard Webhooks scheme
(https://www.standardwebhooks.com): ``webhook-signature`` holds one or more space-separated
``v1,<base64 HMAC-SHA256>`` over ``{webhook-id}.{webhook-timestamp}.{body}``, keyed with the
bytes of the endpoint's ``whsec_<base64>`` secret. Several signatures appear while a rotated
secret is still honoured; any one that matches is enough. A timestamp outside the tolerance is
refused, so a captured delivery cannot be replayed later. Deduplicate on ``webhook-id``: a
delivery retried after a lost answer carries the same id.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping
from typing import Any, Literal, TypedDict, cast

WebhookEventType = Literal["analysis.stored", "analysis.failed", "timeline.completed", "timeline.failed"]


class WebhookEvent(TypedDict):
    """What a delivery carries: the event type, when it happened, and ids to fetch the result with."""

    type: str
    timestamp: str
    mode: Literal["live", "test"]
    """Whether it happened in live or in test mode (a crk_test key's call): only endpoints of that mode hear it."""
    data: dict[str, Any]


WebhookVerificationReason = Literal[
    "MISSING_HEADERS", "INVALID_SECRET", "INVALID_TIMESTAMP", "TIMESTAMP_OUT_OF_TOLERANCE", "NO_MATCHING_SIGNATURE", "INVALID_PAYLOAD"
]

SECRET_PREFIX = "whsec_"
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_TIMESTAMP = re.compile(r"^\d{1,12}$")


class WebhookVerificationError(Exception):
    def __init__(self, reason: WebhookVerificationReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            if isinstance(value, (list, tuple)):
                return str(value[0]) if value else None
            return str(value)
    return None


def _secret_key(secret: str) -> bytes:
    text = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else ""
    if not _BASE64.match(text):
        raise WebhookVerificationError("INVALID_SECRET", "the secret is not whsec_ followed by base64")
    try:
        key = base64.b64decode(text, validate=True)
    except binascii.Error as cause:
        raise WebhookVerificationError("INVALID_SECRET", "the secret is not whsec_ followed by base64") from cause
    if not key:
        raise WebhookVerificationError("INVALID_SECRET", "the secret is empty")
    return key


def _body_bytes(payload: str | bytes) -> bytes:
    return payload.encode("utf-8") if isinstance(payload, str) else payload


def sign_webhook(*, id: str, timestamp: int, payload: str | bytes, secret: str) -> str:
    """``v1,<base64>`` for one delivery: what the API sends, for tests that play the sender."""
    mac = hmac.new(_secret_key(secret), f"{id}.{timestamp}.".encode() + _body_bytes(payload), hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode("ascii")


def verify_webhook(
    *,
    payload: str | bytes,
    headers: Mapping[str, Any],
    secret: str,
    tolerance_seconds: int = 300,
    now: float | None = None,
) -> WebhookEvent:
    """Checks a delivery's signature and timestamp and returns its parsed event.

    ``payload`` is the raw request body exactly as received (re-serialised JSON does not
    verify); ``headers`` any mapping, in any letter case. Raises ``WebhookVerificationError``
    with a ``reason`` when the delivery must not be trusted.
    """
    id_ = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not id_ or not timestamp or not signatures:
        raise WebhookVerificationError("MISSING_HEADERS", "webhook-id, webhook-timestamp and webhook-signature are required")
    if not _TIMESTAMP.match(timestamp):
        raise WebhookVerificationError("INVALID_TIMESTAMP", "webhook-timestamp is not whole seconds")
    sent_at = int(timestamp)
    current = int(time.time() if now is None else now)
    if abs(current - sent_at) > tolerance_seconds:
        raise WebhookVerificationError("TIMESTAMP_OUT_OF_TOLERANCE", "webhook-timestamp is too far from now (a replay, or a skewed clock)")
    expected = sign_webhook(id=id_, timestamp=sent_at, payload=payload, secret=secret).encode("ascii")
    # Every candidate is compared (no early exit), so timing does not reveal which one matched.
    matched = False
    for candidate in signatures.split(" "):
        if candidate.startswith("v1,") and hmac.compare_digest(candidate.encode("utf-8"), expected):
            matched = True
    if not matched:
        raise WebhookVerificationError("NO_MATCHING_SIGNATURE", "no v1 signature matches this secret and body")
    try:
        event = json.loads(_body_bytes(payload))
    except ValueError as cause:
        raise WebhookVerificationError("INVALID_PAYLOAD", "the signed body is not JSON") from cause
    if not isinstance(event, dict):
        raise WebhookVerificationError("INVALID_PAYLOAD", "the signed body is not a JSON object")
    return cast(WebhookEvent, event)
