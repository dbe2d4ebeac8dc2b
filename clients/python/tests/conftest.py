"""Fixtures: known answers made by the service's own code, and the started service.

The vectors come from test/support/python-sdk-vectors.ts, run with node at test time (or read
from COURT_RECORDS_SERVER_VECTORS when the caller made them already). The live tests need
COURT_RECORDS_BASE_URL and COURT_RECORDS_API_KEY; without them they skip, unless
COURT_RECORDS_REQUIRE_LIVE=1 (as CI sets it), where a missing service fails the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def server_vectors() -> dict:
    given = os.environ.get("COURT_RECORDS_SERVER_VECTORS")
    if given:
        return json.loads(Path(given).read_text(encoding="utf-8"))
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to make the server's vectors (or set COURT_RECORDS_SERVER_VECTORS)")
    made = subprocess.run(
        [node, "--import", "tsx", "test/support/python-sdk-vectors.ts"], cwd=REPO, capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(made.stdout)


@pytest.fixture(scope="session")
def live() -> dict[str, str]:
    names = ("COURT_RECORDS_BASE_URL", "COURT_RECORDS_API_KEY", "COURT_RECORDS_EMPTY_API_KEY")
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        message = f"no service to test against: {', '.join(missing)} unset"
        if os.environ.get("COURT_RECORDS_REQUIRE_LIVE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return {"base_url": os.environ["COURT_RECORDS_BASE_URL"], "api_key": os.environ["COURT_RECORDS_API_KEY"], "empty_api_key": os.environ["COURT_RECORDS_EMPTY_API_KEY"]}
