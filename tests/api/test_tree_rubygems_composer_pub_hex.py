"""
`/api/tree` for RubyGems, Composer, pub and Hex: small hand-written bodies in each registry's own
format (rubygems.org API v1/v2, Packagist p2, pub.dev `/api/packages`, hex.pm API) for the
resolution rules — the installer's dependency kinds, one version per name (a clash is a
`conflict`), nothing published in range is `unresolved`, platform/SDK/optional requirements are
`skipped` with why — and the recorded monolog/psr-log and bloc/meta bodies from ../shared.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from tests.api.tree_bodies import ids as _ids
from tests.api.tree_bodies import node as _node
from tests.fake_registry import ReplayRegistry

GEMS = "https://rubygems.org"
P2 = "https://repo.packagist.org/p2"
PUB = "https://pub.dev/api/packages"
HEX = "https://hex.pm/api/packages"
CREATED = "2024-05-01T00:00:00.000Z"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories and no OSV fallback: node counts are "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


# --- RubyGems ----------------------------------------------------------------------------------


def gem(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, dict[str, list[tuple[str, str]]]],
    latest: str,
) -> None:
    """`/api/v1/gems`, `/api/v1/versions` and one `/api/v2/rubygems/.../versions/<v>` per version;
    `versions[v]` is `{"runtime": [(name, requirements)], "development": [...]}`."""

    def deps(v: str) -> dict[str, list[dict[str, str]]]:
        return {
            kind: [{"name": n, "requirements": r} for n, r in versions[v].get(kind, [])]
            for kind in ("runtime", "development")
        }

    registry.add(
        f"{GEMS}/api/v1/gems/{name}.json",
        {"name": name, "version": latest, "licenses": ["MIT"], "dependencies": deps(latest)},
    )
    registry.add(
        f"{GEMS}/api/v1/versions/{name}.json",
        [{"number": v, "created_at": CREATED, "platform": "ruby"} for v in versions],
    )
    for v in versions:
        registry.add(
            f"{GEMS}/api/v2/rubygems/{name}/versions/{v}.json",
            {"name": name, "version": v, "licenses": ["MIT"], "dependencies": deps(v)},
        )


async def test_rubygems_tree_runtime_only_one_version_per_name(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    gem(
        registry,
        "tree-gem",
        {
            "1.0.0": {
                "runtime": [("gem-a", "~> 1.2"), ("shared", ">= 2"), ("gone", "~> 9.0")],
                "development": [("rspec", "~> 3.0")],
            }
        },
        "1.0.0",
    )
    # ~> 1.2 takes 1.9.1 (not 2.0.0, not the pre-release 1.9.2.rc1): not the latest, so its own
    # v2 document gives its dependencies
    gem(
        registry,
        "gem-a",
        {
            "1.2.0": {},
            "1.9.1": {"runtime": [("shared", "< 2")]},
            "1.9.2.rc1": {},
            "2.0.0": {},
        },
        "2.0.0",
    )
    gem(registry, "shared", {"1.5.0": {}, "2.1.0": {}}, "2.1.0")
    gem(registry, "gone", {"1.0.0": {}}, "1.0.0")
    resp = await client.get("/api/tree/rubygems/tree-gem")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"tree-gem@1.0.0", "gem-a@1.9.1", "shared@2.1.0"}
    assert _node(body, "gem-a@1.9.1")["dependencies"] == ["shared@2.1.0"]
    [clash] = body["conflicts"]
    assert clash["package"] == "shared" and clash["requirement"] == "< 2"
    assert clash["kept"] == "shared@2.1.0" and clash["required_by"] == "gem-a@1.9.1"
    assert clash["why"].startswith("Bundler installs one version per name")
    [gone] = body["unresolved"]
    assert gone["name"] == "gone" and gone["reason"] == "no_matching_version"
    # development dependencies are not in an install: never an edge, never fetched
    assert not any("/rspec" in h for h in registry.hits)
    assert body["complete"] is True


# --- Composer ----------------------------------------------------------------------------------


def p2(
    registry: ReplayRegistry, name: str, versions: dict[str, dict[str, Any]], **head: Any
) -> None:
    """A p2 document (not minified: every entry complete) with `require`/`require-dev` per version."""
    entries = [
        {"name": name, "version": v, "license": ["MIT"], "time": CREATED, **fields, **head}
        for v, fields in reversed(versions.items())
    ]
    registry.add(f"{P2}/{name}.json", {"packages": {name: entries}})


async def test_composer_tree_skips_platform_and_require_dev(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    p2(
        registry,
        "acme/app",
        {
            "v1.0.0": {
                "require": {
                    "php": ">=8.1",
                    "ext-mbstring": "*",
                    "composer-plugin-api": "^2.0",
                    "acme/lib": "^1.0",
                    "acme/shared": "^2.0",
                    "acme/gone": "^5.0",
                },
                "require-dev": {"phpunit/phpunit": "^10"},
            }
        },
    )
    # ^1.0 takes v1.4.0 (stable), not v1.5.0-beta1 nor v2.0.0
    p2(
        registry,
        "acme/lib",
        {
            "v1.0.0": {},
            "v1.4.0": {"require": {"acme/shared": "~1.0", "lib-curl": ">=7"}},
            "v1.5.0-beta1": {},
            "v2.0.0": {},
        },
    )
    p2(registry, "acme/shared", {"1.0.3": {}, "2.0.1": {}})
    p2(registry, "acme/gone", {"1.0.0": {}})
    resp = await client.get("/api/tree/composer/acme%2Fapp")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"acme/app@v1.0.0", "acme/lib@v1.4.0", "acme/shared@2.0.1"}
    [clash] = body["conflicts"]
    assert clash["package"] == "acme/shared" and clash["requirement"] == "~1.0"
    assert clash["kept"] == "acme/shared@2.0.1" and clash["why"].startswith("Composer")
    [gone] = body["unresolved"]
    assert gone["name"] == "acme/gone" and gone["reason"] == "no_matching_version"
    # platform requirements are skipped with the reason, never unresolved
    skipped = {(s["parent"], s["name"]): s["why"] for s in body["skipped"]}
    for parent, name in (
        ("acme/app@v1.0.0", "php"),
        ("acme/app@v1.0.0", "ext-mbstring"),
        ("acme/app@v1.0.0", "composer-plugin-api"),
        ("acme/lib@v1.4.0", "lib-curl"),
    ):
        assert skipped[(parent, name)].startswith("platform requirement"), name
    assert not any(u["name"] in ("php", "ext-mbstring") for u in body["unresolved"])
    assert not any("phpunit" in h for h in registry.hits)  # require-dev is never installed
    assert body["complete"] is True
    lic = (await client.get("/api/licenses/composer/acme%2Fapp?target=MIT")).json()
    assert lic["by_license"] == {"MIT": 2} and lic["flagged"] == []  # the two dependencies
    assert lic["target_compatibility"]["verdict"] == "compatible"


async def test_composer_tree_on_the_recorded_monolog_and_psr_log(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/api/tree/composer/monolog%2Fmonolog")).json()
    assert body["root"] == "monolog/monolog@3.10.0"
    # monolog 3.10.0 requires psr/log ^2.0 || ^3.0: the recorded psr/log's newest is 3.0.0
    assert _ids(body) == {"monolog/monolog@3.10.0", "psr/log@3.0.0"}
    assert {(s["name"], s["requirement"]) for s in body["skipped"]} >= {("php", ">=8.1")}
    assert body["unresolved"] == [] and body["complete"] is True


# --- pub ---------------------------------------------------------------------------------------


def pub(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, dict[str, Any]],
    latest: str,
    retracted: tuple[str, ...] = (),
) -> None:
    """`/api/packages/<name>`: `versions[v]` is that version's pubspec `dependencies`."""

    def entry(v: str) -> dict[str, Any]:
        return {
            "version": v,
            "pubspec": {"name": name, "version": v, "dependencies": versions[v]},
            "published": CREATED,
            "retracted": v in retracted,
        }

    registry.add(
        f"{PUB}/{name}",
        {"name": name, "latest": entry(latest), "versions": [entry(v) for v in versions]},
    )


async def test_pub_tree_skips_sdk_packages_and_keeps_one_version(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    pub(
        registry,
        "tree_app",
        {
            "1.0.0": {
                "flutter": {"sdk": "flutter"},
                "lib_a": "^0.7.2",
                "shared": ">=2.0.0 <3.0.0",
                "gone": "^4.0.0",
                "forked": {"git": {"url": "https://example.org/forked.git"}},
                "private_pkg": {"hosted": "https://pub.example.org", "version": "^1.0.0"},
            }
        },
        "1.0.0",
    )
    # ^0.7.2 stops below 0.8.0 (pub's caret below 1.0); 0.7.9 is retracted, so 0.7.5
    pub(
        registry,
        "lib_a",
        {"0.7.2": {}, "0.7.5": {"shared": "^1.0.0"}, "0.7.9": {}, "0.8.0": {}},
        "0.8.0",
        retracted=("0.7.9",),
    )
    pub(registry, "shared", {"1.4.0": {}, "2.2.0": {}, "3.0.0-dev.1": {}}, "2.2.0")
    pub(registry, "gone", {"1.0.0": {}}, "1.0.0")
    resp = await client.get("/api/tree/pub/tree_app")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"tree_app@1.0.0", "lib_a@0.7.5", "shared@2.2.0"}
    [clash] = body["conflicts"]
    assert clash["package"] == "shared" and clash["required_by"] == "lib_a@0.7.5"
    assert clash["why"].startswith("pub installs one version per name")
    reasons = {u["name"]: u["reason"] for u in body["unresolved"]}
    # git and other-host sources are installed, but not from pub.dev: named, not looked up
    assert reasons == {
        "gone": "no_matching_version",
        "forked": "unevaluable",
        "private_pkg": "unevaluable",
    }
    assert not any(h.endswith(("/forked", "/private_pkg")) for h in registry.hits)
    [flutter] = body["skipped"]
    assert flutter["name"] == "flutter" and "SDK" in flutter["why"]


async def test_pub_tree_on_the_recorded_bloc_and_meta(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/tree/pub/bloc")).json()
    assert body["root"] == "bloc@8.0.3"
    meta = next(n for n in body["nodes"] if n["name"] == "meta")
    assert meta["depth"] == 1 and meta["requirement"] == "^1.3.0"
    assert meta["version"].startswith("1.")  # the newest recorded 1.x, never 2.x


# --- Hex ---------------------------------------------------------------------------------------


def hex_package(
    registry: ReplayRegistry, name: str, releases: dict[str, dict[str, Any]], latest: str
) -> None:
    """`/api/packages/<name>` and one `/releases/<v>` per version; `releases[v]` is its
    `requirements` (`{dep: {"requirement": ..., "optional": ...}}`)."""
    registry.add(
        f"{HEX}/{name}",
        {
            "name": name,
            "latest_stable_version": latest,
            "releases": [{"version": v, "inserted_at": CREATED} for v in releases],
            "meta": {"licenses": ["Apache-2.0"]},
        },
    )
    for v, requirements in releases.items():
        registry.add(
            f"{HEX}/{name}/releases/{v}",
            {"version": v, "inserted_at": CREATED, "requirements": requirements},
        )


def req(requirement: str, optional: bool = False) -> dict[str, Any]:
    return {"app": "x", "requirement": requirement, "optional": optional}


async def test_hex_tree_leaves_optional_requirements_out(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    hex_package(
        registry,
        "tree_app",
        {
            "1.0.0": {
                "plug_x": req("~> 1.14"),
                "shared": req(">= 2.0.0"),
                "jason": req("~> 1.0", optional=True),
                "gone": req("~> 9.0"),
            }
        },
        "1.0.0",
    )
    # ~> 1.14 takes 1.14.2 (not the rc nor 2.0.0)
    hex_package(
        registry,
        "plug_x",
        {"1.13.0": {}, "1.14.2": {"shared": req("~> 1.0")}, "1.15.0-rc.0": {}, "2.0.0": {}},
        "2.0.0",
    )
    hex_package(registry, "shared", {"1.2.0": {}, "2.0.1": {}}, "2.0.1")
    hex_package(registry, "gone", {"1.0.0": {}}, "1.0.0")
    resp = await client.get("/api/tree/hex/tree_app")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"tree_app@1.0.0", "plug_x@1.14.2", "shared@2.0.1"}
    [clash] = body["conflicts"]
    assert clash["package"] == "shared" and clash["requirement"] == "~> 1.0"
    assert clash["why"].startswith("mix installs one version per name")
    [gone] = body["unresolved"]
    assert gone["name"] == "gone" and gone["reason"] == "no_matching_version"
    [jason] = body["skipped"]
    assert jason["name"] == "jason" and "optional" in jason["why"]
    assert not any(h.endswith("/jason") for h in registry.hits)
    assert all(n["dependencies_known"] for n in body["nodes"])


async def test_hex_release_document_missing_is_named_not_an_empty_list(
    client: httpx.AsyncClient,
) -> None:
    # the recorded phoenix body has no release document for 1.4.0: its dependencies are unknown
    body = (await client.get("/api/tree/hex/phoenix")).json()
    root = _node(body, body["root"])
    assert root["dependencies_known"] is False


# --- NuGet -------------------------------------------------------------------------------------

NUGET = "https://api.nuget.org/v3/registration5-gz-semver2"


def nuget(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, list[tuple[str | None, list[tuple[str, str]]]]],
    unlisted: tuple[str, ...] = (),
) -> None:
    """A registration index with every leaf inline; `versions[v]` is its dependency groups as
    `(targetFramework or None, [(id, range)])`."""
    leaves = [
        {
            "catalogEntry": {
                "id": name,
                "version": v,
                "listed": v not in unlisted,
                "published": "2024-05-01T00:00:00+00:00",
                "licenseExpression": "MIT",
                "dependencyGroups": [
                    {
                        **({"targetFramework": fw} if fw else {}),
                        "dependencies": [{"id": d, "range": r} for d, r in deps],
                    }
                    for fw, deps in groups
                ],
            }
        }
        for v, groups in versions.items()
    ]
    page = {"count": len(leaves), "lower": next(iter(versions)), "upper": list(versions)[-1]}
    registry.add(
        f"{NUGET}/{name.lower()}/index.json", {"count": 1, "items": [{**page, "items": leaves}]}
    )


async def test_nuget_tree_lowest_applicable_in_the_net8_group(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    nuget(
        registry,
        "Tree.App",
        {
            "1.0.0": [
                (".NETFramework4.6.2", [("Legacy.Only", "[1.0.0, )")]),
                (".NETStandard2.0", [("Std.Only", "[1.0.0, )")]),
                (
                    "net6.0",
                    [("Lib.A", "[1.1.0, )"), ("Shared", "[1.0.0, 2.0.0)"), ("Gone", "[9.0.0, )")],
                ),
            ]
        },
    )
    # lowest applicable: 1.1.0 is unlisted, so 1.2.0 (never the newest 3.0.0)
    nuget(
        registry,
        "Lib.A",
        {
            "1.0.0": [],
            "1.1.0": [],
            "1.2.0": [(None, [("Shared", "[2.0.0, )")])],
            "3.0.0": [],
        },
        unlisted=("1.1.0",),
    )
    nuget(registry, "Shared", {"1.0.0": [], "1.5.0": [], "2.1.0": []})
    nuget(registry, "Gone", {"1.0.0": []})
    resp = await client.get("/api/tree/nuget/Tree.App")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["environment"] == {"target_framework": "net8.0"}
    assert _ids(body) == {"Tree.App@1.0.0", "Lib.A@1.2.0", "Shared@1.0.0"}
    [clash] = body["conflicts"]
    assert clash["package"] == "Shared" and clash["requirement"] == "[2.0.0, )"
    assert clash["kept"] == "Shared@1.0.0" and clash["why"].startswith("NuGet restore")
    [gone] = body["unresolved"]
    assert gone["name"] == "Gone" and gone["reason"] == "no_matching_version"
    skipped = {s["name"]: s["why"] for s in body["skipped"]}
    assert set(skipped) == {"Legacy.Only", "Std.Only"}
    assert "net8.0 project uses the net6.0 group" in skipped["Std.Only"]
    assert not any("std.only" in h.lower() for h in registry.hits)


async def test_nuget_tree_on_recorded_registrations(client: httpx.AsyncClient) -> None:
    # NuGet.Server.Core 3.4.2 has one framework-agnostic group; Newtonsoft.Json [13.0.1, ) takes
    # the lowest version in range the recorded (trimmed) SemVer 2 index lists: 13.0.3
    body = (await client.get("/api/tree/nuget/NuGet.Server.Core")).json()
    newtonsoft = next(n for n in body["nodes"] if n["name"] == "Newtonsoft.Json")
    assert newtonsoft["version"] == "13.0.3" and newtonsoft["requirement"] == "[13.0.1, )"
    assert body["skipped"] == []
    # Castle.Core 5.2.1 for net8.0: the net6.0 group (EventLog [6.0.0, )), not .NETStandard2.0's
    castle = (await client.get("/api/tree/nuget/Castle.Core")).json()
    declared = {(u["name"], u["requirement"]) for u in castle["unresolved"]} | {
        (n["name"], n["requirement"]) for n in castle["nodes"] if n["depth"] == 1
    }
    assert declared == {("System.Diagnostics.EventLog", "[6.0.0, )")}
    skipped = {(s["name"], s["requirement"]) for s in castle["skipped"]}
    assert ("System.Reflection.Emit", "[4.7.0, )") in skipped
    assert ("System.Diagnostics.EventLog", "[4.7.0, )") in skipped
