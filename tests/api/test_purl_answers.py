"""
Every answer about a package carries its Package URL (docs/api.md, Package URLs): the knowledge
answers (alternatives, breaking, bugs, sameas), the graph answers (tree and each node, licences and
each package, history), maintainers and provenance; with the version the answer is about, none when
it is about the package as a whole. Scoped npm, Maven `group:artifact` and versioned purls; the
OpenAPI response models declare the field.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from tests.api.test_tree_maven import artifact, dep
from tests.bodies import npm_packument
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry
from tests.knowledge_data import add_github_business, add_npm_live
from tests.shared import read_shared_json, requires_shared
from tests.supply_chain_bodies import NPM_ATTESTATIONS, SUPPLY_CHAIN_RECORDINGS

pytestmark = requires_shared

NPM = "https://registry.npmjs.org"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories ingested and no OSV API fallback: tree nodes say "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


def _scoped(name: str, deps: dict[str, str]) -> dict[str, Any]:
    """A one-version (1.0.0) packument of a scoped npm package with `deps`."""
    return {
        "name": name,
        "dist-tags": {"latest": "1.0.0"},
        "versions": {
            "1.0.0": {"name": name, "version": "1.0.0", "license": "MIT", "dependencies": deps}
        },
        "time": {"1.0.0": "2024-01-01T00:00:00.000Z"},
    }


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    add_npm_live(registry)
    add_github_business(registry)
    registry.add(f"{NPM}/@acme%2Fapp", _scoped("@acme/app", {"@acme/lib": "^1.0.0"}))
    registry.add(f"{NPM}/@acme%2Flib", _scoped("@acme/lib", {}))
    registry.add(
        f"{NPM}/demo-pkg", npm_packument("demo-pkg", {"1.0.0": "2026-01-01T00:00:00.000Z"})
    )
    for url, body in SUPPLY_CHAIN_RECORDINGS:
        registry.add(url, body)
    registry.add(
        NPM_ATTESTATIONS.format("0.3.0"),
        read_shared_json(
            "registry-fixtures",
            "provenance",
            "registry.npmjs.org_-_npm_v1_attestations_sigstore@0.4.0.json",
        ),
    )
    artifact(registry, "org.acme:lib", {"1.0": []})
    artifact(registry, "org.acme:app", {"1.0": [dep("org.acme:lib", "1.0")]})
    return registry


@pytest.fixture
async def loaded(runtime: Runtime) -> Runtime:
    assert runtime.knowledge is not None
    await ingest_curated(runtime.knowledge.store, load_curated(), NOW)
    return runtime


async def _get(client: httpx.AsyncClient, path: str, **params: str) -> dict[str, Any]:
    resp = await client.get(path, params=params)
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


async def test_alternatives_carry_the_purl_of_the_package_and_of_each_replacement(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    body = await _get(client, "/api/alternatives/npm/request")
    assert body["purl"] == "pkg:npm/request"
    axios = next(a for a in body["alternatives"] if a["name"] == "axios")
    assert axios["purl"] == "pkg:npm/axios"
    scoped = await _get(client, "/api/alternatives/npm/@acme/widget")
    assert scoped["purl"] == "pkg:npm/%40acme/widget"


async def test_breaking_and_bugs_carry_the_purl(client: httpx.AsyncClient, loaded: Runtime) -> None:
    # unversioned: the breaking changes of the package (a transition is not one version)
    breaking = await _get(client, "/api/breaking/rubygems/business")
    assert breaking["purl"] == "pkg:gem/business"
    transition = await _get(
        client, "/api/breaking/rubygems/business", from_version="1.0.0", to_version="2.0.0"
    )
    assert transition["purl"] == "pkg:gem/business"
    recent = await _get(client, "/api/breaking", limit="3")
    for item in recent["items"]:
        assert item["purl"].endswith(f"@{item['version']}"), item
    # the bugs of a version name it; without one, the package
    assert (await _get(client, "/api/bugs/rubygems/business"))["purl"] == "pkg:gem/business"
    scoped = await _get(client, "/api/bugs/rubygems/business", version="2.3.0")
    assert scoped["purl"] == "pkg:gem/business@2.3.0"
    assert loaded.knowledge is not None
    await loaded.knowledge.harvest.harvest(
        Ecosystem.RUBYGEMS, "business", repository="gocardless/business"
    )
    found = await _get(client, "/api/bugs/search", q="psych calendar")
    assert [r["purl"] for r in found["results"]] == ["pkg:gem/business"]
    popular = await _get(client, "/api/bugs/popular", limit="1")
    assert popular["packages"][0]["purl"] == "pkg:gem/business"


async def test_sameas_carries_the_purl_of_the_package_and_of_each_match(
    client: httpx.AsyncClient,
) -> None:
    assert (await client.get("/api/check/pypi/demo-pkg")).status_code == 200
    same = await _get(client, "/api/sameas/npm/demo-pkg")
    assert same["purl"] == "pkg:npm/demo-pkg"
    # PyPI's name is written Demo_Pkg by its registry; its purl is the PEP 503 form
    assert [(m["package"], m["purl"]) for m in same["same_as"]] == [
        ("Demo_Pkg", "pkg:pypi/demo-pkg")
    ]


async def test_tree_root_and_every_node_carry_their_purl(client: httpx.AsyncClient) -> None:
    npm = await _get(client, "/api/tree/npm/@acme/app")
    assert npm["purl"] == "pkg:npm/%40acme/app@1.0.0"
    assert {n["id"]: n["purl"] for n in npm["nodes"]} == {
        "@acme/app@1.0.0": "pkg:npm/%40acme/app@1.0.0",
        "@acme/lib@1.0.0": "pkg:npm/%40acme/lib@1.0.0",
    }
    maven = await _get(client, "/api/tree/maven/org.acme:app")
    assert maven["purl"] == "pkg:maven/org.acme/app@1.0"
    assert {n["id"]: n["purl"] for n in maven["nodes"]} == {
        "org.acme:app@1.0": "pkg:maven/org.acme/app@1.0",
        "org.acme:lib@1.0": "pkg:maven/org.acme/lib@1.0",
    }
    # the purl twin answers the same, purl included
    twin = await _get(client, "/api/tree", purl="pkg:maven/org.acme/app@1.0")
    assert twin["purl"] == maven["purl"] and twin["nodes"] == maven["nodes"]


async def test_licenses_and_history_carry_the_purl(client: httpx.AsyncClient) -> None:
    lic = await _get(client, "/api/licenses/maven/org.acme:app")
    assert lic["purl"] == "pkg:maven/org.acme/app@1.0"
    assert [p["purl"] for p in lic["packages"]] == ["pkg:maven/org.acme/lib@1.0"]
    scoped = await _get(client, "/api/licenses/npm/@acme/app")
    assert scoped["purl"] == "pkg:npm/%40acme/app@1.0.0"
    # history is the package's over days: no version
    history = await _get(client, "/api/history/npm/@acme/app")
    assert history["purl"] == "pkg:npm/%40acme/app"
    assert (await _get(client, "/api/history/maven/org.acme:app"))[
        "purl"
    ] == "pkg:maven/org.acme/app"


async def test_maintainers_and_provenance_carry_the_purl(client: httpx.AsyncClient) -> None:
    # who may publish is the package's: no version
    maint = await _get(client, "/api/maintainers/npm/@acme/widget")
    assert maint["purl"] == "pkg:npm/%40acme/widget"
    # provenance is about one release: the one judged
    pinned = await _get(client, "/api/provenance/npm/sigstore", version="0.4.0")
    assert pinned["purl"] == "pkg:npm/sigstore@0.4.0"
    latest = await _get(client, "/api/provenance/npm/sigstore")
    assert latest["purl"] == f"pkg:npm/sigstore@{latest['version']}"
    pypi = await _get(client, "/api/provenance/pypi/sigstore", version="3.6.1")
    assert pypi["purl"] == "pkg:pypi/sigstore@3.6.1"


async def test_trust_signals_parts_carry_the_purl(client: httpx.AsyncClient) -> None:
    body = await _get(client, "/api/trust/npm/sigstore", version="0.4.0")
    assert body["purl"] == "pkg:npm/sigstore@0.4.0"
    assert body["maintainers"]["purl"] == "pkg:npm/sigstore"
    assert body["provenance"]["purl"] == "pkg:npm/sigstore@0.4.0"


@pytest.mark.parametrize(
    "path",
    [
        "/api/alternatives/{ecosystem}/{package}",
        "/api/breaking/{ecosystem}/{package}",
        "/api/bugs/{ecosystem}/{package}",
        "/api/sameas/{ecosystem}/{package}",
        "/api/tree/{ecosystem}/{package}",
        "/api/licenses/{ecosystem}/{package}",
        "/api/history/{ecosystem}/{package}",
        "/api/maintainers/{ecosystem}/{package}",
        "/api/provenance/{ecosystem}/{package}",
        "/api/quality/{ecosystem}/{package}",
        "/api/scorecard/{ecosystem}/{package}",
        "/api/typosquat/{ecosystem}/{package}",
        "/api/trust/{ecosystem}/{package}",
    ],
)
async def test_openapi_response_models_declare_the_purl(
    client: httpx.AsyncClient, path: str
) -> None:
    doc = (await client.get("/openapi.json")).json()
    ok = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert "$ref" in ok, f"{path} has no response model"
    model = doc["components"]["schemas"][ok["$ref"].rsplit("/", 1)[-1]]
    assert "purl" in model["properties"], path
    assert "purl" not in model.get("required", [])
