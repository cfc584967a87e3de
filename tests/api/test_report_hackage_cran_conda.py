"""
Hackage, CRAN and Conda end to end: reports from the recorded registry bodies (served by the
replay registry), recorded 404s, install commands and the other package endpoints.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import newest_first
from tests.api.test_report import assert_complete_report
from tests.shared import requires_shared

pytestmark = requires_shared

CASES = [
    # path, latest, registry source, licence
    ("hackage/aeson", "2.2.3.0", "hackage.haskell.org", None),
    ("cran/readxl", "1.4.5", "packagemanager.posit.co", "MIT"),
    ("conda/pytest", "6.2.5", "api.anaconda.org", "MIT"),
]
# What the recordings cannot tell is null, not guessed: no page of aeson's latest version is
# recorded (licence, repository come from it).
NULLABLE = {"hackage/aeson": {"license", "repository"}}


def _complete(path: str, body: dict[str, Any]) -> None:
    body = dict(body)
    for field in ("license", "repository"):
        if body[field] is None:
            assert field in NULLABLE.get(path, set()), f"{field} is null"
            body[field] = ""
    assert_complete_report(body)


@pytest.mark.parametrize(("path", "latest", "registry_source", "licence"), CASES)
async def test_report_is_complete(
    client: httpx.AsyncClient, path: str, latest: str, registry_source: str, licence: str | None
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    _complete(path, body)
    assert body["latest_version"] == latest
    assert body["license"] == licence
    recent = body["versions"]["recent"]
    assert recent[0] == latest
    assert recent == newest_first(Ecosystem(body["ecosystem"]), recent)
    sources = {s["name"]: s for s in body["_meta"]["sources"]}
    assert sources[registry_source]["kind"] == "registry"
    assert sources[registry_source]["status"] == "ok"
    assert any(s["kind"] == "vulnerabilities" for s in body["_meta"]["sources"])
