"""The clients against the real service (started by test/int/python-sdk.int.test.ts): typed
results and credit headers, one charge per Idempotency-Key even when an answer is lost on the
wire, typed refusals, auto-pagination, waiting for an analysis and a timeline, PDF links, and
the async client doing the same."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from itertools import islice
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from court_records import (
    AsyncCourtRecords,
    AuthenticationError,
    ConflictError,
    CourtRecords,
    CourtRecordsConnectionError,
    InsufficientCreditsError,
    InvalidRequestError,
    NotFoundError,
    RetryPolicy,
)
from court_records.models import AnalyzeAlreadyExists, CaseAnalysisRead

SEARCH_PRICE = 5


@pytest.fixture
def client(live):
    with CourtRecords(base_url=live["base_url"], api_key=live["api_key"], retry=RetryPolicy(base_delay=0.05)) as sdk:
        yield sdk


def balance(client: CourtRecords) -> int:
    """The account's spendable credits now (GET /usage)."""
    return client.account.usage().body.data.balance


class CuttingProxy:
    """A TCP proxy in front of the service that drops the connection once the next answer has been sent by the server."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.to_cut = 0
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            self.sockets += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket, answers: bool) -> None:
        try:
            while chunk := source.recv(65536):
                if answers and self.to_cut > 0:
                    self.to_cut -= 1
                    break
                target.sendall(chunk)
        except OSError:
            pass
        for s in (source, target):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.server.close()
        for s in self.sockets:
            s.close()


@pytest.fixture
def proxy(live):
    url = urlsplit(live["base_url"])
    cutting = CuttingProxy((url.hostname, url.port))
    yield cutting, urlunsplit(url._replace(netloc=f"127.0.0.1:{cutting.port}"))
    cutting.close()


def test_a_charged_call_returns_the_typed_body_and_its_credit_headers(client):
    before = balance(client)
    result = client.search.cases(query="union of india", limit=3)
    assert result.status == 200 and len(result.body.data) == 3
    assert all(hit.case_id and hit.court.name for hit in result.body.data)
    assert result.credits_charged == SEARCH_PRICE
    assert balance(client) == before - SEARCH_PRICE
    # X-Credits-Remaining is sent when the service knows the balance at answer time.
    assert result.credits_remaining in (None, before - SEARCH_PRICE)
    assert result.request_id and not result.replayed
    assert result.idempotency_key and result.idempotency_key.startswith("sdk-")
    case = client.cases.get(result.body.data[0].case_id)
    assert case.body.data.case_id == result.body.data[0].case_id and case.idempotency_key is None


def test_public_calls_need_no_key(live):
    with CourtRecords(base_url=live["base_url"]) as anonymous:
        assert len(anonymous.reference.courts().body.data.courts) > 0
        assert anonymous.public.health().body.root.status == "ok"


def test_the_same_key_replays_and_charges_once(client):
    key = f"py-replay-{uuid.uuid4()}"
    before = balance(client)
    first = client.search.cases(query="land acquisition", limit=2, idempotency_key=key)
    second = client.search.cases(query="land acquisition", limit=2, idempotency_key=key)
    assert (first.replayed, second.replayed) == (False, True)
    assert second.body == first.body and second.idempotency_key == first.idempotency_key == key
    assert balance(client) == before - SEARCH_PRICE


def test_an_answer_cut_on_the_wire_is_retried_with_the_generated_key_and_charged_once(client, live, proxy):
    cutting, proxied_url = proxy
    before = balance(client)
    with CourtRecords(base_url=proxied_url, api_key=live["api_key"], retry=RetryPolicy(base_delay=0.05)) as through:
        cutting.to_cut = 1
        result = through.search.cases(query="murder", limit=2)
    assert result.replayed, "the retry was answered from the first attempt's record"
    assert balance(client) == before - SEARCH_PRICE


def test_without_retries_the_cut_raises_with_the_key_to_retry_with_and_still_one_charge(client, live, proxy):
    cutting, proxied_url = proxy
    before = balance(client)
    with CourtRecords(base_url=proxied_url, api_key=live["api_key"], retry=RetryPolicy(max_retries=0)) as through:
        cutting.to_cut = 1
        with pytest.raises(CourtRecordsConnectionError) as caught:
            through.search.cases(query="bail", limit=2)
    key = caught.value.idempotency_key
    assert key
    retried = client.search.cases(query="bail", limit=2, idempotency_key=key)
    assert retried.replayed
    assert balance(client) == before - SEARCH_PRICE


def test_refusals_are_typed_by_status_and_carry_the_code(client, live):
    forged = live["api_key"][:-1] + ("b" if live["api_key"].endswith("a") else "a")
    with CourtRecords(base_url=live["base_url"], api_key=forged) as wrong, pytest.raises(AuthenticationError) as invalid:
        wrong.account.me()
    assert (invalid.value.status, invalid.value.code) == (401, "API_KEY_INVALID") and invalid.value.request_id

    with pytest.raises(NotFoundError) as missing:
        client.cases.get("sc-inabs-does-not-exist")
    assert missing.value.code == "CASE_NOT_FOUND"

    with pytest.raises(InvalidRequestError) as bad:
        client.search.cases(query="x", limit=100_000)
    assert bad.value.code in ("VALIDATION_ERROR", "PAGE_LIMIT_EXCEEDED") and bad.value.idempotency_key

    with CourtRecords(base_url=live["base_url"], api_key=live["empty_api_key"]) as broke, pytest.raises(InsufficientCreditsError) as poor:
        broke.search.cases(query="appeal")
    assert (poor.value.required, poor.value.shortfall) == (SEARCH_PRICE, SEARCH_PRICE - poor.value.balance)
    assert poor.value.top_up_url


def test_a_reused_key_with_another_body_is_refused_and_not_retried(live):
    sleeps: list[float] = []
    with CourtRecords(base_url=live["base_url"], api_key=live["api_key"], sleep=sleeps.append) as sdk:
        key = f"py-reused-{uuid.uuid4()}"
        sdk.search.cases(query="tax", limit=1, idempotency_key=key)
        with pytest.raises(ConflictError) as reused:
            sdk.search.cases(query="contract", limit=1, idempotency_key=key)
    assert (reused.value.code, reused.value.idempotency_key, sleeps) == ("IDEMPOTENCY_KEY_REUSED", key, [])


def test_auto_pagination_follows_the_cursor_through_every_page(client):
    one_page = [hit.case_id for hit in client.search.cases(query="land acquisition", limit=12).body.data]
    paged = [hit.case_id for hit in islice(client.search.cases_auto_paginate(query="land acquisition", limit=5), 12)]
    assert paged == one_page and len(set(paged)) == 12


def test_a_pdf_link_decrypts_and_downloads(client):
    pdf = client.cases.pdf_url("sc-inabs-5861")
    assert pdf.result.credits_charged == 5
    download = httpx.get(pdf.url)
    assert download.status_code == 200 and download.content[:5] == b"%PDF-"


def analysable_case(client: CourtRecords, taken: set[str]) -> str:
    """A case with readable text, no analysis yet, and not one an earlier test took."""
    for hit in islice(client.search.cases_auto_paginate(query="union of india", limit=50), 500):
        if hit.has_analysis or hit.case_id in taken or hit.case_id == "sc-inabs-5861":
            continue
        if client.cases.get(hit.case_id).body.data.text:
            taken.add(hit.case_id)
            return hit.case_id
    raise AssertionError("no case with readable text and without an analysis")


TAKEN: set[str] = set()


def test_create_and_wait_polls_until_the_run_is_stored(client):
    case_id = analysable_case(client, TAKEN)
    created = client.analysis.create(case_id)
    assert created.status == 202 and created.body.data.status == "running" and created.idempotency_key
    assert created.retry_after == created.body.meta.retry_after_seconds
    stored = client.wait_for_analysis(case_id, run_id=created.body.data.run_id, poll_interval=1, timeout=240)
    assert isinstance(stored.body, CaseAnalysisRead)
    assert stored.body.data.run_id == created.body.data.run_id and stored.body.data.analysis.summary
    again = client.analysis.create_and_wait(case_id)
    assert isinstance(again.body, AnalyzeAlreadyExists)


def test_a_timeline_from_the_store_completes_and_costs_nothing(client):
    accepted = client.timeline.request(case_id="sc-inabs-5861")
    done = client.wait_for_timeline(accepted.body.data.request_id, poll_interval=1, timeout=60)
    assert done.body.data.status == "completed" and done.body.data.case_id == "sc-inabs-5861"
    assert accepted.credits_charged == 0


def test_events_list_what_webhooks_announce_and_page_from_the_last_id_seen(client):
    # The analysis and the timeline above are facts the webhook projector records as events, a moment later.
    deadline = time.monotonic() + 60
    while True:
        events = list(client.events.auto_paginate(order="asc", limit=2))
        if {e.root.type for e in events} >= {"analysis.stored", "timeline.completed"} or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert {"analysis.stored", "timeline.completed"} <= {e.root.type for e in events}
    ids = [e.root.id for e in events]
    assert len(set(ids)) == len(ids)
    missed = list(client.events.auto_paginate(order="asc", limit=1, starting_after=ids[0]))
    assert [e.root.id for e in missed] == ids[1:]
    assert client.events.get(ids[0]).body.data.root.id == ids[0]
    assert client.events.list(type="timeline.completed").body.data[0].root.type == "timeline.completed"


def test_the_async_client_does_the_same(live):
    async def run():
        async with AsyncCourtRecords(base_url=live["base_url"], api_key=live["api_key"]) as sdk:
            me, page = await asyncio.gather(sdk.account.me(), sdk.search.cases(query="land acquisition", limit=6))
            paged = []
            async for hit in sdk.search.cases_auto_paginate(query="land acquisition", limit=4):
                paged.append(hit.case_id)
                if len(paged) == 6:
                    break
            with pytest.raises(NotFoundError):
                await sdk.cases.get("sc-inabs-does-not-exist")
            case_id = analysable_case(CourtRecords(base_url=live["base_url"], api_key=live["api_key"]), TAKEN)
            stored = await sdk.analysis.create_and_wait(case_id, poll_interval=1, timeout=240)
            pdf = await sdk.cases.pdf_url("sc-inabs-5861")
            return me, page, paged, stored, pdf

    me, page, paged, stored, pdf = asyncio.run(run())
    assert me.body.data.email and me.body.data.tier == "enterprise"
    assert len(set(paged)) == 6 and paged[:4] == [hit.case_id for hit in page.body.data][:4]
    assert stored.body.data.has_analysis and stored.body.data.analysis.summary
    assert pdf.url.startswith(live["base_url"])
