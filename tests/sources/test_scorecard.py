"""Scorecard API parser on the real recorded body, and the client's failure mapping."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid, RegistryUnavailable
from pkgintel.services.signals.scorecard import scorecard_project
from pkgintel.sources.scorecard import ScorecardClient, parse_scorecard
from tests.shared import read_shared_json

BODY = (
    "registry-fixtures",
    "scorecard",
    "api.scorecard.dev_projects_github.com_ossf_scorecard.json",
)


def test_real_body_parses_with_checks_and_dates() -> None:
    card = parse_scorecard(read_shared_json(*BODY))
    assert card.repository == "github.com/ossf/scorecard"
    assert card.score == 9.7
    assert card.date is not None and card.date.isoformat().startswith("2025-11-15T02:10:48")
    assert card.scorecard_version == "v5.3.0"
    assert card.commit == "80ee3ecfedf8b19ab8991713a9fdb2e7dcd7262e"
    assert len(card.checks) == 18
    signed = card.check("signed-releases")
    assert signed is not None and signed.score == 10
    pinned = card.check("Pinned-Dependencies")
    assert pinned is not None and pinned.score == 9
    assert pinned.documentation_url and pinned.documentation_url.endswith("#pinned-dependencies")


def test_inconclusive_check_is_none_not_zero() -> None:
    # Branch-Protection is -1 in the real body (Scorecard's token could not read the rules).
    card = parse_scorecard(read_shared_json(*BODY))
    branch = card.check("Branch-Protection")
    assert branch is not None
    assert branch.score is None
    assert branch.reason and "internal error" in branch.reason


def test_out_of_range_aggregate_is_dropped() -> None:
    card = parse_scorecard({"repo": {"name": "github.com/a/b"}, "score": -1, "checks": []})
    assert card.score is None


@pytest.mark.parametrize("body", [{}, {"repo": {"name": "x"}}, {"checks": [], "repo": "x"}])
def test_shapeless_body_is_invalid(body: dict) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_scorecard(body)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/ossf/scorecard", ("github.com", "ossf", "scorecard")),
        ("https://github.com/psf/requests.git", ("github.com", "psf", "requests")),
        ("https://gitlab.com/group/project", ("gitlab.com", "group", "project")),
        ("https://bitbucket.org/a/b", None),
        ("https://github.com/only-owner", None),
        (None, None),
    ],
)
def test_scorecard_project(url: str | None, expected: tuple[str, str, str] | None) -> None:
    assert scorecard_project(url) == expected


async def _client(status: int, body: bytes = b"{}") -> ScorecardClient:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/projects/github.com/ossf/scorecard"
        return httpx.Response(status, content=body)

    return ScorecardClient(httpx.AsyncClient(transport=httpx.MockTransport(handler)), "http://sc")


async def test_not_scanned_is_none() -> None:
    client = await _client(404, b'{"code":5,"message":"not found"}')
    assert await client.fetch("github.com", "ossf", "scorecard") is None


async def test_server_error_is_unavailable() -> None:
    client = await _client(500)
    with pytest.raises(RegistryUnavailable) as err:
        await client.fetch("github.com", "ossf", "scorecard")
    assert err.value.reason == "status.500"


async def test_not_json_is_invalid() -> None:
    client = await _client(200, b"<html>")
    with pytest.raises(RegistryResponseInvalid):
        await client.fetch("github.com", "ossf", "scorecard")
