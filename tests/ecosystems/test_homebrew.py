"""Homebrew adapter: formula and cask documents, deprecation and disabling, analytics, licences."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.packages import Dependency
from pkgintel.ecosystems.homebrew import (
    HomebrewAdapter,
    parse_cask,
    parse_formula,
    spdx_expression,
    split_name,
)
from pkgintel.ecosystems.optional import SuccessorAware
from tests.ecosystems._routes import routes_transport
from tests.shared import read_shared_json, requires_shared


def formula(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "tinytool",
        "tap": "homebrew/core",
        "desc": "Small tool",
        "license": "Apache-2.0 or MIT",
        "homepage": "https://tinytool.example",
        "versions": {"stable": "1.4.2", "head": "HEAD", "bottle": True},
        "urls": {
            "stable": {"url": "https://github.com/ann/tinytool/archive/refs/tags/v1.4.2.tar.gz"},
            "head": {"url": "https://github.com/ann/tinytool.git", "branch": "main"},
        },
        "revision": 2,
        "dependencies": ["openssl@3", "zstd"],
        "build_dependencies": ["cmake", "pkgconf"],
        "optional_dependencies": ["gnupg"],
        "recommended_dependencies": [],
        "uses_from_macos": ["zlib", {"bison": "build"}],
        "deprecated": False,
        "disabled": False,
        "analytics": {
            "install": {
                "30d": {"tinytool": 900, "tinytool --HEAD": 12},
                "90d": {"tinytool": 2500},
                "365d": {"tinytool": 9000},
            }
        },
    }
    body.update(over)
    return body


@requires_shared
def test_recorded_abook_formula() -> None:
    body = read_shared_json(
        "registry-fixtures", "homebrew", "formulae.brew.sh_api_formula_abook.json"
    )
    info = parse_formula(body)
    assert info.name == "abook"
    assert info.latest_version == "0.6.1"
    assert [r.version for r in info.releases] == ["0.6.1"]
    assert info.releases[0].published_at is None  # the API gives no release date
    assert info.dependencies == (Dependency("gettext", ""), Dependency("readline", ""))
    assert info.extra["build_dependencies"] == "autoconf, automake"
    assert info.extra["downloads"] == "28"
    assert info.extra["downloads_window"] == "30d"
    assert (info.extra["downloads.90d"], info.extra["downloads.365d"]) == ("111", "490")
    assert info.license == (
        "GPL-2.0-only AND GPL-2.0-or-later AND GPL-3.0-or-later AND Public Domain AND X11"
    )
    assert info.repository is None  # SourceForge home page and tarball: no code host
    assert info.maintainers == ()
    assert not info.deprecated


def test_formula_fields_and_analytics_over_option_variants() -> None:
    info = parse_formula(formula())
    assert info.license == "Apache-2.0 OR MIT"
    assert info.repository == "https://github.com/ann/tinytool"
    assert info.homepage == "https://tinytool.example"
    assert info.extra["revision"] == "2"
    assert info.extra["downloads"] == "912"  # `tinytool` and `tinytool --HEAD` installs
    assert [(d.name, d.kind) for d in info.dependencies] == [
        ("openssl@3", "runtime"),
        ("zstd", "runtime"),
        ("gnupg", "optional"),
        ("zlib", "uses_from_macos"),  # bison is only for building: not a dependency
    ]


def test_deprecated_formula_names_reason_date_and_replacement() -> None:
    info = parse_formula(
        formula(
            deprecated=True,
            deprecation_date="2025-03-01",
            deprecation_reason="repo_archived",
            deprecation_replacement_formula="tinytool2",
        )
    )
    assert info.deprecated
    assert info.deprecated_message == (
        "deprecated since 2025-03-01: repo archived; replacement: tinytool2"
    )
    assert info.extra["deprecated_successor"] == "tinytool2"
    adapter = HomebrewAdapter(httpx.AsyncClient())
    assert isinstance(adapter, SuccessorAware)
    assert adapter.successors(info) == ("tinytool2",)


def test_disabled_wins_over_deprecated_and_cannot_be_installed() -> None:
    info = parse_formula(
        formula(
            deprecated=True,
            deprecation_reason="unmaintained",
            disabled=True,
            disable_date="2025-09-01",
            disable_reason="does_not_build",
            disable_replacement_cask="tinytool-app",
        )
    )
    assert info.deprecated_message == (
        "disabled since 2025-09-01: does not build; replacement: cask:tinytool-app"
    )
    assert info.extra["disabled"] == "true"
    assert info.extra["deprecated_successor"] == "cask:tinytool-app"


def test_cask_document() -> None:
    info = parse_cask(
        {
            "token": "firefox",
            "name": ["Mozilla Firefox"],
            "desc": "Web browser",
            "homepage": "https://www.mozilla.org/firefox/",
            "url": "https://download-installer.cdn.mozilla.net/pub/firefox/releases/133.0/Firefox.dmg",
            "version": "133.0",
            "depends_on": {"macos": {">=": ["10.15"]}},
            "auto_updates": True,
            "deprecated": False,
            "disabled": False,
            "analytics": {"install": {"30d": {"firefox": 30000}}},
        }
    )
    assert info.name == "cask:firefox"
    assert info.latest_version == "133.0"
    assert info.license is None
    assert info.repository is None
    assert info.extra["auto_updates"] == "true"
    assert info.extra["downloads"] == "30000"


def test_version_other_than_the_current_one_is_not_found() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_formula(formula(), version="1.4.1")
    assert caught.value.available == ["1.4.2"]
    assert parse_formula(formula(), version="1.4.2.0").latest_version == "1.4.2"


@pytest.mark.parametrize("body", [{"name": "x"}, {"versions": {"stable": "1"}}, {}])
def test_body_without_name_or_version_is_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_formula(body)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("MIT", "MIT"),
        ("Apache-2.0 or MIT", "Apache-2.0 OR MIT"),
        (
            "GPL-2.0-or-later with Autoconf-exception-2.0",
            "GPL-2.0-or-later WITH Autoconf-exception-2.0",
        ),
        ("(MIT or 0BSD) and Zlib", "(MIT OR 0BSD) AND Zlib"),
        (None, None),
    ],
)
def test_spdx_expression(value: str | None, expected: str | None) -> None:
    assert spdx_expression(value) == expected


def test_split_name() -> None:
    assert split_name("Wget") == ("wget", False)
    assert split_name("cask:Firefox") == ("firefox", True)


async def test_fetch_asks_for_the_formula_or_the_cask_document() -> None:
    seen: list[str] = []
    transport = routes_transport(
        {
            "/api/formula/tinytool.json": (200, formula()),
            "/api/cask/tinytool.json": (
                200,
                {"token": "tinytool", "version": "3.0", "name": ["Tiny Tool"]},
            ),
        },
        seen=seen,
    )
    async with httpx.AsyncClient(transport=transport) as client:
        adapter = HomebrewAdapter(client, base_url="https://brew.test")
        assert (await adapter.fetch_package("TinyTool")).latest_version == "1.4.2"
        cask = await adapter.fetch_package("cask:tinytool")
        assert (cask.name, cask.description) == ("cask:tinytool", "Tiny Tool")
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package("cask:nothing")
        assert await adapter.fetch_weekly_downloads("tinytool") is None
    assert seen == [
        "/api/formula/tinytool.json",
        "/api/cask/tinytool.json",
        "/api/cask/nothing.json",
    ]


def test_one_kept_version_leaves_maturity_unscored_not_low() -> None:
    from datetime import UTC, datetime

    from pkgintel.scoring.health import compute_health
    from pkgintel.scoring.signals import HealthSignals, VulnerabilitySummary

    info = parse_formula(formula())
    assert info.extra["release_history"] == "current_only"
    base = {
        "last_release_at": None,
        "first_release_at": None,
        "version_count": 1,
        "weekly_downloads": None,
        "maintainers_count": None,
        "deprecated": False,
        "deprecated_message": None,
        "vulnerabilities": VulnerabilitySummary("unavailable"),
        "malicious": None,
        "latest_version": "1.4.2",
        "evaluated_version": "1.4.2",
    }
    now = datetime(2026, 11, 22, tzinfo=UTC)
    brew = compute_health(HealthSignals(**base, release_history_known=False), now=now)
    other = compute_health(HealthSignals(**base), now=now)
    assert "maturity" in brew.unscored
    assert "maturity" not in other.unscored
