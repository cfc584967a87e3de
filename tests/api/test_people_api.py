"""`/api/maintainers`, `/api/maintainer/trust`, `/api/quality` and the report's `github_stats`,
`maintainer_trust` and `quality`, through the app on recorded registry bodies (replayed)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest

from pkgintel.runtime.container import Runtime
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

pytestmark = requires_shared
ADA = json.loads(
    (Path(__file__).parents[1] / "recordings" / "github" / "account-ada-example.json").read_text()
)
GH = "https://api.github.com"


def _sources(body: dict) -> dict[tuple[str, str], dict]:
    return {(s["name"], s["kind"]): s for s in body["_meta"]["sources"]}


def _add_ada(registry: ReplayRegistry) -> None:
    registry.add(f"{GH}/users/ada-example", ADA["user"])
    registry.add(f"{GH}/users/ada-example/repos?type=owner&sort=pushed&per_page=100", ADA["repos"])
    registry.add(f"{GH}/users/ada-example/orgs?per_page=100", ADA["orgs"])


async def test_npm_maintainers_from_the_recorded_packument(client: httpx.AsyncClient):
    r = await client.get("/api/maintainers/npm/chalk")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["count"] == 2
    assert body["bus_factor"] == 1
    assert body["primary_publisher"] == "sindresorhus"
    assert 0 < body["dominance"] < 1
    assert any(c["version"] == "1.1.2" and c["added"] == ["qix"] for c in body["ownership_changes"])
    src = _sources(body)
    assert src[("registry.npmjs.org", "registry")]["status"] == "ok"
    assert src[("registry.npmjs.org", "publishers")]["status"] == "ok"
    assert src[("registry.npmjs.org", "publishers")]["fetched_at"]


async def test_pypi_maintainers_say_what_pypi_does_not_give(client: httpx.AsyncClient):
    r = await client.get("/api/maintainers/pypi/requests")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["count"] == 3
    assert {a["name"] for a in body["accounts"]} == {"Lukasa", "graffatcolmingov", "nateprewitt"}
    assert body["bus_factor"] is None
    assert "does not say who published each release" in body["unavailable"]["bus_factor"]
    assert [a["code"] for a in body["alerts"]] == []


async def test_unknown_package_is_a_404_problem(client: httpx.AsyncClient):
    r = await client.get("/api/maintainers/npm/this-package-is-not-recorded-anywhere")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_registry_down_with_nothing_stored_is_a_503_naming_the_registry(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    registry.fail_with = 503
    r = await client.get("/api/maintainers/npm/chalk")
    assert r.status_code == 503
    assert r.json()["source"] == "registry.npmjs.org"
    r = await client.get("/api/quality/pypi/flask")
    assert r.status_code == 503


async def test_trust_of_a_github_account(client: httpx.AsyncClient, registry: ReplayRegistry):
    _add_ada(registry)
    r = await client.get("/api/maintainer/trust/github/ada-example")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["available"] is True
    assert 0 <= body["trust_score"] <= 100
    assert set(body["breakdown"]) == {
        "account_age",
        "followers",
        "public_repos",
        "popular_repos",
        "organizations",
        "activity",
    }
    assert body["account"]["organizations"] == ["csv-tools"]
    assert {s["kind"] for s in body["_meta"]["sources"]} == {
        "account",
        "repositories",
        "organizations",
    }
    # cached: a second call does not ask GitHub again
    hits = len(registry.hits)
    assert (await client.get("/api/maintainer/trust/github/ada-example")).status_code == 200
    assert len(registry.hits) == hits


@pytest.mark.parametrize("platform", ["gitlab", "npm", "GitHub2"])
async def test_other_platforms_are_422(client: httpx.AsyncClient, platform: str):
    r = await client.get(f"/api/maintainer/trust/{platform}/ada-example")
    assert r.status_code == 422


async def test_malformed_and_unknown_logins(client: httpx.AsyncClient):
    assert (await client.get("/api/maintainer/trust/github/-bad-")).status_code == 422
    r = await client.get("/api/maintainer/trust/github/nobody-recorded")
    assert r.status_code == 404
    assert r.json()["type"].endswith("account-not-found")


async def test_trust_when_github_is_down_says_unavailable(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    registry.add(f"{GH}/users/ada-example", {"message": "down"}, status=503)
    r = await client.get("/api/maintainer/trust/github/ada-example")
    assert r.status_code == 200
    body = r.json()
    assert body["available"] is False
    assert "status.503" in body["reason"]
    assert _sources(body)[("api.github.com", "account")]["status"] == "unavailable"


async def test_quality_of_a_pypi_package(client: httpx.AsyncClient, registry: ReplayRegistry):
    r = await client.get("/api/quality/pypi/flask")
    assert r.status_code == 200, r.text
    body = r.json()
    ci = body["criticality_inputs"]
    assert ci["age_days"] > 365 * 10
    assert ci["releases_last_365_days"] >= 0
    assert ci["maintainers_count"] >= 1
    # pypistats' recorded `recent` body for flask
    assert body["downloads"]["source"] == "pypistats.org"
    assert body["downloads"]["trend"] in {"up", "down", "stable"}
    assert body["publish_security"]["mfa_required"] is True
    assert "blog.pypi.org" in body["publish_security"]["mfa_basis"]
    assert body["publish_security"]["trusted_publishing"] is None
    assert "trusted_publishing" in body["unavailable"]
    # deps.dev has nothing recorded for it: unknown, with the reason, never 0
    assert ci["dependents"] is None and "dependents" in body["unavailable"]
    src = _sources(body)
    assert src[("pypistats.org", "downloads_trend")]["status"] == "ok"


async def test_quality_when_upstreams_are_down(client: httpx.AsyncClient, registry: ReplayRegistry):
    registry.add("https://pypistats.org/api/packages/flask/recent", b"down", status=503)
    registry.add("https://api.github.com/repos/pallets/flask", b"down", status=503)
    r = await client.get("/api/quality/pypi/flask")
    assert r.status_code == 200
    body = r.json()
    assert body["downloads"] is None
    # the adapter's own weekly call to the same URL failed first: 503 or the opened circuit
    assert body["unavailable"]["downloads_trend"].startswith("pypistats.org: ")
    assert "status.503" in body["unavailable"]["repository"]
    assert _sources(body)[("pypistats.org", "downloads_trend")]["status"] == "unavailable"


async def test_quality_of_an_npm_package_with_downloads(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    registry.add(
        "https://api.npmjs.org/downloads/point/last-week/chalk",
        {"downloads": 300000, "start": "2026-11-15", "end": "2026-11-21", "package": "chalk"},
    )
    registry.add(
        "https://api.npmjs.org/downloads/point/last-month/chalk",
        {"downloads": 1000000, "start": "2026-10-23", "end": "2026-11-21", "package": "chalk"},
    )
    r = await client.get("/api/quality/npm/chalk")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["downloads"] == {
        "last_week": 300000,
        "last_month": 1000000,
        "trend": "up",
        "ratio": pytest.approx(1.286, abs=0.001),
        "explanation": body["downloads"]["explanation"],
        "source": "api.npmjs.org",
    }
    assert body["criticality_inputs"]["publishers_last_365_days"] == 0
    assert body["publish_security"]["trusted_publishing"] is False


async def test_report_carries_github_stats_trust_and_quality(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    stats = read_repo("api.github.com_repos_ossf_scorecard.json")
    registry.add(f"{GH}/repos/pallets/flask", {**stats, "full_name": "pallets/flask"})
    r = await client.get("/api/check/pypi/flask")
    assert r.status_code == 200, r.text
    body = r.json()
    gh = body["github_stats"]
    assert gh["available"] is True and gh["repository"] == "pallets/flask"
    assert body["github_stats_unavailable"] is None
    assert gh["stars"] == stats["stargazers_count"] and gh["archived"] is False
    assert body["quality"]["available"] is True
    mt = body["maintainer_trust"]
    # pallets has no recorded GitHub account: unknown, said so
    assert mt["available"] is False and mt["reason"]
    assert mt["maintainers"]["count"] >= 1
    kinds = {(s["name"], s["kind"]) for s in body["_meta"]["sources"]}
    assert ("api.github.com", "github_stats") in kinds
    assert ("pypistats.org", "downloads_trend") in kinds


async def test_report_without_a_github_repository(client: httpx.AsyncClient):
    r = await client.get("/api/check/pypi/nose")
    assert r.status_code == 200
    body = r.json()
    assert body["github_stats"] is None
    why = body["github_stats_unavailable"]
    assert "not on github.com" in why or "no source repository" in why


async def test_report_when_github_is_down_keeps_its_score(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    registry.add(f"{GH}/repos/chalk/chalk", b"down", status=503)
    r = await client.get("/api/check/npm/chalk")
    assert r.status_code == 200
    body = r.json()
    assert body["github_stats"] is None
    assert "unavailable" in body["github_stats_unavailable"]
    # GitHub feeds no score component: its outage changes nothing in the health breakdown
    assert "community" not in body["health"]["unscored"]
    assert "bus factor 1" in body["health"]["explanations"]["community"]


def read_repo(name: str) -> dict:
    from tests.shared import read_shared_json

    return read_shared_json("registry-fixtures", "github", name)


async def test_a_cold_npm_report_fetches_the_packument_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    registry.latency_s = 0.05  # a network round trip, so the two asks overlap as they do live
    r = await client.get("/api/check/npm/chalk")
    assert r.status_code == 200
    assert registry.hits.count("/npm/chalk") == 1
    assert r.json()["maintainer_trust"]["maintainers"]["bus_factor"] == 1


@pytest.mark.parametrize(
    ("ecosystem", "package"),
    [
        ("cargo", "parameters_lib"),
        ("cargo", "regex"),
        ("go", "github.com/aws/smithy-go"),
        ("maven", "com.google.guava:guava"),
        ("nuget", "Newtonsoft.Json"),
        ("rubygems", "nokogiri"),
        ("composer", "monolog/monolog"),
        ("pub", "bloc"),
        ("hex", "phoenix"),
    ],
)
async def test_maintainers_for_every_ecosystem_with_an_adapter(
    client: httpx.AsyncClient, ecosystem: str, package: str
):
    r = await client.get(f"/api/maintainers/{ecosystem}/{package}")
    assert r.status_code == 200, r.text
    body = r.json()
    # each figure is either known or unavailable with a reason — never a silent 0
    for figure in ("count", "bus_factor", "dominance"):
        assert body[figure] is not None or body["unavailable"].get(figure), figure
    if ecosystem == "cargo" and package == "parameters_lib":
        assert body["bus_factor"] == 1 and body["primary_publisher"] == "TheFox"
    q = await client.get(f"/api/quality/{ecosystem}/{package}")
    assert q.status_code == 200, q.text
    qb = q.json()
    ci = qb["criticality_inputs"]
    assert ci["age_days"] is not None or qb["unavailable"]["age_days"]
    if ci["age_days"] is None:
        assert ci["releases_last_365_days"] is None


async def test_score_only_answers_spend_no_code_host_calls(
    client: httpx.AsyncClient, registry: ReplayRegistry
):
    """Health (like trees, history and compare) needs only the maintainer analysis: no GitHub or
    deps.dev call (the weekly downloads are part of the package data itself), and the same score
    as the full report."""
    stats = read_repo("api.github.com_repos_ossf_scorecard.json")
    registry.add(f"{GH}/repos/pallets/flask", {**stats, "full_name": "pallets/flask"})
    health = await client.get("/api/health/pypi/flask")
    assert health.status_code == 200, health.text
    assert not [h for h in registry.hits if h.startswith(("/github", "/depsdev"))]
    full = (await client.get("/api/check/pypi/flask")).json()
    assert [h for h in registry.hits if h.startswith("/github")]  # the full report asks
    assert health.json()["health"]["score"] == full["health"]["score"]


async def test_a_slow_github_does_not_hold_the_report_up(
    client: httpx.AsyncClient, registry: ReplayRegistry, runtime: Runtime
):
    stats = read_repo("api.github.com_repos_ossf_scorecard.json")
    registry.add(f"{GH}/repos/pallets/flask", {**stats, "full_name": "pallets/flask"})
    registry.slow_prefixes["/github"] = 1.0
    runtime.reports._signal_wait_s = 0.2  # PKGINTEL_REPORT_SIGNAL_WAIT_S
    started = time.monotonic()
    r = await client.get("/api/check/pypi/flask")
    took = time.monotonic() - started
    assert r.status_code == 200, r.text
    body = r.json()
    assert took < 0.9, took  # not the 1 s GitHub takes
    assert body["github_stats"] is None
    assert "still being fetched" in body["github_stats_unavailable"]
    sources = _sources(body)
    assert sources[("api.github.com", "github_stats")]["status"] == "unavailable"
    assert "still being fetched" in sources[("api.github.com", "github_stats")]["detail"]
    # What needs no second round is all there: the maintainers, and a score that GitHub never feeds.
    assert body["maintainer_trust"]["maintainers"]["count"] >= 1
    assert "community" not in body["health"]["unscored"]
    # The lookup went on in the background: the next ask has the figures.
    await asyncio.sleep(1.2)
    again = (await client.get("/api/check/pypi/flask")).json()
    assert again["github_stats"]["stars"] == stats["stargazers_count"]


async def test_without_a_bound_the_report_waits_for_the_second_round(
    client: httpx.AsyncClient, registry: ReplayRegistry, runtime: Runtime
):
    stats = read_repo("api.github.com_repos_ossf_scorecard.json")
    registry.add(f"{GH}/repos/pallets/flask", {**stats, "full_name": "pallets/flask"})
    registry.slow_prefixes["/github"] = 0.3
    runtime.reports._signal_wait_s = None
    body = (await client.get("/api/check/pypi/flask")).json()
    assert body["github_stats"]["stars"] == stats["stargazers_count"]


async def test_shutdown_does_not_wait_for_second_rounds_still_running(
    client: httpx.AsyncClient, registry: ReplayRegistry, runtime: Runtime
):
    registry.add(f"{GH}/repos/pallets/flask", {"full_name": "pallets/flask"})
    registry.slow_prefixes["/github"] = 30.0
    runtime.reports._signal_wait_s = 0.1
    assert (await client.get("/api/check/pypi/flask")).status_code == 200
    assert runtime.reports._completing  # the GitHub lookup goes on
    started = time.monotonic()
    await runtime.reports.close()
    assert time.monotonic() - started < 1.0
    assert not runtime.reports._completing
