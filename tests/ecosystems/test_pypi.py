"""PyPI adapter: URLs, project parsing on hand-written and real recorded bodies, pypistats."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer
from pkgintel.ecosystems.pypi import PyPIAdapter, parse_project, parse_recent_downloads
from tests.ecosystems._recorded import recorded_transport, recording_body
from tests.shared import read_shared_json, requires_shared

PROJECT_URL = "https://pypi.org/pypi/tiny-widgets/json"
RELEASE_URL = "https://pypi.org/pypi/tiny-widgets/1.0.0/json"


def yanked_body() -> Any:
    return recording_body("pypi", "yanked", PROJECT_URL)


def release_body() -> Any:
    return recording_body("pypi", "yanked", RELEASE_URL)


def inactive_body() -> Any:
    return recording_body("pypi", "inactive", "https://pypi.org/pypi/oldlib/json")


def live(name: str) -> Any:
    return read_shared_json("registry-fixtures", "pypi-live", f"pypi.org_pypi_{name}_json.json.gz")


def recorded(name: str) -> Any:
    return read_shared_json("registry-fixtures", "pypi", name)


def project(**info: Any) -> dict[str, Any]:
    """A minimal project body; `info` fields override the defaults."""
    return {"info": {"name": "demo", "version": "1.0", **info}, "releases": {"1.0": []}}


# --- the adapter ------------------------------------------------------------------------------


async def test_fetch_package_asks_for_the_normalised_name() -> None:
    seen: list[httpx.Request] = []

    async with httpx.AsyncClient(transport=recorded_transport("pypi", "yanked", seen=seen)) as c:
        info = await PyPIAdapter(c).fetch_package("Tiny_Widgets")

    assert [str(r.url) for r in seen] == [PROJECT_URL]
    assert info.name == "Tiny_Widgets"
    assert info.ecosystem is Ecosystem.PYPI
    assert info.dependencies_version == "2.0.0"


async def test_fetch_package_at_a_version_reads_that_release_body() -> None:
    seen: list[httpx.Request] = []

    async with httpx.AsyncClient(transport=recorded_transport("pypi", "yanked", seen=seen)) as c:
        info = await PyPIAdapter(c).fetch_package("tiny-widgets", version="1.0.0")

    assert sorted(str(r.url) for r in seen) == [RELEASE_URL, PROJECT_URL]
    assert info.latest_version == "2.0.0"
    assert info.dependencies_version == "1.0.0"
    assert [d.name for d in info.dependencies] == ["attrs", "six"]
    assert info.extra["requires_python"] == ">=2.7"


async def test_fetch_package_at_a_missing_version_is_version_not_found() -> None:
    async with httpx.AsyncClient(transport=recorded_transport("pypi", "yanked")) as c:
        with pytest.raises(VersionNotFound) as caught:
            await PyPIAdapter(c).fetch_package("tiny-widgets", version="9.9.9")

    assert caught.value.name == "Tiny_Widgets"
    assert caught.value.available == ["2.0.0", "1.1.0rc1", "1.0.0", "0.9"]


async def test_missing_project_wins_over_missing_version() -> None:
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda _: httpx.Response(404))) as c:
        with pytest.raises(PackageNotFound):
            await PyPIAdapter(c).fetch_package("nope", version="1.0")


async def test_version_spelled_differently_is_fetched_under_the_release_key() -> None:
    bodies = {PROJECT_URL: yanked_body(), RELEASE_URL: release_body()}
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        body = bodies.get(str(request.url))
        return httpx.Response(200, json=body) if body else httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as c:
        info = await PyPIAdapter(c).fetch_package("tiny-widgets", version="1.0")

    assert "https://pypi.org/pypi/tiny-widgets/1.0/json" in seen
    assert seen[-1] == RELEASE_URL
    assert info.dependencies_version == "1.0.0"


async def test_weekly_downloads_from_pypistats_under_the_normalised_name() -> None:
    seen: list[httpx.Request] = []

    async with httpx.AsyncClient(transport=recorded_transport("pypi", "yanked", seen=seen)) as c:
        downloads = await PyPIAdapter(c).fetch_weekly_downloads("Tiny.Widgets")

    assert downloads == 155
    assert str(seen[0].url) == "https://pypistats.org/api/packages/tiny-widgets/recent"


@requires_shared
@pytest.mark.shared
async def test_real_pypi_404_body_is_package_not_found() -> None:
    body = recorded("status-404__pypi.org_pypi_doesnotexist123456_json.json")
    transport = httpx.MockTransport(lambda _: httpx.Response(404, json=body))

    async with httpx.AsyncClient(transport=transport) as c:
        with pytest.raises(PackageNotFound) as caught:
            await PyPIAdapter(c).fetch_package("doesnotexist123456")

    assert caught.value.name == "doesnotexist123456"


# --- parse_project on the hand-written bodies -------------------------------------------------


def test_releases_dates_yanks_and_prereleases() -> None:
    info = parse_project(yanked_body())
    by_version = {r.version: r for r in info.releases}

    assert [r.version for r in info.releases] == ["0.9", "1.0.0", "1.1.0rc1", "2.0.0"]
    assert by_version["0.9"].yanked is False  # no files: nothing was yanked
    assert by_version["0.9"].published_at is None
    # Earliest file, from the old naive `upload_time` read as UTC.
    assert by_version["1.0.0"].published_at == datetime(2020, 1, 2, 3, 0, tzinfo=UTC)
    assert by_version["1.1.0rc1"].yanked is False  # only one of two files yanked
    assert by_version["1.1.0rc1"].prerelease is True
    assert by_version["2.0.0"].yanked is True
    assert by_version["2.0.0"].yanked_reason == "Broken wheel metadata"
    assert by_version["2.0.0"].published_at == datetime(2022, 8, 9, 10, 10, tzinfo=UTC)


def test_yanked_latest_release_deprecates_the_package() -> None:
    info = parse_project(yanked_body())

    assert info.latest_version == "2.0.0"
    assert info.deprecated is True
    assert info.deprecated_message == "Broken wheel metadata"


def test_dependencies_with_extras_markers_and_an_unparsable_line_skipped() -> None:
    info = parse_project(yanked_body())

    assert info.dependencies == (
        Dependency("attrs", ">=22.1"),
        Dependency("rich", "<14,>=12", kind="extra:cli", marker='extra == "cli"'),
        Dependency(
            "colorama",
            "",
            kind="extra:cli",
            marker='sys_platform == "win32" and extra == "cli"',
        ),
    )
    assert info.extra == {"requires_python": ">=3.9"}


def test_release_body_gives_that_versions_dependencies() -> None:
    info = parse_project(yanked_body(), version="1.0.0", version_data=release_body())

    assert info.dependencies_version == "1.0.0"
    assert info.dependencies == (
        Dependency("attrs", ">=19", marker='python_version < "3.8"'),
        Dependency("six", ">=1.10"),
    )


def test_requested_version_without_release_body() -> None:
    body = yanked_body()

    at_latest = parse_project(body, version="2.0")  # PEP 440: 2.0 == 2.0.0, the latest
    older = parse_project(body, version="1.0.0")

    assert at_latest.dependencies_version == "2.0.0"
    assert len(at_latest.dependencies) == 3
    assert older.dependencies_version is None  # unknown without its release body
    assert older.dependencies == ()
    with pytest.raises(VersionNotFound):
        parse_project(body, version="3.0")


def test_people_links_licence_and_keywords() -> None:
    info = parse_project(yanked_body())

    assert info.maintainers == (
        Maintainer("Ada Lovelace", "ada@example.org", role="author"),
        Maintainer("Zoë Example", "zoe@example.org", role="maintainer"),
    )
    assert info.license == "GPL-2.0-only"  # "GPLv2" is not SPDX; the classifier is exact
    assert info.homepage == "https://github.com/example/tiny-widgets/"
    assert info.repository == "https://github.com/example/tiny-widgets"
    assert info.keywords == ("widgets", "tiny", "gadgets")
    assert info.description == "Tiny widgets for terminals"


def test_inactive_classifier_deprecates_the_package() -> None:
    info = parse_project(inactive_body())

    assert info.deprecated is True
    assert info.deprecated_message is not None
    assert "7 - Inactive" in info.deprecated_message
    assert "Development Status :: 7 - Inactive" in info.classifiers


def test_inactive_body_roles_gitlab_source_and_no_licence_guess() -> None:
    info = parse_project(inactive_body())

    assert info.maintainers == (
        Maintainer("alice", role="owner"),
        Maintainer("bob", role="maintainer"),
    )
    assert info.repository == "https://gitlab.com/example-group/oldlib"
    assert info.homepage == "https://oldlib.example.org"
    # A whole licence text and the bare "BSD License" classifier: no guess.
    assert info.license is None
    assert info.keywords == ("old", "legacy")
    assert info.extra == {}
    assert info.dependencies == ()


def test_project_status_archived_deprecates_the_package() -> None:
    body = project()
    body["project-status"] = {"status": "archived", "reason": "use newlib"}

    info = parse_project(body)

    assert info.deprecated is True
    assert info.deprecated_message is not None
    assert info.deprecated_message.endswith("use newlib")
    assert info.extra["project_status"] == "archived"


def test_active_project_is_not_deprecated() -> None:
    body = project()
    body["project-status"] = {"status": "active"}

    assert parse_project(body).deprecated is False


@pytest.mark.parametrize(
    ("fields", "license"),
    [
        ({"license_expression": "MIT OR Apache-2.0", "license": "BSD"}, "MIT OR Apache-2.0"),
        ({"license": "MIT", "classifiers": ["License :: OSI Approved :: BSD License"]}, "MIT"),
        (
            {
                "license": "Apache License 2.0",
                "classifiers": ["License :: OSI Approved :: Apache Software License"],
            },
            "Apache-2.0",
        ),
        (
            {
                "classifiers": [
                    "License :: OSI Approved :: MIT License",
                    "License :: OSI Approved :: Apache Software License",
                ]
            },
            "MIT OR Apache-2.0",
        ),
        (
            {
                "classifiers": [
                    "License :: OSI Approved :: MIT License",
                    "License :: OSI Approved :: BSD License",
                ]
            },
            None,
        ),
        (
            {"license": "Public domain", "classifiers": ["License :: Public Domain"]},
            "Public domain",
        ),
        ({"license": "UNKNOWN"}, None),
        ({"license": "x" * 65}, None),
    ],
)
def test_licence_choice(fields: dict[str, Any], license: str | None) -> None:
    assert parse_project(project(**fields)).license == license


@pytest.mark.parametrize(
    ("urls", "home_page", "repository"),
    [
        ({"Source": "https://github.com/a/b/"}, None, "https://github.com/a/b"),
        ({"source code": "https://github.com/a/b/tree/main/sub"}, None, "https://github.com/a/b"),
        ({"Code": "https://hg.example.org/b"}, None, "https://hg.example.org/b"),
        (
            {"Documentation": "https://b.readthedocs.io"},
            "https://gitlab.com/a/b",
            "https://gitlab.com/a/b",
        ),
        ({"Homepage": "https://github.com/a/b"}, None, "https://github.com/a/b"),
        ({"Homepage": "https://b.example.org"}, None, None),
    ],
)
def test_repository_from_project_urls_or_a_forge_home_page(
    urls: dict[str, str], home_page: str | None, repository: str | None
) -> None:
    info = parse_project(project(project_urls=urls, home_page=home_page))

    assert info.repository == repository


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"info": None},
        {"info": {"version": "1.0"}},
        {"info": {"name": ""}},
        {"info": {"name": "x"}},
    ],
)
def test_body_without_a_name_or_any_version_is_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_project(body)


def test_parse_recent_downloads_requires_a_count() -> None:
    assert parse_recent_downloads({"data": {"last_week": 0}}) == 0
    with pytest.raises(RegistryResponseInvalid):
        parse_recent_downloads({"data": {}})


# --- real responses (../shared/data) -----------------------------------------------------------


@requires_shared
@pytest.mark.shared
def test_requests() -> None:
    info = parse_project(live("requests"))

    assert info.name == "requests"
    assert info.latest_version == "2.34.2"
    assert info.license == "Apache-2.0"
    assert info.repository == "https://github.com/psf/requests"
    assert len(info.releases) == 163
    assert info.maintainers == (
        Maintainer("Lukasa", role="owner"),
        Maintainer("graffatcolmingov", role="owner"),
        Maintainer("nateprewitt", role="owner"),
    )
    assert Dependency("urllib3", "<3,>=1.26") in info.dependencies
    assert Dependency(
        "PySocks", "!=1.5.7,>=1.5.6", kind="extra:socks", marker='extra == "socks"'
    ) in (info.dependencies)
    assert "extra:use-chardet-on-py3" in {d.kind for d in info.dependencies}
    assert info.deprecated is False


@requires_shared
@pytest.mark.shared
def test_requests_yanked_releases() -> None:
    info = parse_project(live("requests"))

    yanked = {r.version: r.yanked_reason for r in info.releases if r.yanked}
    assert set(yanked) == {"2.32.0", "2.32.1"}
    assert all(reason and "CVE-2024-35195" in reason for reason in yanked.values())
    assert yanked["2.32.1"] == "Yanked due to conflicts with CVE-2024-35195 mitigation"


@requires_shared
@pytest.mark.shared
def test_pyyaml_canonical_name_and_yanked_prerelease() -> None:
    info = parse_project(live("pyyaml"))
    rc = info.release("6.0.2rc1")

    assert info.name == "PyYAML"
    assert info.latest_version == "6.0.3"
    assert info.license == "MIT"
    assert info.repository == "https://github.com/yaml/pyyaml"
    assert rc is not None
    assert rc.yanked is True
    assert rc.prerelease is True
    assert rc.yanked_reason == "incorrect python_requires (included EOL Pythons)"


@requires_shared
@pytest.mark.shared
def test_nose_has_no_release_since_2015() -> None:
    info = parse_project(live("nose"))

    dates = [r.published_at for r in info.releases if r.published_at is not None]
    assert info.latest_version == "1.3.7"
    assert max(dates).year == 2015
    assert info.release("1.3.7") == info.releases[-1]
    assert info.license == "GNU LGPL"  # stated text; the LGPL classifier names no version
    assert info.keywords == ("test", "unittest", "doctest", "automatic", "discovery")
    assert info.deprecated is False


@requires_shared
@pytest.mark.shared
def test_django_yanked_releases_empty_releases_and_organisation() -> None:
    info = parse_project(live("django"))
    empty = info.release("1.0.1")

    assert info.name == "Django"
    assert info.license == "BSD-3-Clause"
    assert {r.version for r in info.releases if r.yanked} == {"4.2.12", "5.0.5"}
    assert empty is not None
    assert empty.yanked is False
    assert empty.published_at is None
    assert info.maintainers[0] == Maintainer("django", role="organization")
    assert Maintainer(
        "Django Software Foundation", "foundation@djangoproject.com", role="author"
    ) in (info.maintainers)


@requires_shared
@pytest.mark.shared
def test_flask_live_and_older_recording() -> None:
    now, before = (
        parse_project(live("flask")),
        parse_project(recorded("pypi.org_pypi_flask_json.json")),
    )

    assert (before.latest_version, now.latest_version) == ("3.1.2", "3.1.3")
    assert now.license == "BSD-3-Clause"
    assert now.repository == "https://github.com/pallets/flask"
    assert now.extra["requires_python"] == ">=3.9"
    assert (
        Dependency(
            "importlib-metadata", ">=3.6.0", kind="runtime", marker='python_version < "3.10"'
        )
        in now.dependencies
    )


@requires_shared
@pytest.mark.shared
def test_urllib3_yanks_and_code_label() -> None:
    info = parse_project(live("urllib3"))

    assert {"1.25", "1.25.1", "2.0.0", "2.0.1"} <= {r.version for r in info.releases if r.yanked}
    assert info.repository == "https://github.com/urllib3/urllib3"
    assert "httplib" in info.keywords
    brotli = [d for d in info.dependencies if d.name == "brotli"]
    assert brotli
    assert brotli[0].kind == "extra:brotli"


@requires_shared
@pytest.mark.shared
def test_pycrypto_and_fastapi() -> None:
    pycrypto, fastapi = parse_project(live("pycrypto")), parse_project(live("fastapi"))

    assert pycrypto.latest_version == "2.6.1"
    assert pycrypto.license == "Public domain"
    assert max(r.published_at for r in pycrypto.releases if r.published_at).year == 2014
    assert fastapi.maintainers == (Maintainer("tiangolo", role="owner"),)
    assert fastapi.license == "MIT"
    assert fastapi.repository == "https://github.com/fastapi/fastapi"


@requires_shared
@pytest.mark.shared
def test_older_recordings_licences_and_authors() -> None:
    easybuild = parse_project(recorded("pypi.org_pypi_easybuild-easyconfigs_json.json"))
    luigi = parse_project(recorded("pypi.org_pypi_luigi_json.json"))
    mkdocstrings = parse_project(recorded("pypi.org_pypi_mkdocstrings_json.json"))
    azure = parse_project(recorded("pypi.org_pypi_azure-cli-monitor_json.json"))

    assert easybuild.license == "GPL-2.0-only"  # "GPLv2" + the GPLv2 classifier
    assert luigi.license == "Apache-2.0"  # "Apache License 2.0" + the Apache classifier
    assert mkdocstrings.license == "ISC"  # PEP 639 license_expression
    assert mkdocstrings.maintainers[0].name == "Timothée Mazzucotelli"  # RFC 2047-encoded upload
    # Old body: no upload_time_iso_8601 anywhere, and requirements in the parenthesised form.
    assert all(r.published_at is not None for r in azure.releases)
    assert Dependency("azure-mgmt-resource", "==1.2.1") in azure.dependencies


@requires_shared
@pytest.mark.shared
def test_per_version_bodies() -> None:
    siuba = recorded("pypi.org_pypi_siuba_0.3.0_json.json")
    yiban = recorded("pypi.org_pypi_yiban_json.json")
    yiban_release = recorded("pypi.org_pypi_yiban_0.1.2.32_json.json")

    info = parse_project(siuba, version_data=siuba)
    assert info.dependencies_version == "0.3.0"
    # Single-quoted markers (`extra == 'test'`) are recognised too.
    assert (
        Dependency("hypothesis", "", kind="extra:test", marker='extra == "test"')
        in info.dependencies
    )

    at_release = parse_project(yiban, version="0.1.2.32", version_data=yiban_release)
    assert at_release.dependencies_version == "0.1.2.32"
    assert at_release.dependencies == (Dependency("openpyxl", ""),)


@requires_shared
@pytest.mark.shared
def test_pypistats_recent_bodies() -> None:
    flask = recorded("pypistats.org_api_packages_flask_recent.json")
    yiban = recorded("pypistats.org_api_packages_yiban_recent.json")

    assert parse_recent_downloads(flask) == 39375127
    assert parse_recent_downloads(yiban) == 7
