"""``CourtRecords`` (sync) and ``AsyncCourtRecords``: the same resources over two transports.

Every attempt of a call goes through ``_send``: a POST gets its Idempotency-Key before the
first attempt (unless the caller gave one) and every retry sends the same key, so a retried
charged call is answered from the server's record of the first and charged once. The key
is on the result and on every error. Redirects are not followed, so the API key never
travels to another origin.
"""

from __future__ import annotations

import asyncio
import random as _random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from . import _resources as r
from ._core import (
    DEFAULT_TIMEOUT,
    ApiResult,
    Call,
    CourtRecordsBase,
    error_code,
    idempotency_key_for,
    new_idempotency_key,
    raise_connection_error,
    request_headers,
    to_result,
)
from ._retry import RetryPolicy, backoff_delay, retry_after_seconds, retry_delay, should_retry


class CourtRecords(CourtRecordsBase):
    """The synchronous client.

    >>> client = CourtRecords(base_url="https://api.example.in/api/v1/prod", api_key="crk_live_...")
    >>> client.search.cases(query="land acquisition", limit=5).body.data
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
        random: Callable[[], float] = _random.random,
        idempotency_key: Callable[[], str] = new_idempotency_key,
    ) -> None:
        super().__init__(base_url=base_url, api_key=api_key)
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self._http = http_client or httpx.Client(follow_redirects=False)
        self._sleep, self._now, self._random, self._new_key = sleep, now, random, idempotency_key
        self.cases = r.Cases(self)
        self.search = r.Search(self)
        self.judges = r.Judges(self)
        self.analysis = r.Analysis(self)
        self.party = r.Party(self)
        self.timeline = r.Timeline(self)
        self.account = r.Account(self)
        self.events = r.Events(self)
        self.reference = r.Reference(self)
        self.public = r.Public(self)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> CourtRecords:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sleep(self, seconds: float) -> None:
        self._sleep(seconds)

    def now(self) -> float:
        return self._now()

    def _send(self, call: Call) -> ApiResult[Any]:
        key = idempotency_key_for(call, self._new_key)
        headers = request_headers(self.api_key, key)
        max_retries = self.retry.max_retries if call.max_retries is None else call.max_retries
        for attempt in range(max_retries + 1):
            backoff = backoff_delay(self.retry, attempt, self._random())
            last = attempt >= max_retries
            try:
                response = self._http.request(
                    call.method,
                    self.url(call),
                    params=call.query,
                    json=call.json,
                    headers=headers,
                    timeout=call.timeout or self.timeout,
                )
            except httpx.TransportError as cause:
                # A dropped connection or a timed-out attempt is retried with the same key.
                if last:
                    raise_connection_error(call, attempt + 1, cause, key)
                self._sleep(backoff)
                continue
            if not response.is_success and not last:
                delay = retry_delay(
                    response.status_code, error_code(response), retry_after_seconds(response.headers.get("retry-after"), self._now()), backoff
                )
                if should_retry(delay, self.retry):
                    self._sleep(delay or 0.0)
                    continue
            return to_result(call, response, key, self._now())
        raise AssertionError("unreachable: the last attempt returns or raises")

    def wait_for_analysis(self, case_id: str, **options: Any) -> ApiResult[Any]:
        """Shorthand for ``client.analysis.wait``."""
        return self.analysis.wait(case_id, **options)

    def wait_for_timeline(self, request_id: str, **options: Any) -> ApiResult[Any]:
        """Shorthand for ``client.timeline.wait``."""
        return self.timeline.wait(request_id, **options)


class AsyncCourtRecords(CourtRecordsBase):
    """The asyncio client: the same resources, each call awaited; auto-pagination with ``async for``."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        http_client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        now: Callable[[], float] = time.time,
        random: Callable[[], float] = _random.random,
        idempotency_key: Callable[[], str] = new_idempotency_key,
    ) -> None:
        super().__init__(base_url=base_url, api_key=api_key)
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self._http = http_client or httpx.AsyncClient(follow_redirects=False)
        self._sleep, self._now, self._random, self._new_key = sleep, now, random, idempotency_key
        self.cases = r.AsyncCases(self)
        self.search = r.AsyncSearch(self)
        self.judges = r.AsyncJudges(self)
        self.analysis = r.AsyncAnalysis(self)
        self.party = r.AsyncParty(self)
        self.timeline = r.AsyncTimeline(self)
        self.account = r.AsyncAccount(self)
        self.events = r.AsyncEvents(self)
        self.reference = r.AsyncReference(self)
        self.public = r.AsyncPublic(self)

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncCourtRecords:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def sleep(self, seconds: float) -> None:
        await self._sleep(seconds)

    def now(self) -> float:
        return self._now()

    async def _send(self, call: Call) -> ApiResult[Any]:
        key = idempotency_key_for(call, self._new_key)
        headers = request_headers(self.api_key, key)
        max_retries = self.retry.max_retries if call.max_retries is None else call.max_retries
        for attempt in range(max_retries + 1):
            backoff = backoff_delay(self.retry, attempt, self._random())
            last = attempt >= max_retries
            try:
                response = await self._http.request(
                    call.method,
                    self.url(call),
                    params=call.query,
                    json=call.json,
                    headers=headers,
                    timeout=call.timeout or self.timeout,
                )
            except httpx.TransportError as cause:
                if last:
                    raise_connection_error(call, attempt + 1, cause, key)
                await self._sleep(backoff)
                continue
            if not response.is_success and not last:
                delay = retry_delay(
                    response.status_code, error_code(response), retry_after_seconds(response.headers.get("retry-after"), self._now()), backoff
                )
                if should_retry(delay, self.retry):
                    await self._sleep(delay or 0.0)
                    continue
            return to_result(call, response, key, self._now())
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def wait_for_analysis(self, case_id: str, **options: Any) -> ApiResult[Any]:
        """Shorthand for ``client.analysis.wait``."""
        return await self.analysis.wait(case_id, **options)

    async def wait_for_timeline(self, request_id: str, **options: Any) -> ApiResult[Any]:
        """Shorthand for ``client.timeline.wait``."""
        return await self.timeline.wait(request_id, **options)
