"""npm adapter: URLs, packument parsing on hand-written and real recorded bodies, downloads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer
from pkgintel.ecosystems.npm import NpmAdapter, parse_downloads, parse_packument
from tests.ecosystems._recorded import recorded_transport, recording_body
from tests.shared import read_shared_json, requires_shared

SCOPED_URL = "https://registry.npmjs.org/@acme%2Flegacy-widget"


def scoped_body() -> Any:
    return recording_body("npm", "scoped-deprecated", SCOPED_URL)


def shared_packument(name: str) -> Any:
    return read_shared_json("registry-fixtures", "npm", name)


# --- URLs and the adapter ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("@types/jquery", "https://registry.npmjs.org/@types%2Fjquery"),
        ("%40types%2Fjquery", "https://registry.npmjs.org/@types%2Fjquery"),
        ("@types%2Fjquery", "https://registry.npmjs.org/@types%2Fjquery"),
        ("lodash", "https://registry.npmjs.org/lodash"),
    ],
)
def test_packument_url_encodes_the_scope_slash_once(name: str, url: str) -> None:
    assert NpmAdapter(httpx.AsyncClient()).packument_url(name) == url


@pytest.mark.parametrize("name", ["@types/jquery", "%40types%2Fjquery"])
async def test_scoped_name_is_requested_in_the_registry_form(name: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(PackageNotFound) as caught:
            await NpmAdapter(client).fetch_package(name)

    assert seen[0].url.raw_path == b"/@types%2Fjquery"
    assert caught.value.name == "@types/jquery"


@pytest.mark.parametrize("name", ["@acme/legacy-widget", "%40acme%2Flegacy-widget"])
async def test_fetch_package_from_recording(name: str) -> None:
    seen: list[httpx.Request] = []
    transport = recorded_transport("npm", "scoped-deprecated", seen=seen)

    async with httpx.AsyncClient(transport=transport) as client:
        info = await NpmAdapter(client).fetch_package(name)

    assert info.name == "@acme/legacy-widget"
    assert info.ecosystem is Ecosystem.NPM
    assert [str(r.url) for r in seen] == [SCOPED_URL]


async def test_fetch_weekly_downloads_uses_the_point_api_with_a_literal_scope_slash() -> None:
    seen: list[httpx.Request] = []
    transport = recorded_transport("npm", "scoped-deprecated", seen=seen)

    async with httpx.AsyncClient(transport=transport) as client:
        downloads = await NpmAdapter(client).fetch_weekly_downloads("@acme/legacy-widget")

    assert downloads == 4321
    assert seen[0].url.raw_path == b"/downloads/point/last-week/@acme/legacy-widget"


async def test_unpublished_package_is_not_found_and_has_no_downloads() -> None:
    async with httpx.AsyncClient(transport=recorded_transport("npm", "unpublished")) as client:
        adapter = NpmAdapter(client)
        with pytest.raises(PackageNotFound) as caught:
            await adapter.fetch_package("gone-widget")
        assert await adapter.fetch_weekly_downloads("gone-widget") is None

    assert caught.value.name == "gone-widget"


# --- parse_packument on the hand-written scoped, deprecated package ---------------------------


def test_latest_comes_from_dist_tags_not_the_highest_version() -> None:
    info = parse_packument(scoped_body())

    assert info.latest_version == "2.1.0"
    assert [r.version for r in info.releases] == ["1.0.0", "2.0.0", "2.1.0", "3.0.0-beta.1"]
    assert [r.prerelease for r in info.releases] == [False, False, False, True]


def test_deprecated_latest_marks_the_package_and_the_release() -> None:
    info = parse_packument(scoped_body())
    message = "Moved to @acme/widget; this package is no longer maintained"

    assert info.deprecated is True
    assert info.deprecated_message == message
    latest = info.release("2.1.0")
    assert latest is not None
    assert latest.yanked is False
    assert latest.deprecated == message


def test_empty_deprecation_string_means_not_deprecated() -> None:
    release = parse_packument(scoped_body()).release("2.0.0")

    assert release is not None
    assert release.deprecated is None
    assert release.yanked is False


def test_publish_times_are_utc_and_a_bad_one_is_skipped() -> None:
    info = parse_packument(scoped_body())

    latest = info.release("2.1.0")
    bad = info.release("2.0.0")
    assert latest is not None
    assert bad is not None
    assert latest.published_at == datetime(2021, 6, 15, 12, 34, 56, 789000, tzinfo=UTC)
    assert bad.published_at is None


@pytest.mark.parametrize(
    ("version", "license"),
    [(None, "MIT"), ("2.0.0", "ISC"), ("1.0.0", "MIT OR Apache-2.0")],
)
def test_license_shapes_of_the_requested_version(version: str | None, license: str) -> None:
    assert parse_packument(scoped_body(), version=version).license == license


def test_dependencies_by_kind_without_dev_and_without_doubling_optional() -> None:
    info = parse_packument(scoped_body())

    assert info.dependencies_version == "2.1.0"
    assert info.dependencies == (
        Dependency("left-shift", "^1.2.0", kind="runtime"),
        Dependency("fsevents", "^2.3.2", kind="optional"),
        Dependency("react", ">=17", kind="peer"),
    )


def test_dependencies_of_a_requested_version_and_of_a_dist_tag() -> None:
    old = parse_packument(scoped_body(), version="1.0.0")
    beta = parse_packument(scoped_body(), version="next")

    assert old.dependencies == (Dependency("left-shift", "~0.1.0"),)
    assert old.dependencies_version == "1.0.0"
    assert beta.dependencies_version == "3.0.0-beta.1"
    assert old.latest_version == beta.latest_version == "2.1.0"


def test_missing_version_lists_the_newest_available() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_packument(scoped_body(), version="9.9.9")

    assert caught.value.name == "@acme/legacy-widget"
    assert caught.value.version == "9.9.9"
    assert caught.value.available == ["3.0.0-beta.1", "2.1.0", "2.0.0", "1.0.0"]


def test_people_links_keywords_and_types() -> None:
    info = parse_packument(scoped_body())

    assert info.maintainers == (
        Maintainer("Ada Lovelace", "ada@example.org", role="maintainer"),
        Maintainer("bob", "bob@example.org", role="maintainer"),
        Maintainer("nameless@example.org", "nameless@example.org", role="maintainer"),
    )
    assert info.repository == "https://github.com/acme/legacy-widget"
    assert info.homepage == "https://acme.example/widget"
    assert info.description == "Widgets for the old acme toolkit"
    assert info.keywords == ("widget", "legacy", "acme")
    assert info.extra == {"types": "dist/index.d.ts", "engines.node": ">=14"}


# --- tolerance and refusal --------------------------------------------------------------------


def test_packument_without_time_or_dist_tags_still_parses() -> None:
    info = parse_packument(
        {
            "name": "bare",
            "versions": {
                "1.0.0": {"license": {"type": "BSD-2-Clause"}},
                "1.2.0": {"maintainers": ["Solo Dev <solo@example.org>"]},
                "2.0.0-rc.1": {},
                "broken": "not a manifest",
            },
        }
    )

    assert info.latest_version == "1.2.0"
    assert [r.version for r in info.releases] == ["1.0.0", "1.2.0", "2.0.0-rc.1"]
    assert all(r.published_at is None for r in info.releases)
    assert info.license is None
    assert info.maintainers == (Maintainer("Solo Dev", "solo@example.org", role="maintainer"),)


def test_dangling_latest_tag_falls_back_to_the_newest_stable_version() -> None:
    info = parse_packument(
        {"name": "x", "dist-tags": {"latest": "3.0.0"}, "versions": {"1.0.0": {}, "1.1.0": {}}}
    )

    assert info.latest_version == "1.1.0"


@pytest.mark.parametrize(
    "body",
    [{}, {"_rev": "1-abc"}, {"versions": {}}, {"versions": "nope"}, {"name": "x", "versions": []}],
)
def test_body_that_is_not_a_packument_is_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_packument(body)


def test_name_with_empty_versions_is_not_found() -> None:
    with pytest.raises(PackageNotFound):
        parse_packument({"name": "empty", "versions": {}, "time": {}})


def test_parse_downloads_shapes() -> None:
    assert parse_downloads({"downloads": 0, "package": "x"}) == 0
    assert parse_downloads({"error": "package x not found"}) is None
    with pytest.raises(RegistryResponseInvalid):
        parse_downloads({"downloads": "many"})


# --- real recorded packuments (../shared/data) ------------------------------------------------


@pytest.mark.shared
@requires_shared
def test_lodash() -> None:
    info = parse_packument(shared_packument("registry.npmjs.org_lodash.json"))

    assert info.name == "lodash"
    assert info.latest_version == "4.17.21"
    assert info.license == "MIT"
    assert info.repository == "https://github.com/lodash/lodash"
    assert info.homepage == "https://lodash.com/"
    assert len(info.releases) == 114
    assert info.releases[0].version == "0.1.0"
    assert info.releases[-1].version == "4.17.21"
    assert info.releases[-1].published_at == datetime(2021, 2, 20, 15, 42, 16, 891000, tzinfo=UTC)
    assert "jdalton" in [m.name for m in info.maintainers]
    assert info.dependencies == ()
    assert info.deprecated is False


@pytest.mark.shared
@requires_shared
def test_lodash_releases_follow_semver_not_publish_order() -> None:
    info = parse_packument(shared_packument("registry.npmjs.org_lodash.json"))
    order = [r.version for r in info.releases]
    backport, newer = info.release("1.0.2"), info.release("3.6.0")

    assert backport is not None
    assert newer is not None
    assert backport.published_at is not None
    assert newer.published_at is not None
    assert backport.published_at > newer.published_at  # 1.0.2 was published after 3.6.0 ...
    assert order.index("1.0.2") < order.index("3.6.0")  # ... yet sorts before it


@pytest.mark.shared
@requires_shared
def test_lodash_legacy_licenses_array_and_missing_version() -> None:
    data = shared_packument("registry.npmjs.org_lodash.json")

    assert parse_packument(data, version="0.1.0").license == "MIT"
    with pytest.raises(VersionNotFound) as caught:
        parse_packument(data, version="9.9.9")
    assert caught.value.available[0] == "4.17.21"
    assert len(caught.value.available) == 10


@pytest.mark.shared
@requires_shared
def test_types_jquery_scoped_package() -> None:
    info = parse_packument(shared_packument("registry.npmjs.org_@types_2Fjquery.json.gz"))

    assert info.name == "@types/jquery"
    assert info.latest_version == "3.5.14"
    assert info.extra["types"] == "index.d.ts"
    assert info.dependencies == (Dependency("@types/sizzle", "*"),)
    assert info.repository == "https://github.com/DefinitelyTyped/DefinitelyTyped"
    assert info.license == "MIT"
    assert len(info.releases) == 125


@pytest.mark.shared
@requires_shared
def test_react_prereleases_deprecated_release_and_licence_history() -> None:
    data = shared_packument("registry.npmjs.org_react.json.gz")
    info = parse_packument(data)

    assert info.latest_version == "16.6.0"
    assert info.releases[-1].version == "16.7.0-alpha.0"
    assert info.releases[-1].prerelease is True
    old = info.release("0.7.1")
    assert old is not None
    assert old.deprecated is not None
    assert "autoflow" in old.deprecated
    assert info.deprecated is False
    assert info.license == "MIT"
    assert parse_packument(data, version="0.14.0").license == "BSD-3-Clause"
    assert parse_packument(data, version="0.7.1").license == "MIT"  # legacy `licenses` array
    assert Dependency("envify", "~1.2.0", kind="peer") in (
        parse_packument(data, version="0.10.0").dependencies
    )


@pytest.mark.shared
@requires_shared
def test_chalk_deprecated_versions_and_types() -> None:
    info = parse_packument(shared_packument("registry.npmjs.org_chalk.json"))

    deprecated = [r.version for r in info.releases if r.deprecated]
    assert deprecated == ["1.1.2", "2.0.1"]
    assert info.latest_version == "2.4.2"
    assert info.deprecated is False
    assert info.extra["types"] == "types/index.d.ts"
    assert [d.name for d in info.dependencies] == [
        "ansi-styles",
        "escape-string-regexp",
        "supports-color",
    ]


@pytest.mark.shared
@requires_shared
def test_node_forge_licence_expression_and_fallback_to_top_level() -> None:
    data = shared_packument("registry.npmjs.org_node-forge.json")

    info = parse_packument(data)
    assert info.license == "(BSD-3-Clause OR GPL-2.0)"
    # 0.1.2 states no licence of its own: the package-level one applies.
    assert parse_packument(data, version="0.1.2").license == "(BSD-3-Clause OR GPL-2.0)"
    # `time` also lists 0.1.3-dev, which is not a published version.
    assert len(info.releases) == 131
    assert info.release("0.1.3-dev") is None


@pytest.mark.shared
@requires_shared
def test_jquery_old_deprecated_versions_and_no_dev_dependencies() -> None:
    info = parse_packument(shared_packument("registry.npmjs.org_jquery.json"))

    deprecated = [r for r in info.releases if r.deprecated]
    assert len(deprecated) == 7
    assert all(r.version.startswith(("1.5.", "1.6.", "1.7.", "1.8.")) for r in deprecated)
    assert info.latest_version == "3.6.0"
    assert info.dependencies == ()  # 3.6.0 has only devDependencies


@pytest.mark.shared
@requires_shared
def test_etag_latest_is_not_the_deprecated_higher_version() -> None:
    info = parse_packument(shared_packument("registry.npmjs.org_etag.json"))

    assert info.latest_version == "1.7.0"
    assert info.releases[-1].version == "2.0.0"
    assert info.releases[-1].deprecated is not None
    assert info.deprecated is False


@pytest.mark.shared
@requires_shared
def test_a_version_manifest_is_not_a_packument() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_packument(shared_packument("registry.npmjs.org_etag_1.0.0.json"))


@pytest.mark.shared
@requires_shared
def test_base62_downloads_body() -> None:
    body = shared_packument("api.npmjs.org_downloads_point_last-month_base62.json")

    assert parse_downloads(body) == 1076972
