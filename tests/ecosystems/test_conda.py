"""Conda adapter: anaconda.org package documents, channels, builds collapsed to releases."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import InvalidInput, RegistryResponseInvalid
from pkgintel.domain.packages import Dependency, Ecosystem
from pkgintel.domain.purl import build_purl, parse_purl
from pkgintel.ecosystems.conda import CondaAdapter, parse_package, split_channel
from tests.ecosystems._routes import routes_transport
from tests.shared import read_shared_json, requires_shared

CONDA = ("registry-fixtures", "conda")


def build(
    version: str,
    n: int,
    subdir: str,
    when: str,
    labels: list[str],
    downloads: int,
    depends: list[str],
) -> dict[str, Any]:
    return {
        "version": version,
        "basename": f"{subdir}/tool-{version}-{n}.conda",
        "upload_time": when,
        "labels": labels,
        "ndownloads": downloads,
        "attrs": {"subdir": subdir, "depends": depends},
    }


def body(**over: Any) -> dict[str, Any]:
    files = [
        build("1.0", 0, "linux-64", "2024-01-02 00:00:00+00:00", ["main"], 10, ["libc >=2.17"]),
        build("1.0", 1, "osx-64", "2024-01-01 00:00:00+00:00", ["main"], 5, ["libcxx >=14"]),
        build("1.1", 0, "linux-64", "2024-03-01 00:00:00+00:00", ["broken"], 2, []),
        build(
            "2.0rc1",
            0,
            "noarch",
            "2024-04-01 00:00:00+00:00",
            ["main"],
            1,
            ["python >=3.9", "numpy >=1.22 *_cp39"],
        ),
        build("2.0rc1", 1, "linux-64", "2024-04-02 00:00:00+00:00", ["main"], 1, ["zlib"]),
    ]
    data: dict[str, Any] = {
        "name": "tool",
        "summary": "A tool",
        "license": "Apache-2.0",
        "home": "https://tool.example",
        "dev_url": "https://github.com/tool/tool",
        "versions": ["1.0", "1.1", "2.0rc1"],
        "releases": [
            {"version": v, "distributions": [f["basename"] for f in files if f["version"] == v]}
            for v in ("1.0", "1.1", "2.0rc1")
        ],
        "files": files,
    }
    data.update(over)
    return data


def test_builds_collapse_to_releases() -> None:
    info = parse_package(body())
    assert [r.version for r in info.releases] == ["1.0", "1.1", "2.0rc1"]
    first = info.releases[0]
    assert first.published_at == datetime(2024, 1, 1, tzinfo=UTC)  # earliest build
    assert info.release("1.1").yanked  # type: ignore[union-attr]  # only under `broken`
    assert info.release("2.0rc1").prerelease  # type: ignore[union-attr]
    assert info.latest_version == "1.0"  # newest stable with an installable build
    assert parse_package(body(latest_version="1.1")).latest_version == "1.0"
    assert (
        info.extra["downloads"] == "19" and info.extra["downloads_window"] == "total (all builds)"
    )
    assert info.dependencies == (Dependency("libc", ">=2.17"),)  # linux-64 build
    pre = parse_package(body(), version="2.0rc1")
    assert pre.extra["dependencies_platform"] == "noarch"
    assert pre.dependencies == (Dependency("python", ">=3.9"), Dependency("numpy", ">=1.22"))
    assert (
        info.repository == "https://github.com/tool/tool"
        and info.homepage == "https://tool.example"
    )


def test_a_partial_file_list_gives_no_dates_no_yank_and_no_total() -> None:
    data = body()
    data["files"] = data["files"][:1]
    info = parse_package(data)
    assert info.release("1.0").published_at is None  # type: ignore[union-attr]
    assert not info.release("1.1").yanked  # type: ignore[union-attr]
    assert "downloads" not in info.extra and info.extra["downloads_unavailable"]


def test_channels() -> None:
    assert split_channel("pytest") == ("conda-forge", "pytest")
    assert split_channel("bioconda/samtools") == ("bioconda", "samtools")
    with pytest.raises(InvalidInput):
        split_channel("a/b/c")
    assert parse_package(body(), channel="bioconda").name == "bioconda/tool"


@requires_shared
def test_recorded_pytest() -> None:
    info = parse_package(
        read_shared_json(*CONDA, "api.anaconda.org_package_conda-forge_pytest.json")
    )
    assert (info.name, info.latest_version, info.license) == ("pytest", "6.2.5", "MIT")
    assert len(info.releases) == 94
    assert [r.version for r in info.releases][-3:] == ["6.2.3", "6.2.4", "6.2.5"]
    assert info.homepage == "https://docs.pytest.org/en/latest/"  # `home` is the string "None"
    assert info.repository == "https://github.com/pytest-dev/pytest"
    assert info.extra["dependencies_unavailable"]  # the recording holds one build, of 3.10.0
    old = parse_package(
        read_shared_json(*CONDA, "api.anaconda.org_package_conda-forge_pytest.json"),
        version="3.10.0",
    )
    assert Dependency("python", ">=2.7,<2.8.0a0") in old.dependencies


@requires_shared
def test_recorded_trimmed_body_is_invalid() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_package(read_shared_json(*CONDA, "api.anaconda.org_package_anaconda_aiofiles.json"))


async def test_fetch_uses_the_channel_in_the_path() -> None:
    seen: list[str] = []
    routes = {"/package/bioconda/tool": (200, body())}
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = CondaAdapter(client, base_url="https://mirror.example")
        info = await adapter.fetch_package("bioconda/tool")
        assert await adapter.fetch_weekly_downloads("bioconda/tool") is None
    assert info.name == "bioconda/tool" and seen == ["/package/bioconda/tool"]


def test_purls_carry_the_channel_as_a_qualifier() -> None:
    purl = build_purl(Ecosystem.CONDA, "bioconda/samtools", "1.21")
    assert purl == "pkg:conda/samtools@1.21?channel=bioconda"
    assert parse_purl(purl).name == "bioconda/samtools"
    assert build_purl(Ecosystem.CONDA, "pytest") == "pkg:conda/pytest"
    assert parse_purl("pkg:conda/pytest@8.0?channel=conda-forge").name == "pytest"
