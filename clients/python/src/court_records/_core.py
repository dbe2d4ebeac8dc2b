"""What the sync and async clients share: a call's description, its headers, and how an
answer becomes a typed result or a typed error. The two transports (``_client.py``) differ
only in how they send and sleep.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel

from ._retry import retry_after_seconds
from ._version import __version__
from .errors import CourtRecordsConnectionError, error_class

T_co = TypeVar("T_co", covariant=True)

USER_AGENT = f"court-records-python/{__version__} httpx/{httpx.__version__} python/{platform.python_version()}"

DEFAULT_TIMEOUT = 60.0
"""Per attempt. Longer than every bound the server puts on a synchronous call but the consolidated analysis."""

CONSOLIDATED_TIMEOUT = 330.0
"""A consolidated analysis may run 300 s on the server (CONSOLIDATED_DEADLINE_SECONDS); a margin over it."""


@dataclass(frozen=True)
class Call:
    """One API operation with its arguments, before any attempt."""

    method: str
    path: str
    models: Mapping[int, type[BaseModel]]
    """The body's model per success status; an unlisted 2xx (a document) is returned as bytes."""
    query: Mapping[str, Any] | None = None
    json: Any = None
    timeout: float | None = None
    idempotency_key: str | None = None
    max_retries: int | None = None


@dataclass(frozen=True)
class ApiResult(Generic[T_co]):
    """A 2xx answer: the typed body and the headers clients read."""

    body: T_co
    status: int
    request_id: str | None
    credits_charged: int | None
    """X-Credits-Charged, on keyed calls."""
    credits_remaining: int | None
    """The account's balance after the call (X-Credits-Remaining), on keyed calls."""
    replayed: bool
    """True when the server replayed the stored answer of an earlier call with the same Idempotency-Key."""
    idempotency_key: str | None
    """The key this POST was sent with (every attempt sent the same one); None on other methods."""
    retry_after: float | None = None
    """Seconds the server suggests before reading a running job again (Retry-After)."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


def new_idempotency_key() -> str:
    return f"sdk-{uuid.uuid4()}"


def request_headers(api_key: str | None, idempotency_key: str | None) -> dict[str, str]:
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if api_key is not None:
        headers["X-API-Key"] = api_key
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    return headers


def idempotency_key_for(call: Call, generate: Any) -> str | None:
    """A POST gets its key before the first attempt, so every retry sends the same one."""
    if call.method != "POST":
        return None
    return call.idempotency_key if call.idempotency_key is not None else generate()


def json_or_none(response: httpx.Response) -> Any:
    if "json" not in response.headers.get("content-type", "").lower():
        return None
    try:
        return response.json()
    except ValueError:
        return None


def error_code(response: httpx.Response) -> str | None:
    body = json_or_none(response)
    return body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), str) else None


def _header_number(response: httpx.Response, name: str) -> int | None:
    value = response.headers.get(name)
    try:
        return None if value is None or not value.strip() else int(value)
    except ValueError:
        return None


def to_error(response: httpx.Response, idempotency_key: str | None, now: float) -> Exception:
    body = json_or_none(response)
    if not (isinstance(body, dict) and isinstance(body.get("code"), str) and isinstance(body.get("message"), str)):
        return CourtRecordsConnectionError(
            f"HTTP {response.status_code} without an API error body", status=response.status_code, idempotency_key=idempotency_key
        )
    return error_class(response.status_code)(
        status=response.status_code,
        code=body["code"],
        message=body["message"],
        body=body,
        request_id=response.headers.get("x-request-id"),
        retry_after=retry_after_seconds(response.headers.get("retry-after"), now),
        idempotency_key=idempotency_key,
    )


def to_result(call: Call, response: httpx.Response, idempotency_key: str | None, now: float) -> ApiResult[Any]:
    """The typed result of a 2xx answer; raises the typed error of any other, and of a 200 saying success false."""
    if not response.is_success:
        raise to_error(response, idempotency_key, now)
    model = call.models.get(response.status_code)
    if model is None:
        body: Any = response.content
    else:
        raw = json_or_none(response)
        if raw is None:
            raise CourtRecordsConnectionError(
                f"{call.method} {call.path}: the answer is not JSON", status=response.status_code, idempotency_key=idempotency_key
            )
        if isinstance(raw, dict) and raw.get("success") is False:
            raise to_error(response, idempotency_key, now)
        body = model.model_validate(raw)
    return ApiResult(
        body=body,
        status=response.status_code,
        request_id=response.headers.get("x-request-id"),
        credits_charged=_header_number(response, "x-credits-charged"),
        credits_remaining=_header_number(response, "x-credits-remaining"),
        replayed=response.headers.get("idempotency-replayed") == "true",
        idempotency_key=idempotency_key,
        retry_after=retry_after_seconds(response.headers.get("retry-after"), now),
        headers=dict(response.headers),
    )


def json_body(model: type[BaseModel], values: Mapping[str, Any]) -> dict[str, Any]:
    """A request body from keyword arguments named as the model's fields (snake_case) or as the API's (camelCase).

    Values are sent as given: the server validates, so its VALIDATION_ERROR is the one answer.
    """
    aliases = {name: (info.alias or name) for name, info in model.model_fields.items()}
    body: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, BaseModel):
            value = value.model_dump(by_alias=True, exclude_none=True, mode="json")
        body[aliases.get(name, name)] = value
    return body


class CourtRecordsBase:
    """Settings shared by both clients."""

    def __init__(self, *, base_url: str, api_key: str | None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key

    def url(self, call: Call) -> str:
        return f"{self.base_url}{call.path}"


def raise_connection_error(call: Call, attempts: int, cause: BaseException, idempotency_key: str | None) -> None:
    raise CourtRecordsConnectionError(
        f"{call.method} {call.path} failed after {attempts} attempts: {cause!r}", idempotency_key=idempotency_key
    ) from cause

