"""
The `RegistryAdapter` contract, run over every adapter in `ADAPTERS` on the rows of
`contract_cases.CASES` (hand-written and recorded bodies):

- an existing package parses, and every value the adapter returns is found in the bodies it was
  given (no invented versions, dates, people, dependencies, descriptions, URLs or licences);
- a package the registry does not know → `PackageNotFound`;
- 5xx or a timeout from the registry → `RegistryUnavailable`;
- a malformed authoritative body → `RegistryResponseInvalid`;
- a version the package does not have → `VersionNotFound`;
- an unknown package has no weekly downloads (None), never an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import PackageInfo
from pkgintel.domain.versions import sort_key
from pkgintel.ecosystems import ADAPTERS
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.ecosystems.cran import R_LICENSES
from pkgintel.ecosystems.maven import LICENSE_NAMES
from tests.ecosystems.contract_cases import CASES, Answers, ContractCase, recorded
from tests.shared import SHARED_DATA

Handler = Callable[[httpx.Request], httpx.Response]


def _answers(case: ContractCase) -> Answers:
    if case.recorded and not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set PKGINTEL_SHARED_DATA)")
    return case.answers()


def _replay(answers: Answers, seen: list[str] | None = None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if seen is not None:
            seen.append(url)
        status, body = answers.get(url, (404, b'{"errors":[{"detail":"Not Found"}]}'))
        return httpx.Response(status, content=body)

    return handler


def _adapter(case: ContractCase, handler: Handler) -> tuple[RegistryAdapter, httpx.AsyncClient]:
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return ADAPTERS[case.ecosystem](client, **case.kwargs), client


def test_every_adapter_has_contract_cases() -> None:
    assert set(ADAPTERS) <= {case.ecosystem for case in CASES}


def _license_tokens(expression: str) -> list[str]:
    return [t for t in re.split(r"[()\s]+|\bOR\b|\bAND\b|\bWITH\b", expression) if t]


def _decoded(body: bytes) -> str:
    """A JSON body re-rendered without escapes (Go's encoder writes `>` as `\\u003e`), else ''."""
    try:
        return json.dumps(json.loads(body), ensure_ascii=False)
    except ValueError:
        return ""


def _assert_from_bodies(info: PackageInfo, answers: Answers) -> None:
    blob = b"\n".join(body for _, body in answers.values()).decode("utf-8", "replace").lower()
    blob += "\n" + "\n".join(_decoded(body) for _, body in answers.values()).lower()
    assert info.latest_version.lower() in blob
    assert info.release(info.latest_version) is not None
    keys = [sort_key(info.ecosystem, r.version) for r in info.releases]
    assert keys == sorted(keys), "releases must be oldest → newest by the ecosystem's ordering"
    for rel in info.releases:
        assert rel.version.lower() in blob
        if rel.published_at is not None:
            assert rel.published_at.strftime("%Y-%m-%d") in blob
    if info.description:
        assert info.description.splitlines()[0][:30].lower() in blob
    for person in info.maintainers:
        assert person.name.lower() in blob
    for dep in info.dependencies:
        # Maven names dependencies `group:artifact`; the POM has the two parts apart.
        assert all(part.lower() in blob for part in dep.name.split(":"))
        if dep.requirement:
            assert dep.requirement.lower() in blob
    for url in (info.homepage, info.repository):
        if url:
            assert url.split("://", 1)[-1].rstrip("/").lower() in blob
    if info.license:
        # An adapter that maps the registry's licence names to SPDX keeps the registry's own
        # spelling as `extra["license_registry"]` (CPAN's `perl_5`); that spelling is checked.
        registry_spelling = info.extra.get("license_registry")
        if registry_spelling:
            assert all(part.lower() in blob for part in registry_spelling.split())
        for token in _license_tokens(info.license):
            assert (
                registry_spelling
                or token.lower() in blob
                or any(spdx == token and name in blob for name, spdx in LICENSE_NAMES.items())
                or any(  # R licence short names mapped to SPDX
                    spdx == token and name.lower() in blob for name, spdx in R_LICENSES.items()
                )
            ), token
    if "downloads" in info.extra:
        assert info.extra["downloads"] in blob


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_existing_package_parses_without_invented_values(case: ContractCase) -> None:
    answers = _answers(case)
    adapter, client = _adapter(case, _replay(answers))
    async with client:
        info = await adapter.fetch_package(case.package)
    assert info.ecosystem is case.ecosystem
    assert normalise_name(info.ecosystem, info.name) == normalise_name(case.ecosystem, case.package)
    _assert_from_bodies(info, answers)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_unknown_package_is_package_not_found(case: ContractCase) -> None:
    adapter, client = _adapter(case, _replay({}))
    async with client:
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package(case.package)
        assert await adapter.fetch_weekly_downloads(case.package) is None


@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_server_error_is_registry_unavailable(case: ContractCase, status: int) -> None:
    adapter, client = _adapter(case, lambda _: httpx.Response(status, content=b"upstream down"))
    async with client:
        with pytest.raises(RegistryUnavailable) as caught:
            await adapter.fetch_package(case.package)
    assert caught.value.reason == f"status.{status}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_timeout_is_registry_unavailable(case: ContractCase) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    adapter, client = _adapter(case, handler)
    async with client:
        with pytest.raises(RegistryUnavailable) as caught:
            await adapter.fetch_package(case.package)
    assert caught.value.reason == "timeout"


@pytest.mark.parametrize(
    "body", [b"<html><body>Service page</body></html>", b'{"unexpected": true}', b"[1, 2, 3]"]
)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_malformed_primary_body_is_response_invalid(case: ContractCase, body: bytes) -> None:
    answers = dict(_answers(case))
    assert case.primary_url in answers, "the case must answer its primary URL"
    answers[case.primary_url] = (200, body)
    adapter, client = _adapter(case, _replay(answers))
    async with client:
        with pytest.raises(RegistryResponseInvalid):
            await adapter.fetch_package(case.package)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_missing_version_is_version_not_found(case: ContractCase) -> None:
    adapter, client = _adapter(case, _replay(_answers(case)))
    async with client:
        with pytest.raises(VersionNotFound) as caught:
            await adapter.fetch_package(case.package, version=case.missing_version)
    assert caught.value.version == case.missing_version
    assert caught.value.available, "the error lists versions that do exist"


RECORDED_NOT_FOUND = [
    pytest.param(
        "cargo",
        "status-404__crates.io_api_v1_crates_this-crate-does-not-exist.json",
        "this-crate-does-not-exist",
        id="cargo",
    ),
    pytest.param(
        "nuget",
        "status-404__api.nuget.org_v3_registration5-semver1_doesnotexist123456_index.json.xml",
        "doesnotexist123456",
        id="nuget",
    ),
    pytest.param(
        "maven",
        "status-404__api.deps.dev_v3alpha_systems_maven_packages_doesnotexist_doesnotexist.txt",
        "doesnotexist:doesnotexist",
        id="maven",
    ),
    # Hackage, CRAN, Conda
    pytest.param(
        "hackage",
        "status-404__hackage.haskell.org_package_doesnotexist123456.json.txt",
        "doesnotexist123456",
        id="hackage",
    ),
    pytest.param(
        "cran",
        "status-404__packagemanager.posit.co___api___repos_2_packages_doesnotexist123456.json",
        "doesnotexist123456",
        id="cran",
    ),
]


@pytest.mark.parametrize(("folder", "file", "name"), RECORDED_NOT_FOUND)
async def test_recorded_not_found_answers_are_package_not_found(
    folder: str, file: str, name: str
) -> None:
    case = ContractCase(
        id=folder,
        ecosystem=next(c.ecosystem for c in CASES if c.id.startswith(folder)),
        package=name,
        answers=recorded(folder, file),
        primary_url="",
        recorded=True,
    )
    answers = _answers(case)
    assert {status for status, _ in answers.values()} == {404}
    adapter, client = _adapter(case, _replay(answers))
    async with client:
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package(name)
