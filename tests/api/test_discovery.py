"""Discovery documents tell the truth: `/llms.txt` and the `/.well-known/*` manifests list only what
this instance serves — the admin API only while it is open — and every path they list answers
(never the 404 of a path that is not there)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.routing import Match

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry

TOKEN = "discovery-test-token"
LINK = re.compile(
    r"^- (?:(GET|POST|PUT|PATCH|DELETE) )?\[(?P<path>[^\]]+)\]\(http://test(?P=path)\)"
)
EXAMPLES = {
    "ecosystem": "npm",
    "package": "left-pad",
    "name": "left-pad",
    "version": "1.3.0",
    "slug": "warm-cache",
}


@pytest.fixture(params=[False, True], ids=["admin-closed", "admin-open"])
async def served(
    request: pytest.FixtureRequest, settings: Settings, registry: ReplayRegistry
) -> AsyncIterator[tuple[bool, httpx.AsyncClient]]:
    is_open: bool = request.param
    configured = settings.model_copy(
        update={"public_url": "http://test", "admin_token": TOKEN if is_open else None}
    )
    transport = httpx.ASGITransport(app=registry.app)
    async with build_runtime(configured, transport=transport, clock=lambda: NOW) as runtime:
        app = create_app(configured, runtime=runtime)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            yield is_open, client


def _listed(text: str) -> list[tuple[str | None, str]]:
    """`(METHOD, path)` of every link line in llms.txt (None: a preferred endpoint, no method)."""
    out: list[tuple[str | None, str]] = []
    for line in text.splitlines():
        found = LINK.match(line)
        if found:
            out.append((found.group(1), found.group("path")))
    return out


def _not_there(resp: httpx.Response) -> bool:
    """The 404 of a path nobody serves (a closed admin API answers the same); a 404 about a
    package or record is an answer."""
    if resp.status_code != 404:
        return False
    body = resp.json()
    return body == {"detail": "Not Found"} or str(body.get("type", "")).endswith("/http-404")


def _concrete(path: str) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1).split(":")[0]
        return EXAMPLES.get(name, "00000000-0000-4000-8000-000000000000")

    return re.sub(r"\{([^}]+)\}", one, path)


def _routed(app: Any, method: str | None, path: str) -> bool:
    """A route answers `path` (with `method`, or with some method when None)."""
    scope = {
        "type": "http",
        "method": method or "GET",
        "path": path,
        "root_path": "",
        "headers": [],
    }
    wanted = (Match.FULL,) if method else (Match.FULL, Match.PARTIAL)
    return any(route.matches(scope)[0] in wanted for route in app.routes)


async def test_admin_api_is_listed_only_while_open(
    served: tuple[bool, httpx.AsyncClient],
) -> None:
    is_open, client = served
    text = (await client.get("/llms.txt")).text
    admin_paths = [p for _, p in _listed(text) if p.startswith("/api/admin")]
    assert bool(admin_paths) is is_open, admin_paths
    assert _not_there(await client.get("/api/admin/jobs")) is not is_open


async def test_every_listed_path_is_served(served: tuple[bool, httpx.AsyncClient]) -> None:
    is_open, client = served
    listed = _listed((await client.get("/llms.txt")).text)
    assert len(listed) > 20
    missing: list[tuple[str | None, str, Any]] = []
    for method, path in listed:
        if method is None or path.startswith("/api/live/") or path.endswith("/stream"):
            continue  # event streams never end; their routes are checked like the others below
        headers = {"authorization": f"Bearer {TOKEN}"} if is_open else {}
        resp = await client.request(method, _concrete(path), headers=headers)
        if _not_there(resp):
            missing.append((method, path, resp.json()))
    assert missing == []
    app = client._transport.app  # type: ignore[attr-defined]
    unrouted = [(m, p) for m, p in listed if not _routed(app, m, _concrete(p))]
    assert unrouted == []


async def test_manifest_links_are_served(served: tuple[bool, httpx.AsyncClient]) -> None:
    _, client = served
    manifest = (await client.get("/.well-known/mcp.json")).json()
    plugin = (await client.get("/.well-known/ai-plugin.json")).json()
    links = [*manifest["links"].values(), plugin["api"]["url"], plugin["mcp"]["manifest"]]
    for link in links:
        assert link.startswith("http://test/")
        assert (await client.get(link.removeprefix("http://test"))).status_code == 200, link
