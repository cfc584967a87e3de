"""The package report end to end through ASGI: fields, types, versions, scores that agree."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.application.schemas.packages import PackageHealthOut, PackageReportOut
from pkgintel.scoring import ACTIONS
from tests.shared import requires_shared

TOP_LEVEL = {
    "package": str,
    "ecosystem": str,
    "latest_version": str,
    "description": str,
    "license": str,
    "license_risk": str,
    "commercial_use_notes": str,
    "homepage": (str, type(None)),
    "repository": str,
    "downloads_weekly": (int, type(None)),
    "health": dict,
    "vulnerabilities": dict,
    "versions": dict,
    "metadata": dict,
    "github_stats": (dict, type(None)),
    "bundle": (dict, type(None)),
    "typescript": (dict, type(None)),
    "known_issues": dict,
    "historical_compromise": (dict, type(None)),
    "recommendation": dict,
    "version_scoped": (dict, type(None)),
    "requested_version": (str, type(None)),
    "typosquat": dict,
    "maintainer_trust": dict,
    "malicious": dict,
    "scorecard": dict,
    "quality": dict,
    "version_history_summary": dict,
    "_meta": dict,
    "_cache": str,
    "_response_ms": int,
    "_powered_by": str,
}


def assert_complete_report(body: dict) -> None:
    """Every top-level field of the specification's table, with its type, and the inner required fields."""
    for field, kind in TOP_LEVEL.items():
        assert field in body, field
        assert isinstance(body[field], kind), (field, body[field])
    PackageReportOut.model_validate(body)
    h = body["health"]
    assert set(h["breakdown"]) == {"maintenance", "security", "popularity", "maturity", "community"}
    assert h["points"] == sum(h["breakdown"].values())
    # max_score is the scale's top (the specification's 100); the points the scored components
    # could earn are points_possible.
    assert h["max_score"] == 100
    assert h["points_possible"] == 100 - sum(
        {"maintenance": 25, "security": 25, "popularity": 20, "maturity": 15, "community": 15}[c]
        for c in h["unscored"]
    )
    rescaled = int(100 * h["points"] / h["points_possible"] + 0.5) if h["points_possible"] else 0
    assert h["score"] == (min(rescaled, 69) if "security" in h["unscored"] else rescaled)
    v = body["vulnerabilities"]
    assert {"count", "critical", "high", "medium", "low", "details", "status"} <= set(v)
    assert body["recommendation"]["action"] in ACTIONS
    assert body["versions"]["latest"] == body["latest_version"]
    assert body["versions"]["total_count"] >= len(body["versions"]["recent"]) > 0
    m = body["metadata"]
    for key in (
        "deprecated",
        "deprecated_message",
        "maintainers_count",
        "first_published",
        "last_published",
        "dependencies_count",
        "dependencies",
    ):
        assert key in m
    ki = body["known_issues"]
    assert {"bugs_count", "bugs_severity", "status_breakdown", "link", "scope"} <= set(ki)
    for flag in ("maintainer_trust", "scorecard", "quality"):
        assert isinstance(body[flag]["available"], bool)
    # Unchecked is null, never false (ADR 0003), as in /api/typosquat and /api/malicious.
    t, mal = body["typosquat"], body["malicious"]
    assert isinstance(t["is_suspected"], bool) or (t["is_suspected"] is None and not t["checked"])
    assert isinstance(mal["is_malicious"], bool) == mal["checked"]
    meta = body["_meta"]
    assert {"endpoint", "tier", "philosophy", "cheaper_alternatives", "docs", "sources"} <= set(
        meta
    )
    for src in meta["sources"]:
        assert src["status"] in {"ok", "stale", "unavailable"}


async def test_npm_report_is_complete(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check/npm/tiny-lib")
    assert resp.status_code == 200
    body = resp.json()
    assert_complete_report(body)
    assert body["latest_version"] == "2.0.0"
    assert body["versions"]["recent"] == ["2.0.0", "2.0.0-beta.1", "1.1.0", "1.0.0"]
    assert body["downloads_weekly"] == 250000
    assert body["license"] == "MIT" and body["license_risk"] == "permissive"
    assert body["repository"] == "https://github.com/example/tiny-lib"
    assert body["metadata"]["maintainers_count"] == 2
    assert {"name": "left-pad", "requirement": "^1.3.0", "kind": "runtime", "marker": None} in body[
        "metadata"
    ]["dependencies"]
    assert body["_cache"] == "miss"


async def test_vulnerabilities_unavailable_is_never_a_silent_zero(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/api/check/npm/tiny-lib")).json()
    assert body["vulnerabilities"]["status"] == "unavailable"
    assert body["vulnerabilities"]["reason"]
    assert "security" in body["health"]["unscored"]
    assert body["health"]["breakdown"]["security"] == 0
    assert body["recommendation"]["action"] != "safe_to_use"
    vuln_sources = [s for s in body["_meta"]["sources"] if s["kind"] == "vulnerabilities"]
    assert vuln_sources and vuln_sources[0]["status"] == "unavailable"


async def test_without_advisory_data_nothing_says_no_advisory_affects_it(
    client: httpx.AsyncClient,
) -> None:
    """No advisory data: the upgrade plan says the data is unavailable and names no target, and the
    unchecked malicious and typosquat flags are null (not false), as their own endpoints say."""
    body = (await client.get("/api/check/npm/tiny-lib")).json()
    plan = body["upgrade"]
    assert plan["to"] is None and plan["gate"] is None
    assert "no advisory" not in plan["reason"]
    assert "unavailable" in plan["reason"]
    assert body["malicious"]["checked"] is False and body["malicious"]["is_malicious"] is None
    assert body["typosquat"]["checked"] is False and body["typosquat"]["is_suspected"] is None
    assert body["typosquat"]["status"] == "unavailable"
    assert body["health"]["max_score"] == 100
    assert body["health"]["points_possible"] < 100


async def test_second_request_is_served_from_cache(client: httpx.AsyncClient, registry) -> None:
    await client.get("/api/check/npm/tiny-lib")
    calls = len(registry.hits)
    second = (await client.get("/api/check/npm/tiny-lib")).json()
    assert second["_cache"] == "hit"
    assert len(registry.hits) == calls


@pytest.mark.parametrize("path", ["/api/check/npm/@acme/widget", "/api/check/npm/%40acme%2Fwidget"])
async def test_scoped_name_plain_or_percent_encoded(
    client: httpx.AsyncClient, registry, path: str
) -> None:
    resp = await client.get(path)
    assert resp.status_code == 200
    body = resp.json()
    assert body["package"] == "@acme/widget"
    assert body["metadata"]["deprecated"] is True
    assert body["metadata"]["deprecated_message"] == "Use @acme/widget2 instead"
    assert body["recommendation"]["action"] == "find_alternative"
    assert any(hit.startswith("/npm/@acme%2Fwidget") for hit in registry.hits)


async def test_pypi_report_with_pep503_normalisation(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/check/pypi/Demo_Pkg")).json()
    assert_complete_report(body)
    assert body["latest_version"] == "1.2.0"
    assert body["downloads_weekly"] == 8400
    assert body["license"] == "Apache-2.0"
    assert body["metadata"]["requires_python"] == ">=3.10"
    kinds = {d["name"]: d["kind"] for d in body["metadata"]["dependencies"]}
    assert kinds == {"httpx": "runtime", "rich": "extra:cli"}
    # The same package under its normalised name is one cache entry.
    again = (await client.get("/api/check/pypi/demo-pkg")).json()
    assert again["_cache"] == "hit"


async def test_version_scoped_report(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["requested_version"] == "1.0.0"
    scoped = body["version_scoped"]
    assert scoped["version"] == "1.0.0" and scoped["is_latest"] is False
    assert scoped["vulnerabilities"]["version"] == "1.0.0"
    assert body["metadata"]["dependencies_version"] == "1.0.0"
    assert [d["requirement"] for d in body["metadata"]["dependencies"]] == [">=0.20"]
    assert body["recommendation"]["use_version"] == "1.0.0"
    latest = (await client.get("/api/check/pypi/demo-pkg")).json()
    assert latest["version_scoped"] is None and latest["requested_version"] is None


async def test_yanked_version_is_reported_as_deprecated(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.1.0"})).json()
    assert body["version_scoped"]["yanked"] is True
    assert body["recommendation"]["action"] == "find_alternative"
    assert any("yanked" in issue for issue in body["recommendation"]["issues"])


@pytest.mark.parametrize(
    ("eco", "name", "version"),
    [("npm", "tiny-lib", None), ("pypi", "demo-pkg", None), ("pypi", "demo-pkg", "1.0.0")],
)
async def test_health_score_is_one_number_everywhere(
    client: httpx.AsyncClient, eco: str, name: str, version: str | None
) -> None:
    params = {"version": version} if version else {}
    check = (await client.get(f"/api/check/{eco}/{name}", params=params)).json()
    health = (await client.get(f"/api/health/{eco}/{name}", params=params)).json()
    PackageHealthOut.model_validate(health)
    prompt = (await client.get(f"/api/prompt/{eco}/{name}", params=params)).text
    score = check["health"]["score"]
    assert health["health"]["score"] == score
    assert f"Health: {score}/100" in prompt
    if version is None:
        brief = (await client.get(f"/api/ai/brief/{eco}/{name}")).text
        assert f"Score {score}/100" in brief


async def test_briefs_are_plain_text_verdict_first_and_short(client: httpx.AsyncClient) -> None:
    prompt = await client.get("/api/prompt/npm/tiny-lib")
    brief = await client.get("/api/ai/brief/npm/tiny-lib")
    for resp, max_words in ((prompt, 500), (brief, 300)):
        assert resp.headers["content-type"].startswith("text/plain")
        first = resp.text.splitlines()[0]
        assert first.split(":")[0] in {
            "USE WITH CAUTION",
            "SAFE TO USE",
            "INSUFFICIENT DATA",
            "FIND AN ALTERNATIVE",
        }
        # About 0.75 words per token: the word count bounds the token budget.
        assert len(resp.text.split()) < max_words * 0.75
    assert "Vulnerabilities: NOT CHECKED" in prompt.text


async def test_hint_bulk_after_many_full_checks(client: httpx.AsyncClient) -> None:
    bodies = [(await client.get("/api/check/npm/tiny-lib")).json() for _ in range(3)]
    assert "hint_bulk" not in bodies[0]["_meta"]
    assert "check_bulk" in bodies[2]["_meta"]["hint_bulk"]


@requires_shared
@pytest.mark.parametrize(
    ("path", "name", "latest"),
    [
        ("/api/check/pypi/requests", "requests", "2.34.2"),
        ("/api/check/npm/lodash", "lodash", "4.17.21"),
        ("/api/check/npm/%40types%2Fjquery", "@types/jquery", None),
    ],
)
async def test_real_recorded_bodies_give_complete_reports(
    client: httpx.AsyncClient, path: str, name: str, latest: str | None
) -> None:
    resp = await client.get(path)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert_complete_report(body)
    assert body["package"] == name
    if latest:
        assert body["latest_version"] == latest
    health = (await client.get(path.replace("/check/", "/health/"))).json()
    brief = (await client.get(path.replace("/api/check/", "/api/ai/brief/"))).text
    assert health["health"]["score"] == body["health"]["score"]
    assert f"Score {body['health']['score']}/100" in brief


async def test_version_is_matched_by_ecosystem_equality(
    client: httpx.AsyncClient, registry
) -> None:
    # PEP 440: 1.0 and 1.0.0 are the same version; PyPI publishes the spelling "1.0.0" here.
    registry.add(
        "https://pypi.org/pypi/demo-pkg/1.0/json",
        {"info": {"version": "1.0.0", "requires_dist": []}, "releases": {}},
    )
    resp = await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["version_scoped"]["version"] == "1.0.0"
    assert body["recommendation"]["use_version"] == "1.0.0"


@requires_shared
async def test_django_3_0_0_resolves_to_the_published_3_0(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check/pypi/django", params={"version": "3.0.0"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["version_scoped"]["version"] == "3.0"
    # No per-release body is recorded: the dependencies of 3.0 are unknown, not borrowed from the latest.
    assert body["metadata"]["dependencies"] == []
    assert body["metadata"]["dependencies_version"] is None
    assert body["metadata"]["dependencies_unavailable"]
