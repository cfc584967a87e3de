"""npm constraints: built per version on first use, identical to the eager build, decoded off the loop."""

from __future__ import annotations

import gc
import gzip
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, RegistryUnavailable
from pkgintel.domain.knowledge.compat import PublishedConstraints
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_valid, sort_key
from pkgintel.ecosystems import npm
from pkgintel.ecosystems.npm import NpmAdapter, parse_constraints, version_constraints

REACT = Path(__file__).resolve().parents[1] / "recordings" / "npm" / "react.json.gz"


@pytest.fixture(scope="module")
def react() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress(REACT.read_bytes()))
    return data


def test_lazy_constraints_equal_the_eager_build_for_every_react_version(
    react: dict[str, Any],
) -> None:
    pub = parse_constraints(react)

    eager = {
        v: version_constraints("react", v, m)
        for v, m in react["versions"].items()
        if is_valid(Ecosystem.NPM, v)
    }
    assert pub.versions == tuple(sorted(eager, key=lambda v: sort_key(Ecosystem.NPM, v)))
    assert len(pub.by_version) == len(eager) > 2000
    assert set(pub.by_version) == set(eager)
    assert all(pub.by_version[v] == eager[v] for v in eager)
    assert pub.by_version["18.2.0"].engines == eager["18.2.0"].engines


def test_only_the_versions_read_are_built_and_each_once(
    react: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    real = npm.version_constraints

    def counting(name: str, version: str, manifest: Any) -> Any:
        built.append(version)
        return real(name, version, manifest)

    monkeypatch.setattr(npm, "version_constraints", counting)
    pub = parse_constraints(react)
    assert built == []

    first = pub.by_version["18.2.0"]
    assert pub.by_version["18.2.0"] is first
    assert "17.0.2" in pub.by_version
    assert built == ["18.2.0"]
    with pytest.raises(KeyError):
        pub.by_version["99.0.0"]


def test_peer_meta_only_optional_peer_survives_the_slimmed_manifest() -> None:
    manifest = {
        "name": "lib",
        "version": "1.0.0",
        "description": "dropped",
        "dist": {"tarball": "dropped"},
        "peerDependencies": {"react": "^18"},
        "peerDependenciesMeta": {"react-dom": {"optional": True}},
        "engines": {"node": ">=18"},
    }
    pub = parse_constraints({"name": "lib", "versions": {"1.0.0": manifest}})

    assert pub.by_version["1.0.0"] == version_constraints("lib", "1.0.0", manifest)
    assert {(r.name, r.kind) for r in pub.by_version["1.0.0"].requirements} == {
        ("react", "peer"),
        ("react-dom", "peer_optional"),
    }


async def test_fetch_decodes_in_a_worker_thread_with_the_collector_paused(
    react: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}
    real = npm.parse_constraints

    def spying(data: Any) -> PublishedConstraints:
        seen["thread"] = threading.current_thread()
        seen["gc"] = gc.isenabled()
        return real(data)

    monkeypatch.setattr(npm, "parse_constraints", spying)
    transport = httpx.MockTransport(lambda _r: httpx.Response(200, json=react))
    assert gc.isenabled()
    async with httpx.AsyncClient(transport=transport) as client:
        pub = await NpmAdapter(client).fetch_constraints("react")

    assert pub.name == "react" and "18.2.0" in pub.by_version
    assert seen["thread"] is not threading.main_thread()
    assert seen["gc"] is False
    assert gc.isenabled()


@pytest.mark.parametrize(("status", "error"), [(404, PackageNotFound), (503, RegistryUnavailable)])
async def test_fetch_constraints_errors(status: int, error: type[Exception]) -> None:
    transport = httpx.MockTransport(lambda _r: httpx.Response(status))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(error):
            await NpmAdapter(client).fetch_constraints("left-padd")
    assert gc.isenabled()


async def test_a_body_that_is_not_json_is_invalid_and_resumes_the_collector() -> None:
    transport = httpx.MockTransport(lambda _r: httpx.Response(200, content=b"<html>"))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(RegistryResponseInvalid):
            await NpmAdapter(client).fetch_constraints("react")
    assert gc.isenabled()
