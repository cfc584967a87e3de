"""
The package-knowledge endpoints end to end through ASGI, on recorded registry bodies (npm/PyPI
fixtures and the npm mirror packuments), the recorded GitHub releases of gocardless/business, its
real CHANGELOG.md (tests/recordings/changelogs) and a hand-written bug-issue list.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry
from tests.knowledge_data import add_github_business, add_npm_live
from tests.shared import requires_shared

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"

pytestmark = requires_shared


@pytest.fixture
async def loaded(runtime: Runtime, registry: ReplayRegistry) -> Runtime:
    add_npm_live(registry)
    add_github_business(registry)
    assert runtime.knowledge is not None
    await ingest_curated(runtime.knowledge.store, load_curated(), NOW)
    return runtime


async def test_alternatives_for_request_list_scored_maintained_replacements(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    r = await client.get("/api/alternatives/npm/request")
    assert r.status_code == 200
    body = r.json()
    assert body["needs_replacement"] is True
    assert "https://github.com/request/request/issues/3142" in body["sources"]
    names = [a["name"] for a in body["alternatives"]]
    assert "axios" in names
    axios = next(a for a in body["alternatives"] if a["name"] == "axios")
    assert isinstance(axios["health_score"], int) and 0 <= axios["health_score"] <= 100
    assert axios["origin"] == "curated" and axios["why"]
    assert axios["sources"] and all(s.startswith("https://") for s in axios["sources"])
    assert axios["latest_version"]
    # got and undici are not in the recorded registry here: never recommended unseen.
    assert "got" not in names and "undici" not in names


async def test_healthy_package_gets_an_empty_list(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    r = await client.get("/api/alternatives/npm/lodash")
    assert r.status_code == 200
    body = r.json()
    if body["needs_replacement"]:  # lodash's recorded body may be old enough to be flagged
        assert body["reason"]
    else:
        assert body["alternatives"] == []


async def test_deprecation_message_successor(
    client: httpx.AsyncClient, loaded: Runtime, registry: ReplayRegistry
) -> None:
    from tests.bodies import npm_packument

    registry.add(
        "https://registry.npmjs.org/old-widget",
        npm_packument(
            "old-widget", {"1.0.0": "2020-01-01T00:00:00.000Z"}, deprecated="renamed to tiny-lib"
        ),
    )
    body = (await client.get("/api/alternatives/npm/old-widget")).json()
    assert body["needs_replacement"] is True
    assert [(a["name"], a["origin"]) for a in body["alternatives"]] == [
        ("tiny-lib", "registry-deprecation")
    ]
    assert isinstance(body["alternatives"][0]["health_score"], int)


async def test_curated_migration_request_to_axios(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    r = await client.get("/api/migration/npm/request/axios")
    assert r.status_code == 200
    body = r.json()
    assert body["kind"] == "curated" and body["generated"] is False
    assert body["rationale"] and body["before"] and body["after"]
    assert "axios" in body["after"] and "request" in body["before"]
    assert body["estimated_minutes"] > 0
    assert body["breaking_differences"] and body["steps"]
    assert "https://axios-http.com/docs/handling_errors" in body["sources"]
    assert body["to"]["status"] == "ok" and body["to"]["install"]["npm"].startswith(
        "npm install axios@"
    )
    assert body["from"]["uninstall"]["npm"] == "npm uninstall request"
    assert (body["from"]["purl"], body["to"]["purl"]) == ("pkg:npm/request", "pkg:npm/axios")


async def test_generated_migration_is_marked(client: httpx.AsyncClient, loaded: Runtime) -> None:
    body = (await client.get("/api/migration/npm/express/axios")).json()
    assert body["kind"] == "generated" and body["generated"] is True
    assert body["before"] is None and body["after"] is None
    assert any("not a curated" in n for n in body["notes"])
    assert body["from"]["latest_version"] and body["to"]["latest_version"]
    r = await client.get("/api/migration/npm/express/no-such-pkg-zz")
    assert r.status_code == 404
    assert (await client.get("/api/migration/npm/axios/axios")).status_code == 422
    assert (await client.get("/api/migration/npm/axios")).status_code == 422
    # Scoped names, literal or percent-encoded, are one name each.
    for path in (
        "/api/migration/npm/@acme/widget/tiny-lib",
        "/api/migration/npm/%40acme%2Fwidget/tiny-lib",
    ):
        scoped = (await client.get(path)).json()
        assert (scoped["from"]["name"], scoped["to"]["name"]) == ("@acme/widget", "tiny-lib")


async def test_breaking_changes_of_gocardless_business(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    r = await client.get("/api/breaking/rubygems/business")
    assert r.json()["status"] == "not_harvested" and r.json()["versions"] == []
    assert loaded.knowledge is not None
    result = await loaded.knowledge.harvest.harvest(
        Ecosystem.RUBYGEMS, "business", repository="gocardless/business"
    )
    assert result.outcomes["releases"].status == "ok"
    assert "6 GitHub releases" in (result.outcomes["releases"].detail or "")
    body = (await client.get("/api/breaking/rubygems/business")).json()
    assert body["status"] == "ok" and body["sections_read"] > 6
    versions = [v["version"] for v in body["versions"]]
    assert versions == sorted(versions, key=lambda v: [int(p) for p in v.split(".")])
    assert {"1.4.0", "1.18.0", "2.0.0", "2.3.0"} <= set(versions)
    v2 = next(v for v in body["versions"] if v["version"] == "2.0.0")
    assert all(c["source_url"].endswith("/CHANGELOG.md") for c in v2["changes"])
    assert all(c["migration_hint"] for c in v2["changes"])
    # A transition lists every breaking change after from_version up to to_version, oldest first.
    t = (
        await client.get("/api/breaking/rubygems/business?from_version=1.17.0&to_version=2.3.0")
    ).json()
    assert [v["version"] for v in t["versions"]] == ["1.18.0", "2.0.0", "2.3.0"]
    assert t["breaking_count"] == sum(len(v["changes"]) for v in t["versions"])
    assert (
        await client.get("/api/breaking/rubygems/business?from_version=2.0.0&to_version=1.0.0")
    ).status_code == 422
    assert (
        await client.get("/api/breaking/rubygems/business?from_version=not%20a%20version")
    ).status_code == 422


async def test_recent_breaking_lists_curated_first(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    body = (await client.get("/api/breaking?limit=2")).json()
    assert body["count"] == 2
    assert all(i["changes"][0]["origin"] == "curated" and i["sources"] for i in body["items"])
    assert (await client.get("/api/breaking?limit=0")).status_code == 422


async def test_bug_endpoints(client: httpx.AsyncClient, loaded: Runtime) -> None:
    before = (await client.get("/api/bugs/rubygems/business")).json()
    assert before["status"] == "not_harvested" and before["known_issues"]["available"] is False
    assert loaded.knowledge is not None
    await loaded.knowledge.harvest.harvest(
        Ecosystem.RUBYGEMS, "business", repository="gocardless/business"
    )
    body = (await client.get("/api/bugs/rubygems/business")).json()
    assert body["status"] == "ok"
    ki = body["known_issues"]
    assert ki["bugs_count"] == 3 and ki["available"] is True
    assert ki["status_breakdown"] == {"open": 2, "closed": 1}
    assert ki["link"] == "https://github.com/gocardless/business/issues?q=label%3Abug"
    fixed = next(b for b in body["bugs"] if b["number"] == 83)
    assert fixed["fixed_in"] == "2.2.1"  # the changelog's 2.2.1 entry references #83
    scoped = (await client.get("/api/bugs/rubygems/business?version=2.3.0")).json()
    assert [b["number"] for b in scoped["bugs"]] == [121, 120]
    assert all(b["affects_version"] is True for b in scoped["bugs"])
    found = (await client.get("/api/bugs/search?q=psych%20calendar")).json()
    assert [b["number"] for b in found["results"]] == [121]
    assert (await client.get("/api/bugs/search?q=yaml")).json()["results"][0][
        "package"
    ] == "business"
    assert (await client.get("/api/bugs/search")).status_code == 422
    assert (await client.get("/api/bugs/search?q=%22%29%28*")).json()["results"] == []
    popular = (await client.get("/api/bugs/popular?limit=5")).json()
    assert popular["packages"][0] == {
        "ecosystem": "rubygems",
        "package": "business",
        "purl": "pkg:gem/business",
        "bugs_count": 3,
        "open": 2,
        "bugs": "/api/bugs/rubygems/business",
    }


async def test_report_known_issues_not_checked_until_harvested(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    ki = (await client.get("/api/check/npm/axios")).json()["known_issues"]
    assert (
        ki["available"] is False and ki["bugs_count"] == 0 and "not been harvested" in ki["scope"]
    )


async def test_compare(client: httpx.AsyncClient, loaded: Runtime) -> None:
    r = await client.get("/api/compare/npm/axios,request,lodash,no-such-pkg-zz")
    assert r.status_code == 200
    body = r.json()
    rows = {p["name"]: p for p in body["packages"]}
    assert rows["no-such-pkg-zz"]["status"] == "not_found"
    assert {n: r["purl"] for n, r in rows.items()} == {n: f"pkg:npm/{n}" for n in rows}
    assert isinstance(rows["axios"]["health_score"], int)
    assert body["best_fit"] in {"axios", "lodash", "request"}
    assert body["best_fit"] in body["verdict"]
    assert (await client.get("/api/compare/npm/axios")).status_code == 422
    many = ",".join(f"p{i}" for i in range(11))
    assert (await client.get(f"/api/compare/npm/{many}")).status_code == 422
    assert (await client.get("/api/compare/npm/axios,AXIOS%20BAD")).status_code == 422


async def test_search_popular_trending_sameas(
    client: httpx.AsyncClient, loaded: Runtime, registry: ReplayRegistry
) -> None:
    await loaded.names.ingest(
        Ecosystem.PYPI,
        [
            NameEntry(
                Ecosystem.PYPI, "requests", "requests", "2.32.3", None, 1, "Python HTTP for Humans."
            ),
            NameEntry(
                Ecosystem.PYPI,
                "requests-toolbelt",
                "requests-toolbelt",
                "1.0.0",
                None,
                300,
                "A utility belt for advanced users of python-requests",
            ),
            NameEntry(
                Ecosystem.PYPI,
                "httpx",
                "httpx",
                "0.28.1",
                None,
                50,
                "The next generation HTTP client.",
            ),
        ],
        source="test",
    )
    body = (await client.get("/api/search/pypi?q=requests")).json()
    assert [h["name"] for h in body["results"]][:2] == ["requests", "requests-toolbelt"]
    assert body["_meta"]["sources"][0]["name"] == "name_index"
    assert [
        h["name"] for h in (await client.get("/api/search/pypi?q=http%20client")).json()["results"]
    ] == ["httpx"]
    assert (await client.get("/api/search/cargo?q=serde")).json()[
        "results"
    ] == []  # answers, index-only
    assert (await client.get("/api/search/pypi?q=" + "x" * 201)).status_code == 422
    registry.add(
        "https://registry.npmjs.org/-/v1/search",
        json.loads((RECORDINGS / "npm" / "search-http-client.json").read_text())["body"],
    )
    npm = (await client.get("/api/search/npm?q=http%20client&limit=3")).json()
    assert [h["name"] for h in npm["results"]] == ["axios", "got", "undici"]
    assert any(s["kind"] == "search" and s["status"] == "ok" for s in npm["_meta"]["sources"])

    pop = (await client.get("/api/popular?ecosystem=pypi&limit=2")).json()
    assert [p["name"] for p in pop["ecosystems"][0]["packages"]] == ["requests", "httpx"]

    agent = {"User-Agent": "claude-code/1.0"}
    for _ in range(3):
        await client.get("/api/latest/npm/axios", headers=agent)
    await client.get("/api/latest/npm/express", headers=agent)
    for _ in range(5):
        await client.get("/api/latest/npm/lodash", headers={"User-Agent": "Googlebot/2.1"})
    trend = (await client.get("/api/trending?ecosystem=npm")).json()
    names = [p["package"] for p in trend["packages"]]
    assert names[:2] == ["axios", "express"] and "lodash" not in names
    assert trend["packages"][0]["queries_this_week"] == 3
    assert loaded.knowledge is not None
    buckets = await loaded.knowledge.usage.agents_by_range(
        NOW.replace(hour=0), NOW.replace(hour=23), bucket="hour"
    )
    assert {(b.ua_class, b.calls) for b in buckets} >= {("ai-agent", 4), ("crawler", 5)}

    # The same repository published on PyPI and npm (hand-written bodies, tests/bodies.py).
    from tests.bodies import npm_packument

    registry.add(
        "https://registry.npmjs.org/demo-pkg",
        npm_packument("demo-pkg", {"1.0.0": "2026-01-01T00:00:00.000Z"}),
    )
    assert (await client.get("/api/check/pypi/demo-pkg")).status_code == 200
    same = (await client.get("/api/sameas/npm/demo-pkg")).json()
    assert same["repository"] == "https://github.com/example/demo-pkg"
    assert [(m["ecosystem"], m["package"], m["evidence"]) for m in same["same_as"]] == [
        ("pypi", "Demo_Pkg", "same_repository")
    ]
    # react-dom's packument names github.com/react/react; the older react body names facebook/react.
    await client.get("/api/check/npm/react")
    assert (await client.get("/api/sameas/npm/react-dom")).json()["same_as"] == []
    assert (await client.get("/api/sameas/npm/no-such-pkg-zz")).status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/api/alternatives/npm/%00bad",
        "/api/alternatives/nope/x",
        "/api/migration/npm/a/b/c",
        "/api/breaking/npm/x?from_version=" + "9" * 200,
        "/api/bugs/npm/x?version=%%%",
        "/api/bugs/search?q=",
        "/api/bugs/popular?limit=-1",
        "/api/compare/npm/,,,",
        "/api/search/npm?limit=0",
        "/api/popular?ecosystem=nope",
        "/api/trending?limit=1000",
        "/api/sameas/pypi/..bad..",
    ],
)
async def test_bad_input_never_500(client: httpx.AsyncClient, loaded: Runtime, path: str) -> None:
    r = await client.get(path)
    assert r.status_code in (404, 422), (path, r.status_code, r.text)
