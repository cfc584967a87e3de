"""
PyPI PEP 740 attestations (https://docs.pypi.org/attestations/).

Index: the PEP 691 JSON simple page (`GET /simple/{project}/` with
`Accept: application/vnd.pypi.simple.v1+json`) lists every file with `provenance` — the URL of its
provenance object, or null when the file was uploaded without attestations — so one request tells
which versions (and how many of their files) are attested. The JSON API (`/pypi/{project}/json`)
does not carry this.
Attestations: `GET /integrity/{project}/{version}/{filename}/provenance` answers
`{"version": 1, "attestation_bundles": [{"publisher": {kind, repository, workflow, environment},
"attestations": [...]}]}` (Trusted Publishing identity plus the Sigstore material).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Final

import httpx
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.attestations import ProvenanceIndex, SigstoreFacts, VersionAttestations
from pkgintel.sources.provenance.base import reroot
from pkgintel.sources.sigstore import pypi_attestation_facts
from pkgintel.transport.upstream import json_object, raise_if_unavailable, send

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL: Final = "https://pypi.org"
INDEX_SOURCE: Final = "pypi.org/simple"
ATTESTATION_SOURCE: Final = "pypi.org/integrity"
SIMPLE_JSON: Final = "application/vnd.pypi.simple.v1+json"


class PypiProvenance:
    """`ProvenanceSource` for PyPI (or a mirror at `base_url` serving the same paths)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI
    index_source: ClassVar[str] = INDEX_SOURCE
    attestation_source: ClassVar[str] = ATTESTATION_SOURCE
    kind: ClassVar[str] = (
        "PEP 740 attestations: publish attestations signed by the Trusted Publisher"
    )

    def __init__(self, client: httpx.AsyncClient, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base = base_url.rstrip("/")

    async def _get(self, url: str, source: str, accept: str) -> dict[str, Any] | None:
        response = await send(
            self._client, "GET", url, ecosystem="pypi", source=source, headers={"Accept": accept}
        )
        if response.status_code in (404, 410):
            return None
        raise_if_unavailable(response, ecosystem="pypi", source=source)
        return json_object(response, ecosystem="pypi", source=source)

    async def fetch_index(self, name: str) -> ProvenanceIndex | None:
        project = canonicalize_name(name)
        data = await self._get(f"{self._base}/simple/{project}/", INDEX_SOURCE, SIMPLE_JSON)
        if data is None:
            return None
        return parse_simple_index(data)

    async def fetch_facts(self, name: str, entry: VersionAttestations) -> list[SigstoreFacts]:
        if not entry.urls:
            return []
        data = await self._get(
            reroot(entry.urls[0], self._base), ATTESTATION_SOURCE, "application/json"
        )
        return [] if data is None else parse_provenance(data)


def _file_version(filename: str, canonical: dict[Version, str]) -> str | None:
    """The registry's spelling of the version a distribution file belongs to, or None."""
    parsed: Version | None = None
    try:
        if filename.endswith(".whl"):
            parsed = parse_wheel_filename(filename)[1]
        elif filename.endswith((".tar.gz", ".zip")):
            parsed = parse_sdist_filename(filename)[1]
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    return canonical.get(parsed) if parsed is not None else None


def parse_simple_index(data: Mapping[str, Any]) -> ProvenanceIndex:
    """
    Per-version attestation flags of a PEP 691 JSON simple page: a version is attested when any of
    its files has a `provenance` URL; `files` / `attested_files` count them. Files whose name gives
    no version (eggs, installers) are left out. Raises `RegistryResponseInvalid` without `files`.
    """
    files = data.get("files")
    if not isinstance(files, list):
        raise RegistryResponseInvalid(
            "pypi", "simple index has no files list", reason="invalid_shape", source=INDEX_SOURCE
        )
    canonical: dict[Version, str] = {}
    for v in data.get("versions") or []:
        if isinstance(v, str):
            try:
                canonical.setdefault(Version(v), v)
            except InvalidVersion:
                continue
    counts: dict[str, list[int]] = {}
    urls: dict[str, list[str]] = {}
    for item in files:
        if not isinstance(item, Mapping) or not isinstance(item.get("filename"), str):
            continue
        filename = item["filename"]
        if not canonical:
            # API 1.0 pages have no `versions`: learn them from the file names.
            try:
                ver = (
                    parse_wheel_filename(filename)[1]
                    if filename.endswith(".whl")
                    else parse_sdist_filename(filename)[1]
                )
            except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
                continue
            version: str | None = str(ver)
        else:
            version = _file_version(filename, canonical)
        if version is None:
            continue
        tally = counts.setdefault(version, [0, 0])
        tally[0] += 1
        prov = item.get("provenance")
        if isinstance(prov, str) and prov:
            tally[1] += 1
            # sdists first: one attestation per version is fetched, prefer the source archive.
            bucket = urls.setdefault(version, [])
            bucket.insert(0, prov) if not filename.endswith(".whl") else bucket.append(prov)
    out = {
        v: VersionAttestations(
            version=v,
            attested=attested > 0,
            urls=tuple(urls.get(v, ())),
            files=total,
            attested_files=attested,
        )
        for v, (total, attested) in counts.items()
    }
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    return ProvenanceIndex(package=str(name), versions=out, source=INDEX_SOURCE)


def parse_provenance(data: Mapping[str, Any]) -> list[SigstoreFacts]:
    """Facts of each attestation of an integrity-API provenance object, with its publisher block.
    Raises `RegistryResponseInvalid` when `attestation_bundles` is not a list."""
    bundles = data.get("attestation_bundles")
    if not isinstance(bundles, list):
        raise RegistryResponseInvalid(
            "pypi",
            "provenance object has no attestation_bundles",
            reason="invalid_shape",
            source=ATTESTATION_SOURCE,
        )
    out: list[SigstoreFacts] = []
    for bundle in bundles:
        if not isinstance(bundle, Mapping):
            continue
        publisher = (
            bundle.get("publisher") if isinstance(bundle.get("publisher"), Mapping) else None
        )
        for att in bundle.get("attestations") or []:
            if isinstance(att, Mapping):
                out.append(pypi_attestation_facts(att, publisher))
    return out
