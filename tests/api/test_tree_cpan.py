"""
`/api/tree/cpan`: hand-written MetaCPAN release documents, release searches and module documents
(in MetaCPAN's own shapes) for cpanm's rules — modules mapped to the distributions that ship them,
core modules of perl 5.36.0 skipped, ranges over distribution versions, a bounded requirement on a
module that is not the main one `unevaluable` — and the recorded Dpkg bodies from ../shared.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from tests.api.tree_bodies import ids, node
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

CPAN = "https://fastapi.metacpan.org/v1"
DATE = "2024-05-01T00:00:00"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories and no OSV fallback: node counts are "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


def _prereq(module: str, version: str, phase: str = "runtime", rel: str = "requires") -> Any:
    return {"module": module, "version": version, "phase": phase, "relationship": rel}


def dist(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, list[dict[str, str]]],
    *,
    latest: str,
    main: str,
    provides: tuple[str, ...] = (),
    modules: tuple[str, ...] = (),
) -> None:
    """A distribution: its latest release document, the version search, an older release's
    document per other version, and a module-index document for each of `modules`."""

    def doc(version: str) -> dict[str, Any]:
        return {
            "distribution": name,
            "version": version,
            "date": DATE,
            "author": "ANNA",
            "license": ["perl_5"],
            "main_module": main,
            "provides": [main, *provides],
            "dependency": versions[version],
        }

    registry.add(f"{CPAN}/release/{name}", doc(latest))
    hits = [{"fields": {"version": v, "date": DATE}} for v in versions]
    registry.add(
        f"{CPAN}/release/_search?fields=version,date&q=distribution:{name}&size=5000",
        {"hits": {"hits": hits}},
    )
    for v in versions:
        if v != latest:
            registry.add(
                f'{CPAN}/release/_search?q=distribution:{name} AND version:"{v}"&size=1',
                {"hits": {"hits": [{"_source": doc(v)}]}},
            )
    for module in modules:
        registry.add(f"{CPAN}/module/{module}", {"name": module, "distribution": name})


def _unresolved(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {u["name"]: (u["reason"], u["detail"]) for u in body["unresolved"]}


def _skipped(body: dict[str, Any]) -> dict[str, str]:
    return {s["name"]: s["why"] for s in body["skipped"]}


async def test_cpan_tree_maps_modules_to_distributions_and_skips_core_modules(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    dist(
        registry,
        "App-Root",
        {
            "1.0": [
                _prereq("strict", "0"),  # core, any version
                _prereq("List::Util", "1.45"),  # core: perl 5.36.0 ships 1.62
                _prereq("Test::More", "1.302195"),  # core, but perl's 1.302190 is too old
                _prereq("Moo::Role", "0"),  # shipped by Moo: any version
                _prereq("Plack", "== 1.0047"),  # an exact range: not the newest
                _prereq("Plack::Request", "1.0"),  # bounded, not Plack's main module
                _prereq("JSON::XS", "0", rel="recommends"),
                _prereq("Test::Deep", "0", phase="test"),
            ]
        },
        latest="1.0",
        main="App::Root",
    )
    dist(
        registry,
        "Test-Simple",
        {"1.302190": [], "1.302199": [], "1.302200_01": []},
        latest="1.302200_01",
        main="Test::More",
        provides=("Test::Builder",),
        modules=("Test::More",),
    )
    dist(
        registry,
        "Moo",
        {"2.005005": [_prereq("Role::Tiny", ">= 2.002003, < 3")]},
        latest="2.005005",
        main="Moo",
        provides=("Moo::Role",),
        modules=("Moo::Role",),
    )
    dist(
        registry,
        "Role-Tiny",
        {"2.001004": [], "2.002004": [], "3.000000": []},
        latest="3.000000",
        main="Role::Tiny",
    )
    dist(
        registry,
        "Plack",
        {"1.0047": [], "1.0048": [], "1.0050": []},
        latest="1.0050",
        main="Plack",
        provides=("Plack::Request",),
        modules=("Plack::Request",),
    )
    resp = await client.get("/api/tree/cpan/App-Root")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert ids(body) == {
        "App-Root@1.0",
        "Test-Simple@1.302199",  # newest in range, the developer release 1.302200_01 skipped
        "Moo@2.005005",
        "Role-Tiny@2.002004",  # >= 2.002003, < 3: not 3.000000
        "Plack@1.0047",  # == 1.0047
    }
    assert node(body, "Role-Tiny@2.002004")["depth"] == 2
    assert node(body, "Role-Tiny@2.002004")["requirement"] == ">= 2.002003, < 3"
    assert node(body, "Moo@2.005005")["dependencies"] == ["Role-Tiny@2.002004"]
    skipped = _skipped(body)
    assert skipped["strict"] == "ships with perl 5.36.0"
    assert "1.62" in skipped["List::Util"]
    assert skipped["JSON::XS"].startswith("optional prerequisite")
    assert skipped["Test::Deep"].startswith("dev prerequisite")
    assert "Test::More" not in skipped
    reason, detail = _unresolved(body)["Plack::Request"]
    assert reason == "unevaluable"
    assert "not the main module of Plack" in detail
    assert body["environment"] == {"perl": "5.36.0", "installer": "cpanm"}
    licences = (await client.get("/api/licenses/cpan/App-Root")).json()
    # an unevaluable edge leaves part of the tree unknown: never `compatible`
    assert licences["compatibility"]["verdict"] != "compatible"


async def test_cpan_module_already_installed_is_reused_or_a_conflict(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    dist(
        registry,
        "Web-App",
        {"0.1": [_prereq("Plack", "== 1.0047"), _prereq("Web::Helper", "0")]},
        latest="0.1",
        main="Web::App",
    )
    dist(
        registry,
        "Web-Helper",
        {"2.0": [_prereq("Plack", "1.0048"), _prereq("Plack::Request", "0")]},
        latest="2.0",
        main="Web::Helper",
    )
    dist(
        registry,
        "Plack",
        {"1.0047": [], "1.0048": []},
        latest="1.0048",
        main="Plack",
        provides=("Plack::Request",),
        modules=("Plack::Request",),
    )
    body = (await client.get("/api/tree/cpan/Web-App")).json()
    assert ids(body) == {"Web-App@0.1", "Web-Helper@2.0", "Plack@1.0047"}
    # Plack::Request (any version) is shipped by the Plack already in the tree
    assert node(body, "Web-Helper@2.0")["dependencies"] == ["Plack@1.0047"]
    [conflict] = body["conflicts"]
    assert conflict["package"] == "Plack" and conflict["kept"] == "Plack@1.0047"
    assert "one version of a distribution" in conflict["why"]


async def test_cpan_module_no_distribution_ships_is_not_found_and_core_only_needs_perl(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    prereqs = [_prereq("No::Such::Module", "0"), _prereq("strict", "9")]
    dist(registry, "Lone", {"1": prereqs}, latest="1", main="Lone")
    # `strict` is shipped only with perl (1.12 in 5.36.0): the module index names perl itself
    registry.add(f"{CPAN}/module/strict", {"name": "strict", "distribution": "perl"})
    dist(registry, "perl", {"5.36.0": [], "5.40.0": []}, latest="5.40.0", main="perl")
    body = (await client.get("/api/tree/cpan/Lone")).json()
    unresolved = _unresolved(body)
    reason, detail = unresolved["No::Such::Module"]
    assert reason == "not_found" and "No::Such::Module" in detail
    reason, detail = unresolved["strict"]
    assert reason == "unevaluable" and "newer perl" in detail
    assert ids(body) == {"Lone@1"}  # never a node for perl itself


@requires_shared
async def test_cpan_tree_of_the_recorded_dpkg(client: httpx.AsyncClient) -> None:
    # Dpkg v1.21.5 declares no runtime `requires` besides perl: the tree is the root, and every
    # prerequisite an install does not follow is listed with why
    resp = await client.get("/api/tree/cpan/Dpkg")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert ids(body) == {"Dpkg@v1.21.5"}
    assert body["unresolved"] == [] and body["complete"] is True
    skipped = _skipped(body)
    assert skipped["Locale::gettext"].startswith("optional prerequisite")
    assert skipped["Module::Build"].startswith("dev prerequisite")
    assert "perl" not in skipped
