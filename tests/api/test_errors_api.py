"""The four error endpoints and votes, on SQLite (always) and PostgreSQL (when configured)."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.knowledge.error_patterns import error_hash
from pkgintel.knowledge.error_fixes import load_error_knowledge
from pkgintel.runtime.container import Runtime

PIP_TRACE = """Collecting setuptools-scm
  Downloading setuptools_scm-8.0.4-py3-none-any.whl (42 kB)
Installing collected packages: legacy-lib
  Running setup.py install for legacy-lib ... error
Traceback (most recent call last):
  File "/tmp/pip-install-abc123/legacy-lib_1f2e/setup.py", line 2, in <module>
    from distutils.core import setup
ModuleNotFoundError: No module named 'distutils'
"""
NPM_TRACE = """npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
npm ERR!
npm ERR! While resolving: web@0.1.0
npm ERR! Found: react@18.2.0
npm ERR! node_modules/react
npm ERR!   react@"^18.2.0" from the root project
npm ERR!
npm ERR! Could not resolve dependency:
npm ERR! peer react@"^16.8.0 || ^17.0.0" from @material-ui/core@4.12.4
npm ERR! node_modules/@material-ui/core
npm ERR!   @material-ui/core@"^4.12.4" from the root project
npm ERR!
npm ERR! Fix the upstream dependency conflict, or retry
npm ERR! this command with --force or --legacy-peer-deps
npm ERR! to accept an incorrect (and potentially broken) dependency resolution.
npm ERR! A complete log of this run can be found in:
npm ERR!     /Users/me/.npm/_logs/2023-05-01T09_12_44_120Z-debug-0.log
"""
CARGO_TRACE = """   Compiling app v0.1.0 (/home/me/app)
error[E0433]: failed to resolve: use of undeclared crate or module `serde_json`
 --> src/main.rs:3:13
  |
3 |     let v = serde_json::from_str::<Value>(s)?;
  |             ^^^^^^^^^^ use of undeclared crate or module `serde_json`

For more information about this error, try `rustc --explain E0433`.
error: could not compile `app` (bin "app") due to 1 previous error
"""
GO_TRACE = """go: downloading github.com/gin-gonic/gin v1.9.1
main.go:4:2: missing go.sum entry for module providing package github.com/gin-gonic/gin (imported by example.com/app); to add:
	go get example.com/app
"""
UNKNOWN = "zork: the frobnicator 0x7ffee3 refused to quux at /opt/x/y.c:12"


@pytest.fixture
async def loaded(runtime: Runtime) -> Runtime:
    assert runtime.errors is not None
    summary = await runtime.errors.load_knowledge()
    assert summary.total == len(load_error_knowledge()) >= 280
    return runtime


async def _resolve(client: httpx.AsyncClient, text: str) -> dict:
    resp = await client.post("/api/error/resolve", json={"error": text})
    assert resp.status_code == 200, resp.text
    return resp.json()


async def test_resolve_real_traces_returns_fix_with_source(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    expectations = [
        (
            PIP_TRACE,
            "ModuleNotFoundError: No module named 'distutils'",
            "https://peps.python.org/pep-0632/",
        ),
        (NPM_TRACE, "npm code ERESOLVE", None),
        (CARGO_TRACE, "rustc E0433", "https://doc.rust-lang.org/error_codes/E0433.html"),
        (GO_TRACE, None, None),
    ]
    for trace, pattern, source in expectations:
        body = await _resolve(client, trace)
        assert body["status"] == "match", trace
        best = body["solutions"][0]
        if pattern is not None:
            assert best["pattern"] == pattern
        if source is not None:
            assert source in best["sources"]
        assert best["sources"] and all(s.startswith("https://") for s in best["sources"])
        assert best["fix"] and best["confidence"] >= 0.6 and best["why"]
        assert body["normalised"]["error_hash"] and body["miss"] is None
    go = await _resolve(client, GO_TRACE)
    assert "go.sum" in go["solutions"][0]["pattern"]


async def test_unknown_error_is_a_recorded_miss_without_raw_text(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    first = await _resolve(client, UNKNOWN)
    assert first["status"] == "no_match"
    assert first["solutions"] == []
    assert first["miss"] == {"recorded": True, "count": 1}
    assert (
        first["normalised"]["pattern"]
        == "zork: the frobnicator <hex> refused to quux at <path>:<line>"
    )
    second = await _resolve(client, UNKNOWN.replace("0x7ffee3", "0x1").replace("/opt/x", "/srv"))
    assert second["miss"]["count"] == 2
    assert loaded.errors is not None
    misses = await loaded.errors.misses(10)
    assert [(m.pattern, m.count) for m in misses] == [(first["normalised"]["pattern"], 2)]
    assert "frobnicator 0x7ffee3" not in repr(misses)


async def test_search_get_popular_and_errors(client: httpx.AsyncClient, loaded: Runtime) -> None:
    pattern = "error: externally-managed-environment"
    h = error_hash(pattern)
    found = await client.get("/api/error", params={"q": pattern})
    assert found.status_code == 200
    assert found.json()["results"][0]["error_hash"] == h
    by_code = await client.get("/api/error", params={"code": h, "limit": 1})
    assert by_code.json()["results"][0]["pattern"] == pattern
    fulltext = await client.get("/api/error", params={"q": "externally managed environment pip"})
    assert h in [r["error_hash"] for r in fulltext.json()["results"]]

    one = await client.get(f"/api/error/{h}")
    assert one.status_code == 200
    assert one.json()["sources"] == ["https://peps.python.org/pep-0668/"]
    missing = await client.get(f"/api/error/{'0' * 64}")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    bad = await client.get("/api/error/xyz")
    assert bad.status_code == 422

    popular = await client.get("/api/error/popular", params={"limit": 3})
    assert popular.status_code == 200
    assert len(popular.json()["results"]) == 3


async def test_votes_one_per_client_and_rate_limited(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    h = error_hash("error: externally-managed-environment")
    up = await client.post(f"/api/error/{h}/vote", json={"vote": "up"})
    assert up.json() == {
        "error_hash": h,
        "status": "recorded",
        "votes": {"up": 1, "down": 0, "score": 1},
    }
    again = await client.post(f"/api/error/{h}/vote", json={"vote": "up"})
    assert again.json()["status"] == "unchanged"
    assert again.json()["votes"]["up"] == 1
    flipped = await client.post(f"/api/error/{h}/vote", json={"vote": "down"})
    assert flipped.json()["votes"] == {"up": 0, "down": 1, "score": -1}
    unknown = await client.post(f"/api/error/{'a' * 64}/vote", json={"vote": "up"})
    assert unknown.status_code == 404
    invalid = await client.post(f"/api/error/{h}/vote", json={"vote": "sideways"})
    assert invalid.status_code == 422
    statuses = [
        (await client.post(f"/api/error/{h}/vote", json={"vote": "up"})).status_code
        for _ in range(10)
    ]
    assert statuses[-1] == 429
    limited = await client.post(f"/api/error/{h}/vote", json={"vote": "up"})
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    top = (await client.get("/api/error/popular", params={"limit": 500})).json()["results"]
    assert top[-1]["error_hash"] == h or top[0]["error_hash"] == h


async def test_resolve_rejects_empty_input(client: httpx.AsyncClient, loaded: Runtime) -> None:
    assert (await client.post("/api/error/resolve", json={"error": ""})).status_code == 422
    assert (await client.post("/api/error/resolve", json={})).status_code == 422
    blank = await client.post("/api/error/resolve", json={"error": "   "})
    assert blank.status_code == 422
