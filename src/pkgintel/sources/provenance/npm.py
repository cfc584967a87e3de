"""
npm attestations (https://docs.npmjs.com/generating-provenance-statements).

Index: the packument (`GET /{name}`, abbreviated form asked for: it keeps `dist`) lists per version
`dist.attestations = {url, provenance: {predicateType}}` when the version was published with
provenance, and `dist.signatures` (the registry's own ECDSA signature) since 2023.
Attestations: `GET /-/npm/v1/attestations/{name}@{version}` answers `{"attestations": [{predicateType,
bundle}]}`: the SLSA provenance (signed with a Fulcio certificate of the CI workflow) and npm's
publish attestation (signed with the registry's key).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote, unquote

import httpx

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.attestations import ProvenanceIndex, SigstoreFacts, VersionAttestations
from pkgintel.sources.provenance.base import reroot
from pkgintel.sources.sigstore import npm_bundle_facts
from pkgintel.transport.upstream import json_object, raise_if_unavailable, send

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL: Final = "https://registry.npmjs.org"
INDEX_SOURCE: Final = "registry.npmjs.org"
ATTESTATION_SOURCE: Final = "registry.npmjs.org/-/npm/v1/attestations"
_ACCEPT: Final = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
SLSA_PREFIX: Final = "https://slsa.dev/provenance/"


class NpmProvenance:
    """`ProvenanceSource` for the npm registry (or a mirror at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM
    index_source: ClassVar[str] = INDEX_SOURCE
    attestation_source: ClassVar[str] = ATTESTATION_SOURCE
    kind: ClassVar[str] = (
        "npm provenance: SLSA build provenance signed by the CI workflow (Sigstore)"
    )

    def __init__(self, client: httpx.AsyncClient, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base = base_url.rstrip("/")

    async def _get(self, url: str, name: str, source: str, accept: str) -> dict[str, Any] | None:
        response = await send(
            self._client, "GET", url, ecosystem="npm", source=source, headers={"Accept": accept}
        )
        if response.status_code in (404, 410):
            return None
        raise_if_unavailable(response, ecosystem="npm", source=source)
        return json_object(response, ecosystem="npm", source=source)

    async def fetch_index(self, name: str) -> ProvenanceIndex | None:
        name = unquote(name)
        url = f"{self._base}/{quote(name, safe='@')}"
        data = await self._get(url, name, INDEX_SOURCE, _ACCEPT)
        if data is None:
            return None
        return parse_npm_index(data)

    def attestations_url(self, name: str, entry: VersionAttestations) -> str:
        if entry.urls:
            return reroot(entry.urls[0], self._base)
        return f"{self._base}/-/npm/v1/attestations/{quote(name, safe='@')}@{quote(entry.version)}"

    async def fetch_facts(self, name: str, entry: VersionAttestations) -> list[SigstoreFacts]:
        data = await self._get(
            self.attestations_url(unquote(name), entry),
            name,
            ATTESTATION_SOURCE,
            "application/json",
        )
        return [] if data is None else parse_npm_attestations(data)


def parse_npm_index(data: Mapping[str, Any]) -> ProvenanceIndex:
    """
    Per-version attestation flags of a packument (full or abbreviated). Raises
    `RegistryResponseInvalid` when the body has no `versions` object.
    """
    versions = data.get("versions")
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    if not isinstance(versions, Mapping):
        raise RegistryResponseInvalid(
            "npm", "npm body has no versions", reason="invalid_shape", source=INDEX_SOURCE
        )
    out: dict[str, VersionAttestations] = {}
    for version, manifest in versions.items():
        if not isinstance(version, str) or not isinstance(manifest, Mapping):
            continue
        raw_dist = manifest.get("dist")
        dist: Mapping[str, Any] = raw_dist if isinstance(raw_dist, Mapping) else {}
        att = dist.get("attestations")
        signatures = dist.get("signatures")
        urls: tuple[str, ...] = ()
        types: tuple[str, ...] = ()
        if isinstance(att, Mapping):
            if isinstance(att.get("url"), str):
                urls = (att["url"],)
            prov = att.get("provenance")
            if isinstance(prov, Mapping) and isinstance(prov.get("predicateType"), str):
                types = (prov["predicateType"],)
        out[version] = VersionAttestations(
            version=version,
            attested=isinstance(att, Mapping),
            urls=urls,
            predicate_types=types,
            registry_signed=isinstance(signatures, list) and bool(signatures),
        )
    return ProvenanceIndex(package=str(name), versions=out, source=INDEX_SOURCE)


def parse_npm_attestations(data: Mapping[str, Any]) -> list[SigstoreFacts]:
    """
    Facts of each bundle of an attestations answer, the SLSA provenance first (npm's own publish
    attestation, signed by the registry's key, names no builder). Raises `RegistryResponseInvalid`
    when `attestations` is not a list.
    """
    items = data.get("attestations")
    if not isinstance(items, list):
        raise RegistryResponseInvalid(
            "npm",
            "npm attestations body has no attestations list",
            reason="invalid_shape",
            source=ATTESTATION_SOURCE,
        )
    facts = [
        npm_bundle_facts(item["bundle"])
        for item in items
        if isinstance(item, Mapping) and isinstance(item.get("bundle"), Mapping)
    ]
    facts.sort(key=lambda f: not (f.predicate_type or "").startswith(SLSA_PREFIX))
    return facts
