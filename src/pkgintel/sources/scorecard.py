"""
OpenSSF Scorecard API client (https://api.scorecard.dev, formerly api.securityscorecards.dev).

`GET /projects/{host}/{owner}/{repo}` answers the latest result Scorecard's weekly scan stored for a
repository: `date`, `repo.{name, commit}`, `scorecard.{version, commit}`, the aggregate `score`
(0-10) and `checks[]` (`name`, `score` 0-10 or -1 for inconclusive, `reason`, `documentation.url`).
Only repositories Scorecard scans have a result (about a million GitHub projects); others answer
404. No auth, no published rate limit. Fetch here; `parse_scorecard` is pure and tested on the real
body in `../shared/data/registry-fixtures/scorecard/`.

Failures map like the registries' (`pkgintel/transport/upstream.py`): 429/5xx/timeouts →
`RegistryUnavailable`; a non-JSON or shapeless body → `RegistryResponseInvalid`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.json_fields import as_datetime, as_text
from pkgintel.domain.signals.scorecard import Scorecard, ScorecardCheck
from pkgintel.transport.upstream import json_object, raise_if_unavailable, send

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL: Final = "https://api.scorecard.dev"
SOURCE: Final = "api.scorecard.dev"
SCANNED_HOSTS: Final[frozenset[str]] = frozenset({"github.com", "gitlab.com"})
"""Code hosts the Scorecard API holds results for."""


class ScorecardClient:
    """Reads one repository's latest Scorecard result."""

    def __init__(self, client: httpx.AsyncClient, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base = base_url.rstrip("/")

    def url(self, host: str, owner: str, repo: str) -> str:
        return f"{self._base}/projects/{host}/{quote(owner, safe='')}/{quote(repo, safe='')}"

    async def fetch(self, host: str, owner: str, repo: str) -> Scorecard | None:
        """The result, or None when Scorecard has none for the repository (404). Raises
        `RegistryUnavailable` / `RegistryResponseInvalid` as the module docstring says."""
        response = await send(
            self._client,
            "GET",
            self.url(host, owner, repo),
            ecosystem="scorecard",
            source=SOURCE,
            headers={"Accept": "application/json"},
            log=logger,
        )
        if response.status_code == 404:
            return None
        raise_if_unavailable(response, ecosystem="scorecard", source=SOURCE)
        return parse_scorecard(json_object(response, ecosystem="scorecard", source=SOURCE))


def _score(value: Any) -> int | None:
    """A check score: 0-10, or None for Scorecard's -1 (inconclusive) and anything unreadable."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if 0 <= value <= 10 else None


def parse_scorecard(data: Mapping[str, Any]) -> Scorecard:
    """
    A Scorecard API body as `Scorecard`. Checks without a name are skipped; an aggregate outside
    0-10 is None. Raises `RegistryResponseInvalid` when the body has no `checks` list or no `repo`.
    """
    checks = data.get("checks")
    repo = data.get("repo")
    if not isinstance(checks, list) or not isinstance(repo, Mapping):
        raise RegistryResponseInvalid(
            "scorecard", "Scorecard body has no checks", reason="invalid_shape", source=SOURCE
        )
    parsed: list[ScorecardCheck] = []
    for item in checks:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        doc = item.get("documentation")
        parsed.append(
            ScorecardCheck(
                name=item["name"],
                score=_score(item.get("score")),
                reason=as_text(item.get("reason")),
                documentation_url=as_text(doc.get("url")) if isinstance(doc, Mapping) else None,
            )
        )
    aggregate = data.get("score")
    raw_tool = data.get("scorecard")
    tool: Mapping[str, Any] = raw_tool if isinstance(raw_tool, Mapping) else {}
    return Scorecard(
        repository=as_text(repo.get("name")) or "",
        score=float(aggregate)
        if isinstance(aggregate, int | float)
        and not isinstance(aggregate, bool)
        and 0 <= aggregate <= 10
        else None,
        date=as_datetime(data.get("date")),
        scorecard_version=as_text(tool.get("version")),
        commit=as_text(repo.get("commit")),
        checks=tuple(parsed),
    )
