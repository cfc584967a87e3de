"""
A PyPI version is judged on its own metadata (issue 27): its release body; where that answers 404
(some mirrors), the PEP 658 core metadata file of its wheel; else its requirements are unknown
with the reason — never the latest release's. Project bodies are the verbatim pypi-live captures;
the metadata files are written here from the releases' published facts.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.packages import Dependency
from pkgintel.ecosystems.pypi import PyPIAdapter
from pkgintel.ecosystems.pypi_metadata import (
    choose_metadata_file,
    parse_core_metadata,
    resolve_file_url,
)
from tests.shared import read_shared_json, requires_shared

pytestmark = [requires_shared, pytest.mark.shared]

FASTAPI_0_95_METADATA = b"""Metadata-Version: 2.1
Name: fastapi
Version: 0.95.0
Summary: FastAPI framework, high performance, easy to learn, fast to code, ready for production
Requires-Python: >=3.7
Requires-Dist: pydantic (!=1.7,!=1.7.1,!=1.7.2,!=1.7.3,!=1.8,!=1.8.1,<2.0.0,>=1.6.2)
Requires-Dist: starlette (<0.27.0,>=0.26.1)
Provides-Extra: test
Requires-Dist: pytest (>=7.1.3) ; extra == 'test'

FastAPI framework.
"""
FASTAPI_WHEEL = "fastapi-0.95.0-py3-none-any.whl"
# The capture's links are relative (`../../packages/packages/...`), resolved against the JSON URL.
FASTAPI_METADATA_URL = (
    "https://pypi.org/packages/packages/3f/91/"
    "5412a4c845d1b88cfded182b0e5553e3498a38e5a65a8e9b02e3aaf47dd5/"
    f"{FASTAPI_WHEEL}.metadata"
)


def live(name: str) -> Any:
    return read_shared_json("registry-fixtures", "pypi-live", f"pypi.org_pypi_{name}_json.json.gz")


def advertise(body: dict[str, Any], version: str, flag: Any) -> dict[str, Any]:
    """`body` with `core-metadata` of `version`'s wheels set to `flag` (None: key removed)."""
    out = copy.deepcopy(body)
    for file in out["releases"][version]:
        if file["filename"].endswith(".whl"):
            if flag is None:
                file.pop("core-metadata", None)
            else:
                file["core-metadata"] = flag
    return out


def serve(bodies: dict[str, Any], seen: list[str]) -> httpx.MockTransport:
    """Bodies by URL (bytes as they are, else JSON); anything else is 404, as the mirror does."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        body = bodies.get(str(request.url))
        if body is None:
            return httpx.Response(404, json={"message": "Not Found"})
        if isinstance(body, bytes):
            return httpx.Response(200, content=body)
        return httpx.Response(200, json=body)

    return httpx.MockTransport(handler)


async def fetch(
    bodies: dict[str, Any], name: str, version: str, **kwargs: str
) -> tuple[Any, list[str]]:
    seen: list[str] = []
    async with httpx.AsyncClient(transport=serve(bodies, seen)) as client:
        info = await PyPIAdapter(client, **kwargs).fetch_package(name, version=version)
    return info, seen


async def test_django_3_0_without_its_release_body_keeps_its_own_requires_python() -> None:
    """On main: `requires_python` was 6.1's `>=3.12`."""
    info, seen = await fetch({"https://pypi.org/pypi/django/json": live("django")}, "django", "3.0")

    assert info.latest_version == "6.1.3"
    assert info.extra["requires_python"] == ">=3.6"
    assert info.extra["requires_python_of"] == "3.0"
    assert info.dependencies_version is None and info.dependencies == ()
    why = info.extra["dependencies_unavailable"]
    assert "no release document for 3.0" in why and "has no core metadata file (404)" in why
    # `core-metadata: false` is asked for all the same (mirrors say false and serve the file).
    assert [url for url in seen if url.endswith(".metadata")] == [
        "https://pypi.org/packages/packages/43/d6/0aed0b12c66527748ce5a007da4618a65dfbe1f8fca82eccedf57d60295f/Django-3.0-py3-none-any.whl.metadata"
    ]


async def test_a_wheel_the_index_says_has_no_metadata_is_still_read_when_served() -> None:
    """The mirror seen here says `core-metadata: false` on every file and serves the file anyway."""
    url = "https://pypi.org/packages/packages/43/d6/0aed0b12c66527748ce5a007da4618a65dfbe1f8fca82eccedf57d60295f/Django-3.0-py3-none-any.whl.metadata"
    metadata = b"Metadata-Version: 2.1\nName: Django\nVersion: 3.0\nRequires-Python: >=3.6\nRequires-Dist: pytz\nRequires-Dist: sqlparse (>=0.2.2)\nRequires-Dist: asgiref (~=3.2)\n\n"
    info, seen = await fetch(
        {"https://pypi.org/pypi/django/json": live("django"), url: metadata}, "django", "3.0"
    )
    assert "dependencies_unavailable" not in info.extra
    assert info.extra["requires_python"] == ">=3.6"
    assert {d.name for d in info.dependencies} == {"pytz", "sqlparse", "asgiref"}
    assert url in seen


async def test_release_body_404_falls_back_to_the_wheels_core_metadata() -> None:
    """On main: no dependencies and the latest's `>=3.10`."""
    metadata = FASTAPI_0_95_METADATA
    body = advertise(live("fastapi"), "0.95.0", {"sha256": hashlib.sha256(metadata).hexdigest()})
    info, seen = await fetch(
        {"https://pypi.org/pypi/fastapi/json": body, FASTAPI_METADATA_URL: metadata},
        "fastapi",
        "0.95.0",
    )

    assert "https://pypi.org/pypi/fastapi/0.95.0/json" in seen and FASTAPI_METADATA_URL in seen
    assert info.dependencies_version == "0.95.0"
    assert info.extra["requires_python"] == ">=3.7"
    assert "dependencies_unavailable" not in info.extra
    assert FASTAPI_WHEEL in info.extra["metadata_source"]
    assert (
        Dependency("pydantic", "!=1.7,!=1.7.1,!=1.7.2,!=1.7.3,!=1.8,!=1.8.1,<2.0.0,>=1.6.2")
        in info.dependencies
    )
    assert Dependency("starlette", "<0.27.0,>=0.26.1") in info.dependencies
    assert any(d.name == "pytest" and d.kind == "extra:test" for d in info.dependencies)


async def test_a_metadata_file_that_fails_its_hash_is_not_used() -> None:
    body = advertise(live("fastapi"), "0.95.0", {"sha256": "0" * 64})
    info, _ = await fetch(
        {"https://pypi.org/pypi/fastapi/json": body, FASTAPI_METADATA_URL: FASTAPI_0_95_METADATA},
        "fastapi",
        "0.95.0",
    )

    assert info.dependencies_version is None and info.dependencies == ()
    assert "hash_mismatch" in info.extra["dependencies_unavailable"]
    assert info.extra["requires_python"] == ">=3.7"  # still its own files' statement


async def test_unsaid_metadata_is_asked_for_on_the_configured_files_host() -> None:
    """PyPI's own links (files.pythonhosted.org) move to the configured files host; a 404 there
    leaves the requirements unknown, never the latest's."""
    body = advertise(live("fastapi"), "0.95.0", None)
    for file in body["releases"]["0.95.0"]:
        file["url"] = file["url"].replace("../../packages/", "https://files.pythonhosted.org/", 1)
    info, seen = await fetch(
        {"https://pypi.org/pypi/fastapi/json": body},
        "fastapi",
        "0.95.0",
        files_url="https://mirror.test/pypi-files/",
    )

    [asked] = [url for url in seen if url.endswith(".metadata")]
    assert asked.startswith("https://mirror.test/pypi-files/packages/3f/91/")
    assert info.dependencies == () and info.dependencies_version is None
    assert "(404)" in info.extra["dependencies_unavailable"]


async def test_a_release_body_describing_another_version_is_not_used() -> None:
    """A mirror answering the per-version URL with the project's latest document."""
    project = live("fastapi")
    info, _ = await fetch(
        {
            "https://pypi.org/pypi/fastapi/json": project,
            "https://pypi.org/pypi/fastapi/0.95.0/json": project,
        },
        "fastapi",
        "0.95.0",
    )

    assert info.dependencies_version is None
    assert info.extra["requires_python"] == ">=3.7"


def test_core_metadata_of_another_release_is_refused() -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        parse_core_metadata(FASTAPI_0_95_METADATA, name="fastapi", version="0.95.1")
    assert caught.value.reason == "metadata_mismatch"
    meta = parse_core_metadata(FASTAPI_0_95_METADATA, name="FastAPI", version="0.95")
    assert meta.requires_python == ">=3.7" and len(meta.requires_dist) == 3


def test_choice_prefers_a_universal_advertised_wheel() -> None:
    files = [
        {
            "filename": "x-1.0.tar.gz",
            "url": "https://files.pythonhosted.org/packages/a/x-1.0.tar.gz",
        },
        {
            "filename": "x-1.0-cp312-cp312-manylinux.whl",
            "url": "https://files.pythonhosted.org/packages/b/x-1.0-cp312-cp312-manylinux.whl",
            "core-metadata": {"sha256": "AB"},
        },
        {
            "filename": "x-1.0-py3-none-any.whl",
            "url": "https://files.pythonhosted.org/packages/c/x-1.0-py3-none-any.whl",
            "data-dist-info-metadata": {"sha256": "CD"},
        },
    ]
    chosen = choose_metadata_file(
        files,
        document_url="https://pypi.org/pypi/x/json",
        files_url="https://files.pythonhosted.org",
    )
    assert not isinstance(chosen, str)
    assert chosen.url.endswith("/c/x-1.0-py3-none-any.whl.metadata") and chosen.sha256 == "cd"
    sdist_only = choose_metadata_file(
        files[:1], document_url="https://pypi.org/pypi/x/json", files_url="https://f.test"
    )
    assert isinstance(sdist_only, str) and "no wheel" in sdist_only


def test_file_links_resolve_against_the_document_and_the_files_host() -> None:
    doc = "https://mirror.test/pypi/pypi/x/json"
    assert (
        resolve_file_url("../../packages/a/x.whl", document_url=doc, files_url="https://f.test")
        == "https://mirror.test/pypi/packages/a/x.whl"
    )
    assert (
        resolve_file_url(
            "https://files.pythonhosted.org/packages/a/x.whl",
            document_url=doc,
            files_url="https://f.test/files",
        )
        == "https://f.test/files/packages/a/x.whl"
    )
