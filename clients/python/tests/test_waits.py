"""The waits: when an analysis counts as stored or failed, and the polling loop's pace, its
end on failure and its deadline, over a scripted transport and a fake clock. The live tests
wait for real runs."""

from types import SimpleNamespace

import httpx
import pytest

from court_records import AnalysisFailedError, CourtRecords, TimelineFailedError, WaitTimeoutError
from court_records._resources import DEFAULT_POLL_SECONDS, analysis_state


def read(has_analysis, run_id=None, latest=None):
    latest_run = None if latest is None else SimpleNamespace(run_id=latest[0], status=latest[1], failure=None, failure_code=None)
    return SimpleNamespace(data=SimpleNamespace(has_analysis=has_analysis, run_id=run_id), meta=SimpleNamespace(latest_run=latest_run))


def test_a_named_run_is_stored_only_when_the_stored_analysis_is_that_run():
    assert analysis_state(read(True, "run-2", ("run-2", "stored")), "run-2") == "stored"
    # A forced re-run: the earlier analysis is still the stored one.
    assert analysis_state(read(True, "run-1", ("run-2", "running")), "run-2") == "running"
    assert analysis_state(read(True, "run-1", ("run-2", "failed")), "run-2") == "failed"
    assert analysis_state(read(False, None, ("run-2", "running")), "run-2") == "running"


def test_without_a_run_the_latest_one_decides():
    assert analysis_state(read(True, "run-1", None), None) == "stored"
    assert analysis_state(read(True, "run-1", ("run-2", "running")), None) == "running"
    assert analysis_state(read(False, None, ("run-1", "failed")), None) == "failed"
    assert analysis_state(read(True, "run-1", ("run-2", "failed")), None) == "stored"


def job(status, error=None):
    return {
        "success": True,
        "data": {
            "requestId": "tlr_1",
            "status": status,
            "caseId": "hc-1",
            "cnr": None,
            "refresh": True,
            "timeline": None,
            "error": error,
            "charge": {"credits": 50, "state": "charged"},
            "pdfUrl": None,
            "statusUrl": "/api/v1/prod/request-timeline/tlr_1",
            "createdAt": "2026-11-29T10:00:00Z",
            "finishedAt": None,
            "expiresAt": "2026-11-30T10:00:00Z",
        },
        "meta": {"creditsCharged": 0},
    }


class FakeClock:
    def __init__(self):
        self.now = 1_000.0
        self.slept = []

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def client_over(answers, clock):
    queue = list(answers)

    def handle(request):
        return queue.pop(0)

    return CourtRecords(
        base_url="http://api.test/api/v1/prod",
        api_key="k",
        http_client=httpx.Client(transport=httpx.MockTransport(handle)),
        sleep=clock.sleep,
        now=lambda: clock.now,
    )


def test_a_timeline_wait_sleeps_the_servers_retry_after_then_the_default():
    clock = FakeClock()
    sdk = client_over(
        [httpx.Response(200, json=job("running"), headers={"retry-after": "3"}), httpx.Response(200, json=job("running")), httpx.Response(200, json=job("completed"))],
        clock,
    )
    assert sdk.wait_for_timeline("tlr_1").body.data.status == "completed"
    assert clock.slept == [3.0, DEFAULT_POLL_SECONDS]


def test_a_poll_interval_overrides_the_servers_pace():
    clock = FakeClock()
    sdk = client_over([httpx.Response(200, json=job("running"), headers={"retry-after": "30"}), httpx.Response(200, json=job("completed"))], clock)
    sdk.wait_for_timeline("tlr_1", poll_interval=1)
    assert clock.slept == [1]


def test_a_failed_fetch_ends_the_wait_with_its_code():
    clock = FakeClock()
    sdk = client_over([httpx.Response(200, json=job("failed", {"code": "UPSTREAM_TIMEOUT", "message": "the portal timed out"}))], clock)
    with pytest.raises(TimelineFailedError) as caught:
        sdk.wait_for_timeline("tlr_1")
    assert caught.value.code == "UPSTREAM_TIMEOUT" and clock.slept == []


def test_the_wait_gives_up_at_its_deadline_without_sleeping_past_it():
    clock = FakeClock()
    sdk = client_over([httpx.Response(200, json=job("running"), headers={"retry-after": "4"}) for _ in range(5)], clock)
    with pytest.raises(WaitTimeoutError):
        sdk.wait_for_timeline("tlr_1", timeout=10)
    assert clock.slept == [4.0, 4.0]


def test_a_failed_analysis_run_ends_the_wait_with_its_failure_code():
    clock = FakeClock()
    body = {
        "success": True,
        "data": {"caseId": "sc-1", "caseNumber": "C.A. 1 of 2020", "hasAnalysis": False},
        "meta": {"creditsCharged": 0, "latestRun": {"runId": "analysis-sc-1-1", "status": "failed", "failure": "the model timed out", "failureCode": "ANALYSIS_TIMED_OUT"}},
    }
    sdk = client_over([httpx.Response(200, json=body)], clock)
    with pytest.raises(AnalysisFailedError) as caught:
        sdk.wait_for_analysis("sc-1", run_id="analysis-sc-1-1")
    assert (caught.value.run_id, caught.value.failure_code) == ("analysis-sc-1-1", "ANALYSIS_TIMED_OUT")
