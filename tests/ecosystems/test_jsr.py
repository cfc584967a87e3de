"""JSR adapter: meta.json versions (dates, yanked), the version document's module graph, the
api.jsr.io package document, names, fetch order and errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import (
    InvalidInput,
    PackageNotFound,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.packages import Dependency
from pkgintel.domain.versions import newest_first
from pkgintel.ecosystems.jsr import JsrAdapter, dependencies, parse_package, split_name
from tests.ecosystems._routes import routes_transport
from tests.shared import read_shared_json, requires_shared


def fixture(name: str) -> Any:
    return read_shared_json("registry-fixtures", "jsr", name)


META = {
    "scope": "ann",
    "name": "tiny",
    "latest": "1.1.0",
    "versions": {
        "1.1.0": {"createdAt": "2025-05-02T10:00:00.000000Z"},
        "1.0.0": {"createdAt": "2024-11-20T09:30:00.000000Z"},
        "2.0.0-rc.1": {"createdAt": "2025-07-01T08:00:00.000000Z"},
        "0.9.0": {"yanked": True, "createdAt": "2024-08-01T12:00:00.000000Z"},
    },
}
GRAPH = {
    "/mod.ts": {
        "dependencies": [
            {"type": "static", "kind": "import", "specifier": "jsr:@std/assert@^1.0.0"},
            {"type": "static", "kind": "import", "specifier": "jsr:@std/path@^1.0.8/posix"},
            {"type": "static", "kind": "import", "specifier": "npm:@types/node@^22"},
            {"type": "dynamic", "kind": "import", "specifier": "npm:chalk@5"},
            {"type": "static", "kind": "import", "specifier": "./util.ts"},
            {"type": "static", "kind": "import", "specifier": "https://deno.land/x/a/mod.ts"},
        ]
    },
    "/util.ts": {
        "dependencies": [
            {"type": "static", "kind": "import", "specifier": "jsr:@std/assert@^1.0.0"}
        ]
    },
}
API = {
    "scope": "ann",
    "name": "tiny",
    "description": "A tiny helper",
    "githubRepository": {"owner": "ann", "name": "tiny"},
    "runtimeCompat": {"browser": True, "deno": True, "node": False},
    "score": 88,
    "isArchived": False,
    "license": "MIT",
}


@requires_shared
@pytest.mark.parametrize(
    ("file", "latest", "count"),
    [
        ("jsr.io_@std_path_meta.json", "1.1.3", 55),
        ("jsr.io_@std_fs_meta.json", None, None),
        ("jsr.io_@std_assert_meta.json", None, None),
        ("jsr.io_@db_sqlite_meta.json", "0.13.0", 4),
    ],
)
def test_recorded_meta_files(file: str, latest: str | None, count: int | None) -> None:
    body = fixture(file)
    info = parse_package(body)
    assert info.latest_version == body["latest"]
    if latest is not None:
        assert (info.latest_version, len(info.releases)) == (latest, count)
    # the registry's `latest` is the highest non-yanked release under SemVer ordering
    ordered = newest_first(info.ecosystem, [r.version for r in info.releases if not r.prerelease])
    assert ordered[0] == body["latest"]
    assert all(r.published_at is not None for r in info.releases)
    assert info.extra["dependencies_unavailable"] == "jsr.io version metadata unavailable"


@requires_shared
def test_recorded_std_path_yanked_and_version_document() -> None:
    info = parse_package(
        fixture("jsr.io_@std_path_meta.json"),
        version_meta=fixture("jsr.io_@std_path_1.1.3_meta.json"),
    )
    assert [r.version for r in info.releases if r.yanked] == ["0.225.0"]
    assert [r.version for r in info.releases if r.prerelease] == [
        "1.0.0-rc.1",
        "1.0.0-rc.2",
        "1.0.0-rc.3",
        "1.0.0-rc.4",
    ]
    # Deno's vendored copy drops the module graph: dependencies unknown, not "none"
    assert info.extra["dependencies_unavailable"] == "jsr.io version metadata has no module graph"


def test_module_graph_gives_jsr_and_npm_dependencies_once() -> None:
    assert dependencies(GRAPH) == (
        Dependency("@std/assert", "^1.0.0"),
        Dependency("@std/path", "^1.0.8"),
        Dependency("npm:@types/node", "^22"),
        Dependency("npm:chalk", "5"),
    )


def test_api_document_fields() -> None:
    info = parse_package(META, version_meta={"moduleGraph2": GRAPH}, api=API)
    assert info.latest_version == "1.1.0"
    assert info.description == "A tiny helper"
    assert info.license == "MIT"
    assert info.repository == "https://github.com/ann/tiny"
    assert info.extra["jsr_score"] == "88"
    assert info.extra["runtime_compat"] == "browser, deno"
    assert len(info.dependencies) == 4
    assert not info.deprecated
    archived = parse_package(META, api={**API, "isArchived": True})
    assert archived.deprecated
    assert archived.deprecated_message.startswith("archived on JSR")


def test_missing_version_and_bad_bodies() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_package(META, version="3.0.0")
    assert caught.value.available[0] == "2.0.0-rc.1"
    for body in (
        {},
        {"scope": "ann", "name": "tiny", "versions": {}},
        {"versions": META["versions"]},
    ):
        with pytest.raises(RegistryResponseInvalid):
            parse_package(body)


def test_names() -> None:
    assert split_name("@std/path") == ("std", "path")
    assert split_name("jsr:@std/path") == ("std", "path")
    for bad in ("std/path", "@Std/path", "@std", "@std/path/extra"):
        with pytest.raises(InvalidInput):
            split_name(bad)


async def test_latest_then_its_version_document_and_api_concurrently() -> None:
    seen: list[str] = []
    routes = {
        "/@ann/tiny/meta.json": (200, META),
        "/@ann/tiny/1.1.0_meta.json": (200, {"moduleGraph2": GRAPH}),
        "/@ann/tiny/1.0.0_meta.json": (200, {"moduleGraph1": {}}),
        "/scopes/ann/packages/tiny": (200, API),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = JsrAdapter(client, base_url="https://jsr.test", api_url="https://api.jsr.test")
        info = await adapter.fetch_package("@ann/tiny")
        assert info.dependencies_version == "1.1.0"
        assert len(info.dependencies) == 4
        assert {s.name: s.status.value for s in info.sources} == {
            "jsr.io version metadata": "ok",
            "api.jsr.io": "ok",
        }
        older = await adapter.fetch_package("@ann/tiny", version="1.0.0")
        assert (older.dependencies_version, older.dependencies) == ("1.0.0", ())
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package("@ann/nothing")
        assert await adapter.fetch_weekly_downloads("@ann/tiny") is None
    assert seen[:1] == ["/@ann/tiny/meta.json"]
    assert "/@ann/tiny/1.0.0_meta.json" in seen
