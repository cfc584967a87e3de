"""Serve `tests/recordings/<ecosystem>/<case>.json` interactions through `httpx.MockTransport`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"


def recording_body(ecosystem: str, case: str, url: str) -> Any:
    """The recorded JSON body answered for `GET url` in one recording (for pure parser tests)."""
    for interaction in _interactions(RECORDINGS / ecosystem / f"{case}.json"):
        if interaction["request"]["url"] == url:
            return interaction["response"]["json"]
    raise KeyError(f"no recording of {url} in {ecosystem}/{case}.json")


def recorded_transport(
    ecosystem: str, case: str, *, seen: list[httpx.Request] | None = None
) -> httpx.MockTransport:
    """
    A transport answering exactly the recorded requests; any other request fails the test.

    Requests are appended to `seen` when given, so tests can assert what was asked for.
    """
    path = RECORDINGS / ecosystem / f"{case}.json"
    responses = {
        (i["request"]["method"], i["request"]["url"]): i["response"] for i in _interactions(path)
    }

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        key = (request.method, str(request.url))
        if key not in responses:
            raise AssertionError(f"no recording for {key} in {path}")
        recorded = responses[key]
        return httpx.Response(
            recorded["status"], headers=recorded.get("headers", {}), json=recorded.get("json")
        )

    return httpx.MockTransport(handler)


def _interactions(path: Path) -> list[dict[str, Any]]:
    interactions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))[
        "interactions"
    ]
    return interactions
