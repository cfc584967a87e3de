"""
The `ProvenanceSource` Protocol: where one ecosystem's release attestations are listed and served.

Contract:
- `fetch_index(name)` makes ONE request and says, for every version the registry lists, whether it
  carries attestations and where they are (`ProvenanceIndex`); None when the index has no such
  package (404). Raises `RegistryUnavailable` / `RegistryResponseInvalid` like the adapters.
- `fetch_facts(name, entry)` fetches the attestations of one version (one request: the first
  attested file) and returns the facts of each Sigstore bundle in it; `[]` when the registry lists
  attestations it then does not serve (404). Raises like `fetch_index`.
- Base URLs are settings; the absolute URLs registries put in their indexes are re-rooted on them,
  so mirrors and tests work.
"""

from __future__ import annotations

from typing import ClassVar, Protocol
from urllib.parse import urlsplit

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.attestations import ProvenanceIndex, SigstoreFacts, VersionAttestations


class ProvenanceSource(Protocol):
    """One ecosystem's attestation index and attestation bodies (see the module docstring)."""

    ecosystem: ClassVar[Ecosystem]
    index_source: ClassVar[str]
    attestation_source: ClassVar[str]
    kind: ClassVar[str]
    """What the attestations are, in a few words (`npm provenance (SLSA) ...`)."""

    async def fetch_index(self, name: str) -> ProvenanceIndex | None: ...

    async def fetch_facts(self, name: str, entry: VersionAttestations) -> list[SigstoreFacts]: ...


def reroot(url: str, base_url: str) -> str:
    """`url`'s path and query on `base_url` (the registry's absolute link, on our configured host)."""
    parts = urlsplit(url)
    tail = parts.path + (f"?{parts.query}" if parts.query else "")
    base = urlsplit(base_url)
    prefix = base.path.rstrip("/")
    if prefix and tail.startswith(prefix + "/"):
        tail = tail[len(prefix) :]
    return f"{base_url.rstrip('/')}{tail}"
