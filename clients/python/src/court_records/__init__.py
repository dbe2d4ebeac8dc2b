"""Python client for the Court Records Research API. See README.md for a tour."""

from ._client import AsyncCourtRecords, CourtRecords
from ._core import ApiResult
from ._resources import PdfUrl
from ._retry import RetryPolicy
from ._version import __version__
from .errors import (
    ERROR_CODES,
    AnalysisFailedError,
    AuthenticationError,
    ConflictError,
    CourtRecordsConnectionError,
    CourtRecordsError,
    ErrorCode,
    InsufficientCreditsError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    TimelineFailedError,
    WaitTimeoutError,
)
from .pdf_link import InvalidPdfLinkError, decrypt_pdf_link
from .webhooks import WebhookEvent, WebhookEventType, WebhookVerificationError, sign_webhook, verify_webhook

__all__ = [
    "ERROR_CODES",
    "AnalysisFailedError",
    "ApiResult",
    "AsyncCourtRecords",
    "AuthenticationError",
    "ConflictError",
    "CourtRecords",
    "CourtRecordsConnectionError",
    "CourtRecordsError",
    "ErrorCode",
    "InsufficientCreditsError",
    "InvalidPdfLinkError",
    "InvalidRequestError",
    "NotFoundError",
    "PdfUrl",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "TimelineFailedError",
    "WaitTimeoutError",
    "WebhookEvent",
    "WebhookEventType",
    "WebhookVerificationError",
    "__version__",
    "decrypt_pdf_link",
    "sign_webhook",
    "verify_webhook",
]
