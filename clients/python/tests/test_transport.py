"""The retry loop over a scripted transport (httpx.MockTransport): the same Idempotency-Key on
every attempt, Retry-After slept exactly, typed errors carrying the key. The live tests
(test_live.py) repeat the important ones against the real service."""

import json
from importlib import metadata

import httpx
import pytest

from court_records import (
    AsyncCourtRecords,
    CourtRecords,
    CourtRecordsConnectionError,
    CourtRecordsError,
    RateLimitError,
    RetryPolicy,
)


def error(status, code, headers=None, **extra):
    return httpx.Response(status, json={"success": False, "code": code, "message": code.lower(), "error": code.lower(), "requestId": "r", **extra}, headers=headers)


SEARCH_PAGE = {
    "success": True,
    "data": [],
    "meta": {"query": "q", "sortBy": "relevance", "filters": {}, "responseTimeMs": 1, "someRecordsWithheld": False, "restrictedCheckDegraded": False},
    "pagination": {"page": 1, "limit": 1, "offset": 0, "total": 0, "totalPages": 0, "hasMore": False, "nextCursor": None},
}


def scripted(answers):
    seen = []

    def handle(request):
        seen.append(request)
        answer = answers[min(len(seen), len(answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return seen, handle


def sync_client(handle, slept, **over):
    return CourtRecords(
        base_url="http://api.test/api/v1/prod",
        api_key="k",
        http_client=httpx.Client(transport=httpx.MockTransport(handle)),
        sleep=slept.append,
        random=lambda: 0.0,
        retry=over.pop("retry", RetryPolicy(max_retries=3, base_delay=1.0, max_delay=30.0)),
        **over,
    )


def test_one_key_across_every_attempt_and_on_the_result():
    seen, handle = scripted([httpx.ConnectError("reset"), error(503, "UPSTREAM_UNAVAILABLE"), error(409, "IDEMPOTENCY_IN_PROGRESS", {"retry-after": "2"}), httpx.Response(200, json=SEARCH_PAGE)])
    slept = []
    result = sync_client(handle, slept).search.cases(query="q", limit=1)
    keys = {request.headers["idempotency-key"] for request in seen}
    assert len(seen) == 4 and len(keys) == 1
    assert result.idempotency_key == keys.pop()
    assert slept == [0.5, 1.0, 2.0]
    assert json.loads(seen[0].content) == {"query": "q", "limit": 1}


def test_gets_carry_no_key_and_the_api_key_and_user_agent():
    seen, handle = scripted([httpx.Response(200, json={"success": True, "data": {"userId": "u", "email": "e", "name": "n", "role": "MEMBER", "tier": "enterprise", "tierName": "Enterprise", "keyId": "key_1"}})])
    result = sync_client(handle, []).account.me()
    assert "idempotency-key" not in seen[0].headers
    assert seen[0].headers["x-api-key"] == "k"
    assert seen[0].headers["user-agent"].startswith(f"court-records-python/{metadata.version('court-records')} httpx/")
    assert result.idempotency_key is None and result.body.data.user_id == "u"


def test_a_long_retry_after_is_handed_back_with_the_key():
    seen, handle = scripted([error(429, "RATE_LIMITED", {"retry-after": "3600"}, retryAfter=3600, resetTime="x")])
    slept = []
    with pytest.raises(RateLimitError) as caught:
        sync_client(handle, slept).search.cases(query="q", idempotency_key="mine")
    assert slept == [] and len(seen) == 1
    assert caught.value.retry_after == 3600 and caught.value.idempotency_key == "mine" and caught.value.code == "RATE_LIMITED"


def test_the_last_failure_is_a_connection_error_with_the_key():
    seen, handle = scripted([httpx.ReadTimeout("slow")])
    with pytest.raises(CourtRecordsConnectionError) as caught:
        sync_client(handle, [], retry=RetryPolicy(max_retries=2)).search.cases(query="q")
    assert len(seen) == 3
    assert caught.value.idempotency_key == seen[0].headers["idempotency-key"]


def test_a_200_saying_success_false_is_raised():
    _, handle = scripted([httpx.Response(200, json={"success": False, "code": "UPSTREAM_UNAVAILABLE", "message": "m", "error": "m", "requestId": "r"})])
    with pytest.raises(CourtRecordsError) as caught:
        sync_client(handle, []).search.semantic(query="compensation")
    assert (caught.value.status, caught.value.code) == (200, "UPSTREAM_UNAVAILABLE")


def test_redirects_are_not_followed_so_the_key_stays_home():
    seen, handle = scripted([httpx.Response(302, headers={"location": "https://elsewhere.test/steal"})])
    with pytest.raises(CourtRecordsConnectionError):
        sync_client(handle, []).account.me()
    assert [str(r.url) for r in seen] == ["http://api.test/api/v1/prod/me"]


def test_async_client_keeps_the_key_and_sleeps_retry_after():
    import asyncio

    seen, handle = scripted([error(502, "UPSTREAM_UNAVAILABLE", {"retry-after": "3"}), httpx.Response(200, json=SEARCH_PAGE)])
    slept = []

    async def sleep(seconds):
        slept.append(seconds)

    async def run():
        client = AsyncCourtRecords(
            base_url="http://api.test/api/v1/prod", api_key="k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handle)), sleep=sleep
        )
        return await client.search.cases(query="q")

    result = asyncio.run(run())
    assert slept == [3.0]
    assert seen[0].headers["idempotency-key"] == seen[1].headers["idempotency-key"] == result.idempotency_key
