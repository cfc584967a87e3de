"""Julia adapter: General registry files (versions, yanked, Deps/Compat sections), Registry.toml as
the existence check, JuliaHub documents, fetch errors."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.packages import Dependency
from pkgintel.ecosystems.julia import (
    JuliaAdapter,
    in_range,
    package_name,
    parse_package,
    parse_registry,
    parse_versions,
    registry_path,
)
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

VERSIONS = """
["0.1.0"]
git-tree-sha1 = "8ea7da8a5a4d6e4d5e3b0c7f3f3c1c6c2b1a0f9e"

["0.2.0"]
git-tree-sha1 = "1f5b8c0f4e5d2b7a9c3e6d8f0a1b2c3d4e5f6a7b"
yanked = true

["0.2.1"]
git-tree-sha1 = "2a6c9d1e5f6a3b8c0d4e7f9a1b2c3d4e5f6a7b8c"

["0.3.0-rc1"]
git-tree-sha1 = "3b7d0e2f6a7b4c9d1e5f8a0b2c3d4e5f6a7b8c9d"
"""
DEPS = """
["0-0.1"]
Statistics = "10745b16-79ce-11e8-11f9-7d13ad32a3b2"

["0.2-0"]
DataFrames = "a93c6f00-e57d-5684-b7b6-d8193f3e46c0"
Statistics = "10745b16-79ce-11e8-11f9-7d13ad32a3b2"
"""
COMPAT = """
["0-0.1"]
julia = "1.6.0-1"

["0.2-0"]
DataFrames = ["0.22", "1.3.0-1"]
julia = "1.9.0-1"
"""
PACKAGE = 'name = "TinyStats"\nuuid = "0b7ba130-8d10-5ba8-a3d6-c5182647fed9"\nrepo = "https://github.com/ann/TinyStats.jl.git"\n'


@pytest.mark.parametrize(
    ("key", "version", "inside"),
    [
        ("0-0.1", "0.1.5", True),
        ("0-0.1", "0.2.0", False),
        ("0.2-0", "0.2.0", True),
        ("0.2-0", "0.99.3", True),
        ("0.2-0", "1.0.0", False),
        ("1", "1.7.2", True),
        ("1.2", "1.3.0", False),
        ("0.3.1-0.4", "0.3.0", False),
        ("0.3.1-0.4", "0.4.9", True),
        ("*", "5.0.0", True),
        ("nonsense", "1.0.0", False),
    ],
)
def test_section_keys_are_pkg_version_ranges(key: str, version: str, inside: bool) -> None:
    assert in_range(key, version) is inside


def test_versions_deps_and_compat_of_the_target_version() -> None:
    info = parse_package(
        "TinyStats",
        versions_toml=VERSIONS,
        package_toml=PACKAGE,
        deps_toml=DEPS,
        compat_toml=COMPAT,
    )
    assert info.latest_version == "0.2.1"  # 0.3.0-rc1 is a pre-release; 0.2.0 is yanked
    assert [r.version for r in info.releases] == ["0.1.0", "0.2.0", "0.2.1", "0.3.0-rc1"]
    assert [r.version for r in info.releases if r.yanked] == ["0.2.0"]
    assert info.dependencies == (
        Dependency("DataFrames", "0.22, 1.3.0-1"),
        Dependency("Statistics", ""),
    )
    assert info.extra["requires_julia"] == "1.9.0-1"
    assert info.extra["uuid"] == "0b7ba130-8d10-5ba8-a3d6-c5182647fed9"
    assert info.repository == "https://github.com/ann/TinyStats.jl"
    assert info.maintainers == ()  # the registry names none and no JuliaHub document was given
    old = parse_package(
        "TinyStats", versions_toml=VERSIONS, deps_toml=DEPS, compat_toml=COMPAT, version="0.1.0"
    )
    assert old.dependencies == (Dependency("Statistics", ""),)
    assert old.extra["requires_julia"] == "1.6.0-1"
    with pytest.raises(VersionNotFound) as caught:
        parse_package("TinyStats", versions_toml=VERSIONS, version="9.9.9")
    assert caught.value.available[0] == "0.3.0-rc1"


def test_registry_deprecation_notice() -> None:
    package = (
        PACKAGE
        + '\n[metadata.deprecated]\nreason = "merged into BigStats"\nalternative = "BigStats"\n'
    )
    info = parse_package("TinyStats", versions_toml=VERSIONS, package_toml=package)
    assert info.deprecated
    assert info.deprecated_message == (
        "deprecated in the General registry: merged into BigStats; alternative: BigStats"
    )
    assert info.extra["deprecated_successor"] == "BigStats"


@pytest.mark.parametrize("text", ["<html>oops</html>", '{"a": 1}', "", "[1, 2, 3]"])
def test_versions_file_that_is_not_one_is_invalid(text: str) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_versions(text)


def test_names_and_paths() -> None:
    assert package_name(" HTTP.jl ") == "HTTP"
    assert registry_path("oneAPI_Level_Zero_jll") == "O/oneAPI_Level_Zero_jll"


@requires_shared
def test_recorded_registry_index_and_juliahub_document() -> None:
    text = read_shared_bytes(
        "registry-fixtures",
        "julia",
        "raw.githubusercontent.com_JuliaRegistries_General_master_Registry.toml.txt.gz",
    ).decode()
    index = parse_registry(text)
    assert len(index.packages) > 7000
    assert index.packages["Inequality"] == ("131cd6a8-f02b-4a66-8ce5-0a80ec47b73f", "I/Inequality")
    # every path but one follows the rule the adapter uses to ask for a package's files directly
    odd = {name: path for name, (_, path) in index.packages.items() if path != registry_path(name)}
    assert odd == {"homebrew": "H/Homebrew"}
    hub = read_shared_json(
        "registry-fixtures", "julia", "juliahub.com_docs_General_Inequality_stable_pkg.json"
    )
    info = parse_package(
        "Inequality", versions_toml=None, juliahub_versions=["0.0.4"], juliahub=hub
    )
    assert (info.latest_version, info.license) == ("0.0.4", "MIT")
    assert info.description == "Julia package for computing inequality indicators"
    assert [m.name for m in info.maintainers] == ["JosepER"]
    assert info.extra["requires_julia"] == "1"
    assert info.extra["dependencies_source"] == "juliahub.com"
    assert "yanked flags unknown" in info.extra["versions_source"]
    assert info.extra["juliahub_stars"] == "5"


ROOT = "/JuliaRegistries/General/master"


def _adapter(client: httpx.AsyncClient) -> JuliaAdapter:
    return JuliaAdapter(
        client,
        base_url=f"https://raw.test{ROOT}",
        juliahub_url="https://hub.test",
    )


async def test_every_file_is_asked_for_at_once_and_the_index_only_when_needed() -> None:
    seen: list[str] = []
    routes = {
        f"{ROOT}/T/TinyStats/Versions.toml": (200, VERSIONS),
        f"{ROOT}/T/TinyStats/Package.toml": (200, PACKAGE),
        f"{ROOT}/T/TinyStats/Deps.toml": (200, DEPS),
        f"{ROOT}/T/TinyStats/Compat.toml": (200, COMPAT),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        info = await _adapter(client).fetch_package("TinyStats.jl")
    assert info.name == "TinyStats"
    assert f"{ROOT}/Registry.toml" not in seen
    sources = {s.name: s.status.value for s in info.sources}
    assert sources == {"juliahub.com": "unavailable"}


async def test_missing_versions_file_falls_back_to_juliahub_when_the_index_lists_the_name() -> None:
    seen: list[str] = []
    index = '[packages]\n0b7ba130-8d10-5ba8-a3d6-c5182647fed9 = { name = "TinyStats", path = "T/TinyStats" }\n'
    routes = {
        f"{ROOT}/Registry.toml": (200, index),
        "/docs/General/TinyStats/versions.json": (200, ["0.1.0", "0.2.0"]),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = _adapter(client)
        info = await adapter.fetch_package("TinyStats")
        assert info.latest_version == "0.2.0"
        assert info.extra["uuid"] == "0b7ba130-8d10-5ba8-a3d6-c5182647fed9"
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package("tinystats")  # names are case-sensitive
    assert seen.count(f"{ROOT}/Registry.toml") == 1  # parsed once, then kept


async def test_folder_that_predates_the_path_rule_is_found_through_the_index() -> None:
    index = '[packages]\nd9be37ee-ecc9-5288-90f1-b9ca67657a75 = { name = "homebrew", path = "H/Homebrew" }\n'
    routes = {
        f"{ROOT}/Registry.toml": (200, index),
        f"{ROOT}/H/Homebrew/Versions.toml": (200, VERSIONS),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await _adapter(client).fetch_package("homebrew")
    assert info.latest_version == "0.2.1"
    assert "versions_source" not in info.extra


async def test_listed_package_with_no_version_source_is_unavailable_not_empty() -> None:
    index = '[packages]\n0b7ba130-8d10-5ba8-a3d6-c5182647fed9 = { name = "TinyStats", path = "T/TinyStats" }\n'
    transport = routes_transport({f"{ROOT}/Registry.toml": (200, index)})
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(RegistryUnavailable):
            await _adapter(client).fetch_package("TinyStats")


async def test_concurrent_misses_share_one_index_fetch() -> None:
    seen: list[str] = []
    transport = routes_transport({f"{ROOT}/Registry.toml": (200, "[packages]\n")}, seen=seen)
    async with httpx.AsyncClient(transport=transport) as client:
        adapter = _adapter(client)
        results = await asyncio.gather(
            *(adapter.fetch_package(n) for n in ("Aa", "Bb", "Cc")), return_exceptions=True
        )
    assert all(isinstance(r, PackageNotFound) for r in results)
    assert seen.count(f"{ROOT}/Registry.toml") == 1


async def test_timeout_of_the_versions_file_is_unavailable() -> None:
    transport = routes_transport({f"{ROOT}/T/TinyStats/Versions.toml": timeout})
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(RegistryUnavailable):
            await _adapter(client).fetch_package("TinyStats")


@requires_shared
def test_every_recorded_julia_osv_range_is_ordered_by_the_julia_ordering() -> None:
    """Real version strings: each `introduced` of the Julia OSV export sorts before its `fixed`
    (and not after its `last_affected`), and every one of them is a valid VersionNumber."""
    import json
    import zipfile

    from pkgintel.domain.packages import Ecosystem
    from pkgintel.domain.versions import compare, is_valid
    from tests.shared import shared_path

    pairs = 0
    with zipfile.ZipFile(shared_path("osv", "Julia", "all.zip")) as z:
        for member in z.namelist():
            record = json.loads(z.read(member))
            for affected in record.get("affected", []):
                for rng in affected.get("ranges", []):
                    introduced = None
                    for event in rng.get("events", []):
                        for value in event.values():
                            assert is_valid(Ecosystem.JULIA, value), value
                        if "introduced" in event:
                            introduced = event["introduced"]
                        elif introduced is not None and "fixed" in event:
                            pairs += 1
                            assert compare(Ecosystem.JULIA, introduced, event["fixed"]) == -1
                        elif introduced is not None and "last_affected" in event:
                            pairs += 1
                            assert compare(Ecosystem.JULIA, introduced, event["last_affected"]) <= 0
    assert pairs > 1000
