"""Every refusal the API documents arrives as a ``CourtRecordsError`` subclass chosen by the
answer's status, carrying the API's ``code`` (branch on it, never on the message), the body,
the request id to quote to support, the Retry-After the server asked for, and the
Idempotency-Key the call was sent with (retry with it, and a charged call is not charged twice).
"""

from __future__ import annotations

from typing import Any, get_args

from .models import CodedError

ErrorCode = CodedError.model_fields["code"].annotation
"""The API's error codes (a Literal of the OpenAPI document's enum)."""

ERROR_CODES: frozenset[str] = frozenset(get_args(ErrorCode))


class CourtRecordsError(Exception):
    """A coded refusal from the API."""

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        body: dict[str, Any],
        request_id: str | None,
        retry_after: float | None,
        idempotency_key: str | None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body
        self.request_id = request_id
        self.retry_after = retry_after
        self.idempotency_key = idempotency_key


class InvalidRequestError(CourtRecordsError):
    """400, 405, 413: the request itself is wrong (VALIDATION_ERROR lists the fields in ``details``)."""

    @property
    def details(self) -> list[str]:
        return list(self.body.get("details") or [])


class AuthenticationError(CourtRecordsError):
    """401: the key is missing, malformed, unknown, revoked or expired."""


class InsufficientCreditsError(CourtRecordsError):
    """402: nothing was charged; the body says the price, the balance and where to top up."""

    @property
    def required(self) -> int:
        return int(self.body["required"])

    @property
    def balance(self) -> int:
        return int(self.body["balance"])

    @property
    def shortfall(self) -> int:
        return int(self.body["shortfall"])

    @property
    def top_up_url(self) -> str:
        return str(self.body["topUpUrl"])


class PermissionDeniedError(CourtRecordsError):
    """403: the account, its plan or its tier does not allow this call."""


class NotFoundError(CourtRecordsError):
    """404: no such case, job, document or route."""


class ConflictError(CourtRecordsError):
    """409: the Idempotency-Key was reused with another body, or its first call is still running."""


class RateLimitError(CourtRecordsError):
    """429: ``retry_after`` says when to come back."""


class ServerError(CourtRecordsError):
    """408 and 5xx: a dependency timed out or failed, or the service did; retried before it reaches you."""


_BY_STATUS: dict[int, type[CourtRecordsError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: InvalidRequestError,
    409: ConflictError,
    413: InvalidRequestError,
    429: RateLimitError,
}


def error_class(status: int) -> type[CourtRecordsError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status == 408 or status >= 500 else CourtRecordsError


class CourtRecordsConnectionError(Exception):
    """The service could not be reached, or answered with something that is not the API's error shape."""

    def __init__(self, message: str, *, status: int | None = None, idempotency_key: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.idempotency_key = idempotency_key


class WaitTimeoutError(Exception):
    """A wait_for_* helper gave up before the job ended; the job may still finish, read it later."""


class AnalysisFailedError(Exception):
    """The analysis run failed; its charge was given back."""

    def __init__(self, run_id: str, failure_code: str | None, failure: str | None) -> None:
        super().__init__(f"{failure_code or 'ANALYSIS_FAILED'}: {failure or 'the analysis run failed'}")
        self.run_id = run_id
        self.failure_code = failure_code
        self.failure = failure


class TimelineFailedError(Exception):
    """The live timeline fetch failed; its charge was given back."""

    def __init__(self, request_id: str, code: str | None, message: str | None) -> None:
        super().__init__(f"{code or 'TIMELINE_FAILED'}: {message or 'the timeline fetch failed'}")
        self.request_id = request_id
        self.code = code
