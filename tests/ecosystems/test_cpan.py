"""CPAN adapter: MetaCPAN release documents and searches (recorded and hand-written), licences,
dependencies, module → distribution, errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer
from pkgintel.domain.versions import is_prerelease, newest_first
from pkgintel.ecosystems.cpan import (
    CpanAdapter,
    distribution_name,
    parse_release,
    parse_versions,
)
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_json, requires_shared

FOLDER = "registry-fixtures", "cpan"
RELEASE = "fastapi.metacpan.org_v1_release_Dpkg.json"
VERSIONS = (
    "fastapi.metacpan.org_v1_release__search_fields_version_date_q_distribution_Dpkg_size_5000.json"
)
FULL_SEARCH = "fastapi.metacpan.org_v1_release__search_q_distribution_Dpkg_size_5000.json.gz"


def fixture(name: str) -> Any:
    return read_shared_json(*FOLDER, name)


def release(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "distribution": "Tiny-Dist",
        "version": "1.02",
        "date": "2024-02-01T10:00:00",
        "author": "ANNA",
        "abstract": "Tiny",
        "license": ["perl_5"],
        "main_module": "Tiny::Dist",
        "metadata": {"author": ["Ann Author <ann@example.org>", "Bob"]},
        "dependency": [],
    }
    body.update(over)
    return body


SEARCH = {"hits": {"hits": [{"fields": {"version": "1.02", "date": "2024-02-01T10:00:00"}}]}}


def test_module_names_map_to_distribution_names() -> None:
    assert distribution_name("Plack::Request") == "Plack-Request"
    assert distribution_name(" Dpkg ") == "Dpkg"


@requires_shared
def test_dpkg_from_its_recorded_release_and_version_search() -> None:
    info = parse_release(fixture(RELEASE), parse_versions(fixture(VERSIONS)))
    assert info.name == "Dpkg" and info.latest_version == "v1.21.5"
    assert len(info.releases) == 22
    assert info.releases[0].version == "v1.19.1" and info.releases[-1].version == "v1.21.5"
    assert info.releases[-1].published_at is not None
    assert info.releases[-1].published_at.isoformat() == "2022-03-29T01:07:10+00:00"
    assert info.license == "GPL-2.0-only" and info.extra["license_registry"] == "gpl_2"
    assert info.maintainers == (
        Maintainer("GUILLEM", None, "uploader"),
        Maintainer("Dpkg Developers", "debian-dpkg@lists.debian.org", "author"),
    )
    assert info.repository == "https://git.dpkg.org/cgit/dpkg/dpkg"
    assert info.homepage == "https://wiki.debian.org/Teams/Dpkg"
    assert info.extra["requires_perl"] == "v5.28.1"
    assert info.extra["install_name"] == "Dpkg"
    kinds = {d.name: d.kind for d in info.dependencies}
    assert kinds["Locale::gettext"] == "optional"  # runtime recommends
    assert kinds["Test::More"] == "dev" and kinds["Module::Build"] == "dev"
    assert "perl" not in kinds and "Test::Perl::Critic" not in kinds  # develop phase left out
    assert Dependency("Module::Build", "0.4004", "dev") in info.dependencies


@requires_shared
def test_recorded_dotted_versions_sort_like_their_release_dates() -> None:
    """MetaCPAN's release dates of Dpkg order its dotted versions as version.pm does."""
    listed = parse_versions(fixture(VERSIONS))
    by_date = [v for v, _ in sorted(listed, key=lambda item: item[1] or "")]
    assert newest_first(Ecosystem.CPAN, by_date) == by_date[::-1]


@requires_shared
def test_recorded_decimal_versions_sort_like_their_release_dates() -> None:
    """Plack's decimal versions (`1.0048` …), as MetaCPAN's file search lists them newest first."""
    hits = fixture("POST__fastapi.metacpan.org_v1_file__search.json")["hits"]["hits"]
    listed = [h["_source"]["module"][0]["version"] for h in hits]
    assert newest_first(Ecosystem.CPAN, listed) == listed
    assert not any(is_prerelease(Ecosystem.CPAN, v) for v in listed)


@requires_shared
def test_the_full_release_search_also_reads() -> None:
    listed = parse_versions(fixture(FULL_SEARCH))
    assert dict(listed)["v1.21.5"] == "2022-03-29T01:07:10"
    assert len(listed) == 22


def test_licences_map_to_spdx() -> None:
    info = parse_release(release(), parse_versions(SEARCH))
    assert info.license == "Artistic-1.0-Perl OR GPL-1.0-or-later"
    assert parse_release(release(license=["mit", "apache_2_0"]), []).license == "MIT AND Apache-2.0"
    unknown = parse_release(release(license=["open_source"]), [])
    assert unknown.license is None and unknown.extra["license_registry"] == "open_source"


def test_deprecated_release() -> None:
    info = parse_release(release(deprecated=True), [])
    assert info.deprecated is True and "x_deprecated" in (info.deprecated_message or "")


def test_developer_releases_are_pre_releases() -> None:
    info = parse_release(release(), [("1.02", None), ("1.03_01", "2024-03-01T00:00:00")])
    assert [r.version for r in info.releases] == ["1.02", "1.03_01"]
    assert info.releases[-1].prerelease and info.latest_version == "1.02"


def test_bodies_that_are_not_release_documents_are_invalid() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_release({"code": 404}, [])
    with pytest.raises(RegistryResponseInvalid):
        parse_versions({"took": 3})


# --- fetching ---------------------------------------------------------------------------------

_RELEASE = "/v1/release/Tiny-Dist"
_SEARCH = "/v1/release/_search"


def _search_routes(version_answer: Any = None) -> dict[str, Any]:
    def search(request: httpx.Request) -> httpx.Response:
        query = request.url.params.get("q", "")
        if request.url.params.get("fields") == "version,date":
            return httpx.Response(200, json=SEARCH)
        if "version:" in query and version_answer is not None:
            return httpx.Response(*version_answer)
        return httpx.Response(404, json={"code": 404})

    return {_RELEASE: (200, release()), _SEARCH: search}


async def test_module_name_is_read_as_its_distribution() -> None:
    seen: list[str] = []
    async with httpx.AsyncClient(transport=routes_transport(_search_routes(), seen=seen)) as client:
        info = await CpanAdapter(client).fetch_package("Tiny::Dist")
    assert info.name == "Tiny-Dist" and info.latest_version == "1.02"
    assert sorted(seen) == sorted([_SEARCH, _RELEASE])


async def test_module_in_a_differently_named_distribution_is_found_through_the_module() -> None:
    routes = _search_routes()
    routes["/v1/module/Tiny::Dist::Helper"] = (200, {"distribution": "Tiny-Dist"})
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await CpanAdapter(client).fetch_package("Tiny::Dist::Helper")
        with pytest.raises(PackageNotFound):
            await CpanAdapter(client).fetch_package("No::Such")
    assert info.name == "Tiny-Dist"


async def test_a_same_named_distribution_that_does_not_ship_the_module_is_not_taken() -> None:
    # `Tiny::Dist::Extra` spelled as a distribution finds an unrelated `Tiny-Dist-Extra` whose
    # release ships other modules: the module index names the distribution that ships it
    routes = _search_routes()
    routes["/v1/release/Tiny-Dist-Extra"] = (
        200,
        release(
            distribution="Tiny-Dist-Extra", main_module="Tiny::Other", provides=["Tiny::Other"]
        ),
    )
    routes["/v1/module/Tiny::Dist::Extra"] = (200, {"distribution": "Tiny-Dist"})
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await CpanAdapter(client).fetch_package("Tiny::Dist::Extra")
        same = await CpanAdapter(client).fetch_package("Tiny-Dist-Extra")  # asked as a distribution
    assert info.name == "Tiny-Dist"
    assert same.name == "Tiny-Dist-Extra"
    assert same.extra["main_module"] == "Tiny::Other" and same.extra["provides"] == "Tiny::Other"


async def test_older_version_reads_its_release_document() -> None:
    old = release(
        version="1.01",
        dependency=[
            {"module": "JSON::PP", "phase": "runtime", "relationship": "requires", "version": "2"}
        ],
    )
    body = {"hits": {"hits": [{"_source": old}]}}
    search = {"hits": {"hits": [{"fields": {"version": v}} for v in ("1.01", "1.02")]}}
    routes = _search_routes()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("fields") == "version,date":
            return httpx.Response(200, json=search)
        assert request.url.params["q"] == 'distribution:Tiny-Dist AND version:"1.01"'
        return httpx.Response(200, json=body)

    routes[_SEARCH] = answer
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await CpanAdapter(client).fetch_package("Tiny-Dist", version="1.010")
        with pytest.raises(VersionNotFound):
            await CpanAdapter(client).fetch_package("Tiny-Dist", version="9.9")
    assert info.dependencies_version == "1.01"  # 1.010 and 1.01 are one version in version.pm
    assert info.dependencies == (Dependency("JSON::PP", "2"),)


async def test_older_version_without_its_document_says_so() -> None:
    search = {"hits": {"hits": [{"fields": {"version": v}} for v in ("1.01", "1.02")]}}
    routes = _search_routes()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("fields") == "version,date":
            return httpx.Response(200, json=search)
        return httpx.Response(503)

    routes[_SEARCH] = answer
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await CpanAdapter(client).fetch_package("Tiny-Dist", version="1.01")
    assert info.dependencies == () and "status.503" in info.extra["dependencies_unavailable"]


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ((502, b""), RegistryUnavailable),
        (timeout, RegistryUnavailable),
        ((200, b"{"), RegistryResponseInvalid),
    ],
)
async def test_release_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    routes = _search_routes()
    routes[_RELEASE] = answer
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(error):
            await CpanAdapter(client).fetch_package("Tiny-Dist")
