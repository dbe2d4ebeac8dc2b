"""The API by resource: ``client.cases.get``, ``client.search.cases``, ``client.analysis.create``…

A method builds its ``Call`` and hands it to the client's ``_send``: the sync client returns the
result, the async one a coroutine of it. Only what loops (auto-pagination, the waits) is written
twice, once per transport. Every method takes ``idempotency_key`` (POSTs), ``timeout`` (seconds
per attempt) and ``max_retries`` as keyword options; body fields are keyword arguments named as
the models' fields (``search_after``) or as the API's (``searchAfter``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from . import models as m
from ._core import CONSOLIDATED_TIMEOUT, ApiResult, Call, json_body
from .errors import AnalysisFailedError, TimelineFailedError, WaitTimeoutError
from .pdf_link import decrypt_pdf_link

DEFAULT_POLL_SECONDS = 5.0
"""Between reads of a running job when the server suggests no interval."""


def _segment(value: str) -> str:
    # A case number in its printed form has slashes and spaces: one path segment all the same.
    return quote(value, safe="")


def _options(idempotency_key: str | None = None, timeout: float | None = None, max_retries: int | None = None) -> dict[str, Any]:
    return {"idempotency_key": idempotency_key, "timeout": timeout, "max_retries": max_retries}


def analysis_state(body: m.CaseAnalysisRead, run_id: str | None) -> str:
    """'stored', 'failed' or 'running' for a read of /cases/{id}/analysis, about ``run_id`` or the latest run."""
    data, latest = body.data, body.meta.latest_run
    if run_id is not None:
        if data.has_analysis and getattr(data, "run_id", None) == run_id:
            return "stored"
        if latest is not None and latest.run_id == run_id and latest.status == "failed":
            return "failed"
        return "running"
    if latest is not None and latest.status == "running":
        return "running"
    if data.has_analysis:
        return "stored"
    return "failed" if latest is not None and latest.status == "failed" else "running"


def next_poll(result: ApiResult[Any], poll_interval: float | None) -> float:
    """The caller's interval when given, else the server's Retry-After, else the default."""
    if poll_interval is not None:
        return poll_interval
    return result.retry_after if result.retry_after is not None else DEFAULT_POLL_SECONDS


@dataclass(frozen=True)
class PdfUrl:
    url: str
    """The plain presigned URL of the judgment PDF."""
    expires_at: str
    result: ApiResult[m.PdfLinkResponse]


class _Resource:
    def __init__(self, client: Any) -> None:
        self._client = client

    def _send(self, call: Call) -> Any:
        return self._client._send(call)


class Public(_Resource):
    def health(self, *, deep: bool | None = None, **options: Any) -> ApiResult[m.HealthGetResponse]:
        query = None if deep is None else {"deep": "1" if deep else "0"}
        return self._send(Call("GET", "/health", {200: m.HealthGetResponse}, query=query, **_options(**options)))

    def coverage(self, *, split: str | None = None, **options: Any) -> ApiResult[m.Coverage]:
        query = None if split is None else {"split": split}
        return self._send(Call("GET", "/coverage", {200: m.Coverage}, query=query, **_options(**options)))


class Reference(_Resource):
    def courts(self, **options: Any) -> ApiResult[m.ReferenceCourtsGetResponse]:
        return self._send(Call("GET", "/reference/courts", {200: m.ReferenceCourtsGetResponse}, **_options(**options)))

    def case_types(self, **options: Any) -> ApiResult[m.ReferenceCaseTypesGetResponse]:
        return self._send(Call("GET", "/reference/case-types", {200: m.ReferenceCaseTypesGetResponse}, **_options(**options)))


class Account(_Resource):
    def me(self, **options: Any) -> ApiResult[m.MeGetResponse]:
        return self._send(Call("GET", "/me", {200: m.MeGetResponse}, **_options(**options)))

    def usage(self, **options: Any) -> ApiResult[m.Usage]:
        return self._send(Call("GET", "/usage", {200: m.Usage}, **_options(**options)))

    def audit(
        self,
        *,
        organization_id: str | None = None,
        user_id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        **options: Any,
    ) -> ApiResult[m.Audit]:
        query = {
            "organizationId": organization_id,
            "userId": user_id,
            "limit": limit,
            "offset": offset,
            "startDate": start_date,
            "endDate": end_date,
        }
        return self._send(Call("GET", "/audit", {200: m.Audit}, query={k: v for k, v in query.items() if v is not None}, **_options(**options)))


class Events(_Resource):
    """Every webhook event is also an event resource (free): a receiver that was down catches up here."""

    def list(
        self,
        *,
        limit: int | None = None,
        order: str | None = None,
        starting_after: str | None = None,
        type: str | None = None,
        created_from: str | None = None,
        created_before: str | None = None,
        **options: Any,
    ) -> ApiResult[m.EventList]:
        """GET /events: one page, newest first unless ``order="asc"``; ``type`` is one or more types, comma-separated."""
        query = {
            "limit": limit,
            "order": order,
            "startingAfter": starting_after,
            "type": type,
            "createdFrom": created_from,
            "createdBefore": created_before,
        }
        return self._send(Call("GET", "/events", {200: m.EventList}, query={k: v for k, v in query.items() if v is not None}, **_options(**options)))

    def get(self, event_id: str, **options: Any) -> ApiResult[m.EventsIdGetResponse]:
        return self._send(Call("GET", f"/events/{_segment(event_id)}", {200: m.EventsIdGetResponse}, **_options(**options)))

    def auto_paginate(self, **params: Any) -> Iterator[m.Event]:
        """Every matching event, page after page by ``starting_after``: with ``order="asc"`` and the last id seen, what was missed."""
        page_params = dict(params)
        while True:
            page: ApiResult[m.EventList] = self.list(**page_params)
            yield from page.body.data
            following = _next_event_params(params, page)
            if following is None:
                return
            page_params = following


def _next_event_params(params: dict[str, Any], page: ApiResult[m.EventList]) -> dict[str, Any] | None:
    pagination = page.body.pagination
    if not pagination.has_more or not pagination.next_cursor:
        return None
    return {**params, "starting_after": pagination.next_cursor}


class Search(_Resource):
    def cases(
        self, *, idempotency_key: str | None = None, timeout: float | None = None, max_retries: int | None = None, **body: Any
    ) -> ApiResult[m.KeywordSearchResponse]:
        """POST /search/cases: one page of matching cases (charged)."""
        return self._send(
            Call(
                "POST",
                "/search/cases",
                {200: m.KeywordSearchResponse},
                json=json_body(m.KeywordSearchRequest, body),
                **_options(idempotency_key, timeout, max_retries),
            )
        )

    def semantic(
        self, *, idempotency_key: str | None = None, timeout: float | None = None, max_retries: int | None = None, **body: Any
    ) -> ApiResult[m.SemanticSearchResponse]:
        return self._send(
            Call(
                "POST",
                "/search/cases/semantic",
                {200: m.SemanticSearchResponse},
                json=json_body(m.SemanticSearchRequest, body),
                **_options(idempotency_key, timeout, max_retries),
            )
        )

    def cases_auto_paginate(self, **params: Any) -> Iterator[m.CaseSearchResult]:
        """Every matching case, page after page (each page a charged call with its own key), following nextCursor."""
        page_params = dict(params)
        while True:
            page: ApiResult[m.KeywordSearchResponse] = self.cases(**page_params)
            yield from page.body.data
            cursor = _next_search_params(params, page)
            if cursor is None:
                return
            page_params = cursor


def _next_search_params(params: dict[str, Any], page: ApiResult[m.KeywordSearchResponse]) -> dict[str, Any] | None:
    pagination = page.body.pagination
    if not pagination.has_more or not pagination.next_cursor:
        return None
    rest = {k: v for k, v in params.items() if k not in ("page", "search_after", "searchAfter")}
    return {**rest, "search_after": pagination.next_cursor}


class Judges(_Resource):
    def search(self, q: str | None = None, **options: Any) -> ApiResult[m.JudgeSearch]:
        return self._send(Call("GET", "/judges/search", {200: m.JudgeSearch}, query=None if q is None else {"q": q}, **_options(**options)))


class Cases(_Resource):
    def get(self, case_id: str, **options: Any) -> ApiResult[m.CaseDetail]:
        """GET /cases/{id}: a document id or a case number in any printed form."""
        return self._send(Call("GET", f"/cases/{_segment(case_id)}", {200: m.CaseDetail}, **_options(**options)))

    def pdf(self, case_id: str, **options: Any) -> ApiResult[m.PdfLinkResponse]:
        """GET /cases/{id}/pdf: the encrypted link (see ``pdf_url`` for the plain one)."""
        return self._send(Call("GET", f"/cases/{_segment(case_id)}/pdf", {200: m.PdfLinkResponse}, **_options(**options)))

    def pdf_url(self, case_id: str, **options: Any) -> PdfUrl:
        """The plain presigned URL of a case's judgment PDF (``pdf``, decrypted) and when it expires."""
        return _pdf_url(self.pdf(case_id, **options))


def _pdf_url(result: ApiResult[m.PdfLinkResponse]) -> PdfUrl:
    link = result.body.data
    return PdfUrl(url=decrypt_pdf_link(link.pdf_url, link.case_id, link.case_number), expires_at=result.body.meta.expires_at, result=result)


class Analysis(_Resource):
    def create(
        self,
        case_id: str,
        *,
        force: bool | None = None,
        allow_remote_fetch: bool | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> ApiResult[m.AnalyzeAccepted | m.AnalyzeAlreadyExists]:
        """POST /cases/{id}/analyze: 202 AnalyzeAccepted (a run started), or 200 AnalyzeAlreadyExists."""
        return self._send(
            Call(
                "POST",
                f"/cases/{_segment(case_id)}/analyze",
                {200: m.AnalyzeAlreadyExists, 202: m.AnalyzeAccepted},
                json=json_body(m.AnalyzeRequest, {"force": force, "allow_remote_fetch": allow_remote_fetch}),
                **_options(idempotency_key, timeout, max_retries),
            )
        )

    def get(self, case_id: str, **options: Any) -> ApiResult[m.CaseAnalysisRead]:
        return self._send(Call("GET", f"/cases/{_segment(case_id)}/analysis", {200: m.CaseAnalysisRead}, **_options(**options)))

    def create_consolidated(
        self,
        case_id: str,
        *,
        force: bool | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> ApiResult[m.ConsolidatedAnalysis]:
        """POST /cases/{id}/analyze-consolidated: synchronous, up to 300 s on the server; the default timeout allows for it."""
        return self._send(
            Call(
                "POST",
                f"/cases/{_segment(case_id)}/analyze-consolidated",
                {200: m.ConsolidatedAnalysis},
                json=json_body(m.AnalyzeConsolidatedRequest, {"force": force}),
                **_options(idempotency_key, timeout or CONSOLIDATED_TIMEOUT, max_retries),
            )
        )

    def wait(
        self, case_id: str, *, run_id: str | None = None, timeout: float = 600.0, poll_interval: float | None = None
    ) -> ApiResult[m.CaseAnalysisRead]:
        """Reads the analysis until ``run_id`` (or the latest run) is stored; raises AnalysisFailedError or WaitTimeoutError."""
        deadline = self._client.now() + timeout
        while True:
            result = self.get(case_id)
            state = analysis_state(result.body, run_id)
            if state == "stored":
                return result
            if state == "failed":
                raise _analysis_failed(result.body, run_id)
            delay = next_poll(result, poll_interval)
            if self._client.now() + delay > deadline:
                raise WaitTimeoutError(f"the analysis of {case_id} was still running after {timeout} s")
            self._client.sleep(delay)

    def create_and_wait(
        self,
        case_id: str,
        *,
        force: bool | None = None,
        allow_remote_fetch: bool | None = None,
        timeout: float = 600.0,
        poll_interval: float | None = None,
        idempotency_key: str | None = None,
    ) -> ApiResult[m.AnalyzeAlreadyExists | m.CaseAnalysisRead]:
        """Requests an analysis and waits for it; a stored one comes back at once (both bodies carry ``data.analysis``)."""
        created: ApiResult[Any] = self.create(case_id, force=force, allow_remote_fetch=allow_remote_fetch, idempotency_key=idempotency_key)
        if isinstance(created.body, m.AnalyzeAlreadyExists):
            return created
        self._client.sleep(_first_wait(created, poll_interval))
        return self.wait(case_id, run_id=created.body.data.run_id, timeout=timeout, poll_interval=poll_interval)


def _first_wait(created: ApiResult[Any], poll_interval: float | None) -> float:
    suggested = created.retry_after if created.retry_after is not None else float(created.body.meta.retry_after_seconds)
    return suggested if poll_interval is None else min(suggested, poll_interval)


def _analysis_failed(body: m.CaseAnalysisRead, run_id: str | None) -> AnalysisFailedError:
    latest = body.meta.latest_run
    return AnalysisFailedError(run_id or (latest.run_id if latest else ""), latest.failure_code if latest else None, latest.failure if latest else None)


class Party(_Resource):
    def screen(
        self, *, idempotency_key: str | None = None, timeout: float | None = None, max_retries: int | None = None, **body: Any
    ) -> ApiResult[m.PartyScreenResponse]:
        """POST /party/screen: a litigation check of one party (charged)."""
        return self._send(
            Call(
                "POST",
                "/party/screen",
                {200: m.PartyScreenResponse},
                json=json_body(m.PartyScreenRequest, body),
                **_options(idempotency_key, timeout, max_retries),
            )
        )

    def screen_batch(
        self, items: list[Any], *, idempotency_key: str | None = None, timeout: float | None = None, max_retries: int | None = None
    ) -> ApiResult[m.PartyScreenBatchResponse]:
        return self._send(
            Call(
                "POST",
                "/party/screen/batch",
                {200: m.PartyScreenBatchResponse},
                json=json_body(m.PartyScreenBatchRequest, {"items": [json_body(m.PartyScreenBatchItem, i) if isinstance(i, dict) else i for i in items]}),
                **_options(idempotency_key, timeout, max_retries),
            )
        )


class Timeline(_Resource):
    def request(
        self,
        *,
        case_id: str | None = None,
        cnr: str | None = None,
        refresh: bool | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> ApiResult[m.TimelineRequestAccepted]:
        """POST /request-timeline: the job, completed at once from the store or running (a live fetch)."""
        return self._send(
            Call(
                "POST",
                "/request-timeline",
                {202: m.TimelineRequestAccepted},
                json=json_body(m.TimelineRequest, {"case_id": case_id, "cnr": cnr, "refresh": refresh}),
                **_options(idempotency_key, timeout, max_retries),
            )
        )

    def get(self, request_id: str, **options: Any) -> ApiResult[m.TimelineJobRead]:
        return self._send(Call("GET", f"/request-timeline/{_segment(request_id)}", {200: m.TimelineJobRead}, **_options(**options)))

    def wait(self, request_id: str, *, timeout: float = 600.0, poll_interval: float | None = None) -> ApiResult[m.TimelineJobRead]:
        """Reads the job until it completes; raises TimelineFailedError or WaitTimeoutError."""
        deadline = self._client.now() + timeout
        while True:
            result = self.get(request_id)
            if _timeline_done(result.body.data):
                return result
            delay = next_poll(result, poll_interval)
            if self._client.now() + delay > deadline:
                raise WaitTimeoutError(f"the timeline request {request_id} was still running after {timeout} s")
            self._client.sleep(delay)


def _timeline_done(job: m.TimelineJob) -> bool:
    if job.status == "failed":
        raise TimelineFailedError(job.request_id, job.error.code if job.error else None, job.error.message if job.error else None)
    return job.status == "completed"


# The asyncio resources: what loops awaits; the rest is inherited (the client's _send is a coroutine function).


class AsyncPublic(Public):
    pass


class AsyncReference(Reference):
    pass


class AsyncAccount(Account):
    pass


class AsyncJudges(Judges):
    pass


class AsyncParty(Party):
    pass


class AsyncEvents(Events):
    async def auto_paginate(self, **params: Any) -> AsyncIterator[m.Event]:  # type: ignore[override]
        page_params = dict(params)
        while True:
            page: ApiResult[m.EventList] = await self.list(**page_params)  # type: ignore[misc]
            for event in page.body.data:
                yield event
            following = _next_event_params(params, page)
            if following is None:
                return
            page_params = following


class AsyncSearch(Search):
    async def cases_auto_paginate(self, **params: Any) -> AsyncIterator[m.CaseSearchResult]:  # type: ignore[override]
        page_params = dict(params)
        while True:
            page: ApiResult[m.KeywordSearchResponse] = await self.cases(**page_params)  # type: ignore[misc]
            for hit in page.body.data:
                yield hit
            cursor = _next_search_params(params, page)
            if cursor is None:
                return
            page_params = cursor


class AsyncCases(Cases):
    async def pdf_url(self, case_id: str, **options: Any) -> PdfUrl:  # type: ignore[override]
        return _pdf_url(await self.pdf(case_id, **options))  # type: ignore[misc]


class AsyncAnalysis(Analysis):
    async def wait(  # type: ignore[override]
        self, case_id: str, *, run_id: str | None = None, timeout: float = 600.0, poll_interval: float | None = None
    ) -> ApiResult[m.CaseAnalysisRead]:
        deadline = self._client.now() + timeout
        while True:
            result: ApiResult[m.CaseAnalysisRead] = await self.get(case_id)  # type: ignore[misc]
            state = analysis_state(result.body, run_id)
            if state == "stored":
                return result
            if state == "failed":
                raise _analysis_failed(result.body, run_id)
            delay = next_poll(result, poll_interval)
            if self._client.now() + delay > deadline:
                raise WaitTimeoutError(f"the analysis of {case_id} was still running after {timeout} s")
            await self._client.sleep(delay)

    async def create_and_wait(  # type: ignore[override]
        self,
        case_id: str,
        *,
        force: bool | None = None,
        allow_remote_fetch: bool | None = None,
        timeout: float = 600.0,
        poll_interval: float | None = None,
        idempotency_key: str | None = None,
    ) -> ApiResult[m.AnalyzeAlreadyExists | m.CaseAnalysisRead]:
        created: ApiResult[Any] = await self.create(  # type: ignore[misc]
            case_id, force=force, allow_remote_fetch=allow_remote_fetch, idempotency_key=idempotency_key
        )
        if isinstance(created.body, m.AnalyzeAlreadyExists):
            return created
        await self._client.sleep(_first_wait(created, poll_interval))
        return await self.wait(case_id, run_id=created.body.data.run_id, timeout=timeout, poll_interval=poll_interval)


class AsyncTimeline(Timeline):
    async def wait(  # type: ignore[override]
        self, request_id: str, *, timeout: float = 600.0, poll_interval: float | None = None
    ) -> ApiResult[m.TimelineJobRead]:
        deadline = self._client.now() + timeout
        while True:
            result: ApiResult[m.TimelineJobRead] = await self.get(request_id)  # type: ignore[misc]
            if _timeline_done(result.body.data):
                return result
            delay = next_poll(result, poll_interval)
            if self._client.now() + delay > deadline:
                raise WaitTimeoutError(f"the timeline request {request_id} was still running after {timeout} s")
            await self._client.sleep(delay)
