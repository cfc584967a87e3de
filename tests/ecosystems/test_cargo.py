"""Cargo adapter: parsers on recorded crates.io bodies and the sparse index, and the fetch plan."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.signals.provenance import SourceState
from pkgintel.ecosystems.cargo import (
    CargoAdapter,
    index_path,
    parse_crate,
    parse_index,
    spdx_from_cargo,
)
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

FIXTURES = "registry-fixtures/cargo"


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("a", "1/a"),
        ("ab", "2/ab"),
        ("syn", "3/s/syn"),
        ("Regex", "re/ge/regex"),
        ("libc", "li/bc/libc"),
    ],
)
def test_sparse_index_path_follows_cargo_layout(name: str, path: str) -> None:
    assert index_path(name) == path


@pytest.mark.parametrize(
    ("declared", "spdx"),
    [
        ("MIT/Apache-2.0", "MIT OR Apache-2.0"),
        ("MIT OR Apache-2.0", "MIT OR Apache-2.0"),
        ("", None),
    ],
)
def test_legacy_slash_licences_become_spdx_or(declared: str, spdx: str | None) -> None:
    assert spdx_from_cargo(declared) == spdx


@requires_shared
def test_regex_recorded_body() -> None:
    data = read_shared_json(FIXTURES, "crates.io_api_v1_crates_regex.json")
    info = parse_crate(data)
    assert info.name == "regex"
    assert info.latest_version == "1.0.0"
    assert info.license == "MIT OR Apache-2.0"
    assert info.repository == "https://github.com/rust-lang/regex"
    assert len(info.releases) == len(data["versions"]) == 92
    assert info.releases[0].version == "0.1.0"
    assert info.extra["downloads"] == "740256"
    assert info.extra["downloads_window"] == "90d"
    # No index entry was given: dependencies are unknown, not empty.
    assert "dependencies_unavailable" in info.extra


@requires_shared
def test_sparse_index_gives_yanked_flags_and_dependencies() -> None:
    lines = parse_index(read_shared_bytes(FIXTURES, "index.crates.io_am_et_amethyst.json").decode())
    yanked = [line["vers"] for line in lines if line["yanked"]]
    assert yanked, "the recorded amethyst index has a yanked version"
    crate = {
        "crate": {"name": "amethyst", "max_stable_version": lines[-1]["vers"]},
        "versions": [{"num": line["vers"], "yanked": False} for line in lines],
    }
    info = parse_crate(crate, version=yanked[0], index_lines=lines)
    assert info.release(yanked[0]).yanked is True  # the index wins over the API's flag
    assert info.dependencies_version == yanked[0]
    assert {d.name for d in info.dependencies} == {
        d["name"] for d in next(line for line in lines if line["vers"] == yanked[0])["deps"]
    }


def test_renamed_optional_and_dev_dependencies() -> None:
    crate = {"crate": {"name": "x", "max_stable_version": "1.0.0"}, "versions": [{"num": "1.0.0"}]}
    line = {
        "vers": "1.0.0",
        "yanked": False,
        "deps": [
            {
                "name": "alias",
                "package": "real-crate",
                "req": "^2",
                "kind": "normal",
                "optional": True,
            },
            {"name": "tokio", "req": "^1", "kind": "dev", "target": None},
            {"name": "winapi", "req": "^0.3", "kind": "normal", "target": "cfg(windows)"},
        ],
    }
    deps = parse_crate(crate, index_lines=[line]).dependencies
    assert [(d.name, d.kind, d.marker) for d in deps] == [
        ("real-crate", "optional", None),
        ("tokio", "dev", None),
        ("winapi", "runtime", "cfg(windows)"),
    ]


def test_index_line_that_is_not_json_is_invalid() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_index('{"vers": "1.0.0"}\n<html>')


async def test_fetch_asks_crate_owners_and_index_concurrently_and_survives_a_failing_index() -> (
    None
):
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.host == "index.crates.io":
            return httpx.Response(503)
        if request.url.path.endswith("/owners"):
            return httpx.Response(200, json={"users": [{"login": "burntsushi", "kind": "user"}]})
        return httpx.Response(
            200,
            json={
                "crate": {"name": "regex", "max_stable_version": "1.0.0"},
                "versions": [{"num": "1.0.0", "license": "MIT"}],
            },
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await CargoAdapter(client).fetch_package("regex")
    assert sorted(seen) == [
        "/api/v1/crates/regex",
        "/api/v1/crates/regex/owners",
        "/re/ge/regex",
        "/re/ge/regex",
    ]
    assert [m.name for m in info.maintainers] == ["burntsushi"]
    index = next(s for s in info.sources if s.name == "index.crates.io")
    assert index.status is SourceState.UNAVAILABLE
    assert index.detail == "status.503"


async def test_index_is_read_by_the_crates_own_spelling() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/crates/serde-json":
            return httpx.Response(
                200,
                json={
                    "crate": {"name": "serde_json", "max_stable_version": "1.0.0"},
                    "versions": [{"num": "1.0.0"}],
                },
            )
        if request.url.path == "/se/rd/serde_json":
            return httpx.Response(
                200,
                text='{"name":"serde_json","vers":"1.0.0","deps":[{"name":"itoa","req":"^1","kind":"normal"}],"yanked":false}\n',
            )
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await CargoAdapter(client).fetch_package("serde-json")
    assert info.name == "serde_json"
    assert [d.name for d in info.dependencies] == ["itoa"]


async def test_a_report_and_its_publisher_history_share_one_crate_request() -> None:
    import asyncio

    crate_calls = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal crate_calls
        if request.url.path == "/api/v1/crates/demo":
            crate_calls += 1
            await asyncio.sleep(0.01)  # both callers are waiting when it answers
            body = {
                "crate": {"name": "demo", "max_version": "1.0.0", "max_stable_version": "1.0.0"},
                "versions": [
                    {
                        "num": "1.0.0",
                        "yanked": False,
                        "created_at": "2024-01-01T00:00:00Z",
                        "published_by": {"login": "alice"},
                    }
                ],
            }
            return httpx.Response(200, json=body)
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        adapter = CargoAdapter(
            client, base_url="https://crates.test", index_url="https://index.test"
        )
        info, history = await asyncio.gather(
            adapter.fetch_package("demo"), adapter.fetch_publishers("demo")
        )
        assert info.latest_version == "1.0.0"
        assert [p.publisher for p in history.publications] == ["alice"]
        assert crate_calls == 1
        # Once it has finished, a later caller asks again (nothing is kept).
        await adapter.fetch_publishers("demo")
        assert crate_calls == 2
