"""
`/api/tree` for Conda, Homebrew and CocoaPods: small hand-written bodies in each registry's own
format (anaconda.org `/package/{channel}/{name}`, formulae.brew.sh `/api/formula/{name}.json`, the
CocoaPods CDN shards and podspecs) for the installer rules — conda match specs, virtual packages
and `python` skipped, channels kept; Homebrew runtime and recommended dependencies, build,
optional and macOS-provided ones skipped; CocoaPods `~>` requirements, subspecs and platforms —
and the recorded pytest, abook and AppNetworkManager bodies from ../shared. Swift answers 422 with
the reason.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.ecosystems.cocoapods import shard
from tests.api.tree_bodies import ids as _ids
from tests.api.tree_bodies import node as _node
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

ANACONDA = "https://api.anaconda.org/package"
BREW = "https://formulae.brew.sh/api/formula"
PODS = "https://cdn.cocoapods.org"
UPLOADED = "2024-05-01 10:00:00.000000+00:00"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories and no OSV fallback: node counts are "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


def _skipped(body: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(s["parent"], s["name"]): s["why"] for s in body["skipped"]}


# --- Conda -------------------------------------------------------------------------------------


def conda(
    registry: ReplayRegistry,
    name: str,
    versions: dict[str, list[str]],
    *,
    channel: str = "conda-forge",
    broken: tuple[str, ...] = (),
    license: str = "MIT",
) -> None:
    """One anaconda.org package body: one noarch build per version with `depends`; versions in
    `broken` carry only the `broken` label (not installable)."""
    files = [
        {
            "version": v,
            "basename": f"noarch/{name}-{v}-pyh_0.conda",
            "upload_time": UPLOADED,
            "labels": ["broken"] if v in broken else ["main"],
            "ndownloads": 1,
            "attrs": {"subdir": "noarch", "depends": deps},
        }
        for v, deps in versions.items()
    ]
    registry.add(
        f"{ANACONDA}/{channel}/{name}",
        {
            "name": name,
            "versions": list(versions),
            "latest_version": list(versions)[-1],
            "releases": [
                {"version": v, "distributions": [f"noarch/{name}-{v}-pyh_0.conda"]}
                for v in versions
            ],
            "files": files,
            "license": license,
            "summary": name,
        },
    )


async def test_conda_tree_match_specs_virtual_packages_and_python(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    conda(
        registry,
        "tree-app",
        {
            "1.0": [
                "libfoo >=1.2,<2.0a0",
                "shared 2.*",
                "python >=3.9",
                "__glibc >=2.17,<3.0.a0",
                "gone >=9",
                "blas * openblas",
            ]
        },
    )
    # >=1.2,<2.0a0 takes 1.5: 1.9 has only a `broken` build, 2.0 is out of range
    conda(
        registry,
        "libfoo",
        {"1.1": [], "1.5": ["shared <2", "blas"], "1.9": [], "2.0": []},
        broken=("1.9",),
    )
    conda(registry, "shared", {"1.0": [], "2.1": []})
    conda(registry, "gone", {"1.0": []})
    conda(registry, "blas", {"2.106": []}, license="BSD-3-Clause")
    resp = await client.get("/api/tree/conda/tree-app")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {"tree-app@1.0", "libfoo@1.5", "shared@2.1", "blas@2.106"}
    assert _node(body, "libfoo@1.5")["dependencies"] == ["shared@2.1", "blas@2.106"]
    [clash] = body["conflicts"]
    assert clash["package"] == "shared" and clash["requirement"] == "<2"
    assert clash["kept"] == "shared@2.1" and "SAT solver" in clash["why"]
    [gone] = body["unresolved"]
    assert gone["name"] == "gone" and gone["reason"] == "no_matching_version"
    skipped = _skipped(body)
    assert skipped[("tree-app@1.0", "__glibc")].startswith("virtual package")
    assert "admits Python 3.13" in skipped[("tree-app@1.0", "python")]
    assert not any("glibc" in h or "/python" in h for h in registry.hits)  # never looked up
    assert body["environment"]["platform"] == "noarch"
    assert body["complete"] is True


async def test_conda_dependencies_stay_on_the_parent_channel(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    conda(registry, "chan-app", {"2.0": ["six >=1.10"]}, channel="anaconda")
    conda(registry, "six", {"1.16.0": []}, channel="anaconda")
    conda(registry, "six", {"1.17.0": []})  # the conda-forge one is not what anaconda users get
    body = (await client.get("/api/tree/conda/anaconda%2Fchan-app")).json()
    assert _ids(body) == {"anaconda/chan-app@2.0", "anaconda/six@1.16.0"}
    assert body["environment"]["channel"] == "anaconda"


@requires_shared
async def test_conda_tree_on_the_recorded_pytest_build(client: httpx.AsyncClient) -> None:
    # the recorded body lists every version but carries the one linux-32 build of 3.10.0
    body = (await client.get("/api/tree/conda/pytest?version=3.10.0")).json()
    assert body["root"] == "pytest@3.10.0"
    why = _skipped(body)[("pytest@3.10.0", "python")]
    assert "python >=2.7,<2.8.0a0, which does not admit Python 3.13" in why
    # its dependencies are not recorded: each edge says so, none is invented
    assert {u["name"] for u in body["unresolved"]} == {
        "atomicwrites",
        "attrs",
        "funcsigs",
        "more-itertools",
        "pathlib2",
        "pluggy",
        "py",
        "setuptools",
        "six",
    }
    assert {u["reason"] for u in body["unresolved"]} == {"not_found"}
    assert body["environment"]["platform"] == "linux-32"
    # the latest version has no build in the recorded file list: its subtree is unknown, not empty
    latest = (await client.get("/api/tree/conda/pytest")).json()
    assert latest["root"] == "pytest@6.2.5"
    assert _node(latest, "pytest@6.2.5")["dependencies_known"] is False


# --- Homebrew ----------------------------------------------------------------------------------


def formula(registry: ReplayRegistry, name: str, version: str, **deps: Any) -> None:
    registry.add(
        f"{BREW}/{name}.json",
        {
            "name": name,
            "versions": {"stable": version, "bottle": True},
            "license": "MIT",
            "dependencies": deps.get("dependencies", []),
            "build_dependencies": deps.get("build", []),
            "recommended_dependencies": deps.get("recommended", []),
            "optional_dependencies": deps.get("optional", []),
            "uses_from_macos": deps.get("uses_from_macos", []),
        },
    )


async def test_homebrew_tree_runtime_and_recommended_on_macos(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    formula(
        registry,
        "tree-tool",
        "2.1",
        dependencies=["openssl@3", "zstd", "someone/tap/thing"],
        recommended=["gnupg"],
        optional=["pinentry"],
        build=["cmake"],
        uses_from_macos=["zlib", {"bison": "build"}],
    )
    formula(registry, "openssl@3", "3.4.0", dependencies=["ca-certificates"])
    formula(registry, "ca-certificates", "2025-01-01")
    formula(registry, "zstd", "1.5.6", dependencies=["lz4", "ca-certificates"])
    formula(registry, "lz4", "1.10.0")
    formula(registry, "gnupg", "2.4.7")
    resp = await client.get("/api/tree/homebrew/tree-tool")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert _ids(body) == {
        "tree-tool@2.1",
        "openssl@3@3.4.0",
        "zstd@1.5.6",
        "gnupg@2.4.7",
        "ca-certificates@2025-01-01",
        "lz4@1.10.0",
    }
    # one version per formula: the second edge to ca-certificates reuses the node, no conflict
    assert _node(body, "ca-certificates@2025-01-01")["required_by"] == [
        "openssl@3@3.4.0",
        "zstd@1.5.6",
    ]
    assert body["conflicts"] == []
    skipped = _skipped(body)
    assert skipped[("tree-tool@2.1", "pinentry")].startswith("optional")
    assert "provided by macOS" in skipped[("tree-tool@2.1", "zlib")]
    assert "bottle" in skipped[("tree-tool@2.1", "cmake")]
    assert ("tree-tool@2.1", "bison") not in skipped  # only for building: not even declared
    [tap] = body["unresolved"]
    assert tap["name"] == "someone/tap/thing" and tap["reason"] == "unevaluable"
    assert not any(
        h.endswith(("/pinentry.json", "/zlib.json", "/cmake.json")) for h in registry.hits
    )
    assert body["environment"] == {"platform": "macOS"}


@requires_shared
async def test_homebrew_tree_on_the_recorded_abook(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/tree/homebrew/abook")).json()
    assert body["root"] == "abook@0.6.1"
    assert {(u["name"], u["reason"]) for u in body["unresolved"]} == {
        ("gettext", "not_found"),
        ("readline", "not_found"),
    }
    skipped = _skipped(body)
    assert set(skipped) == {("abook@0.6.1", "autoconf"), ("abook@0.6.1", "automake")}
    lic = (await client.get("/api/licenses/homebrew/abook")).json()
    assert lic["license"].startswith("GPL-2.0-only AND")


# --- CocoaPods ---------------------------------------------------------------------------------


class Pods:
    """CDN shards (one per MD5 prefix, several pods each) and podspecs."""

    def __init__(self, registry: ReplayRegistry) -> None:
        self.registry = registry
        self.shards: dict[tuple[str, str, str], list[str]] = {}

    def add(self, name: str, specs: dict[str, dict[str, Any]]) -> None:
        key = shard(name)
        self.shards.setdefault(key, []).append("/".join([name, *specs]))
        a, b, c = key
        self.registry.add(
            f"{PODS}/all_pods_versions_{a}_{b}_{c}.txt", "\n".join(self.shards[key]).encode()
        )
        for version, fields in specs.items():
            self.registry.add(
                f"{PODS}/Specs/{a}/{b}/{c}/{name}/{version}/{name}.podspec.json",
                {"name": name, "version": version, "license": "MIT", **fields},
            )


async def test_cocoapods_tree_requirements_subspecs_and_platforms(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    pods = Pods(registry)
    pods.add(
        "TreeApp",
        {
            "1.0.0": {
                "dependencies": {"Net/Rx": ["~> 2.0"], "Log": ["~> 1.2"], "Gone": ["~> 9.0"]},
                "osx": {"dependencies": {"MacOnly": []}},
            }
        },
    )
    net = {
        "dependencies": {"Alamofire": ["~> 5.0"]},
        "default_subspecs": "Core",
        "subspecs": [
            {"name": "Core"},
            {"name": "Rx", "dependencies": {"Net/Core": [], "RxSwift": ["~> 6.0"]}},
            {"name": "Combine", "dependencies": {"CombineExt": []}},
        ],
    }
    # ~> 2.0 takes 2.1.0: not the pre-release 2.2.0-beta.1, not 3.0.0
    pods.add("Net", dict.fromkeys(("1.0.0", "2.0.0", "2.1.0", "2.2.0-beta.1", "3.0.0"), net))
    pods.add("Log", {"1.2.0": {}, "1.3.0": {"dependencies": {"Alamofire": ["~> 4.0"]}}})
    pods.add("Alamofire", {"4.9.0": {}, "5.8.0": {}})
    pods.add("RxSwift", {"6.5.0": {}})
    pods.add("CombineExt", {"1.8.1": {}})
    pods.add("Gone", {"1.0.0": {}})
    resp = await client.get("/api/tree/cocoapods/TreeApp")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    # Net was asked for its Rx subspec: Rx's RxSwift and the root's Alamofire, not CombineExt
    assert _ids(body) == {
        "TreeApp@1.0.0",
        "Net@2.1.0",
        "Log@1.3.0",
        "Alamofire@5.8.0",
        "RxSwift@6.5.0",
    }
    assert _node(body, "Net@2.1.0")["requirement"] == "~> 2.0"
    [clash] = body["conflicts"]
    assert clash["package"] == "Alamofire" and clash["requirement"] == "~> 4.0"
    assert clash["kept"] == "Alamofire@5.8.0" and "Molinillo" in clash["why"]
    [gone] = body["unresolved"]
    assert gone["name"] == "Gone" and gone["reason"] == "no_matching_version"
    assert _skipped(body)[("TreeApp@1.0.0", "MacOnly")] == "only on osx; this tree is for ios"
    assert not any("CombineExt" in h for h in registry.hits)
    assert body["environment"]["platform"] == "ios"

    # asked for by name, the pod brings its default subspec (Core: nothing more); `extras` names
    # the root's subspecs instead
    plain = (await client.get("/api/tree/cocoapods/Net")).json()
    assert _ids(plain) == {"Net@3.0.0", "Alamofire@5.8.0"}
    assert plain["environment"]["subspecs"] == "Core"
    combine = (await client.get("/api/tree/cocoapods/Net?extras=Combine")).json()
    assert _ids(combine) == {"Net@3.0.0", "Alamofire@5.8.0", "CombineExt@1.8.1"}


async def test_cocoapods_subspec_asked_after_its_pod_was_expanded_is_named(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    pods = Pods(registry)
    pods.add("LateApp", {"1.0.0": {"dependencies": {"Kit": [], "Mid": [], "Kit/Gone": []}}})
    pods.add("Mid", {"1.0.0": {"dependencies": {"Kit/Extra": []}}})
    pods.add(
        "Kit",
        {
            "1.0.0": {
                "default_subspecs": "Core",
                "subspecs": [
                    {"name": "Core"},
                    {"name": "Extra", "dependencies": {"Extras": []}},
                ],
            }
        },
    )
    body = (await client.get("/api/tree/cocoapods/LateApp")).json()
    late, gone = sorted(body["unresolved"], key=lambda u: u["name"])
    # a subspec the chosen version does not have is named, never silently dropped
    assert gone["name"] == "Kit/Gone" and gone["reason"] == "not_found"
    assert (
        gone["required_by"] == "LateApp@1.0.0" and gone["detail"] == "Kit@1.0.0 has no subspec Gone"
    )
    assert late["name"] == "Kit/Extra" and late["reason"] == "not_looked_up"
    assert late["required_by"] == "Mid@1.0.0"
    assert body["complete"] is False  # never cached as if whole


@requires_shared
async def test_cocoapods_tree_on_the_recorded_app_network_manager(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/api/tree/cocoapods/AppNetworkManager?version=1.0.0")).json()
    assert body["root"] == "AppNetworkManager@1.0.0"
    # Moya/RxSwift is the pod Moya; none of the four is recorded, so each edge says not_found
    assert {(u["name"], u["requirement"], u["reason"]) for u in body["unresolved"]} == {
        ("HandyJSON", "~> 5.0.0", "not_found"),
        ("Moya", "~> 13.0.1", "not_found"),
        ("RxSwift", "~>4.5.0", "not_found"),
        ("RxCocoa", "~>4.5.0", "not_found"),
    }


# --- Swift -------------------------------------------------------------------------------------


async def test_swift_tree_is_a_422_that_says_why(client: httpx.AsyncClient) -> None:
    for path in ("/api/tree/swift/apple%2Fswift-nio", "/api/licenses/swift/apple%2Fswift-nio"):
        resp = await client.get(path)
        assert resp.status_code == 422, resp.text
        # the project's 422 for a value it cannot use: FastAPI's validation body (api/errors.py)
        [error] = resp.json()["detail"]
        assert error["loc"] == ["path", "ecosystem"] and error["input"] == "swift"
        detail = error["msg"]
        # what was checked and why none of it is dependency data: never a 500, never a guess
        assert "not resolvable" in detail and "Package.swift" in detail
        assert "Package.resolved" in detail and "cpan" in detail  # the ecosystems that have trees
