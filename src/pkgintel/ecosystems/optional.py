"""
Optional adapter capabilities, checked at run time with `isinstance` (the base `RegistryAdapter`
Protocol stays as it is). An adapter that has a capability just defines the method.

- `SearchableRegistry.search(query, limit)`: the registry's own search API (npm `/-/v1/search`,
  crates.io, RubyGems, Packagist, pub, hex, NuGet, ...). Ecosystems without one are searched in our
  name index only.
- `SuccessorAware.successors(info)`: successor names the registry states in structured form
  (NuGet `alternatePackage`, Composer `abandoned: "vendor/pkg"`, Pub `replacedBy`, Homebrew
  `deprecation_replacement`, Maven relocation). Free-text npm deprecation messages are read by
  `domain/knowledge/successors.py` for every ecosystem.
- `PublisherHistorySource.fetch_publishers(name)`: who published each release (npm `_npmUser` and
  per-version `maintainers`, crates.io `published_by`), for `/api/maintainers`. Registries without
  per-release publisher data simply lack it; the answer then says so.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from pkgintel.domain.packages import PackageInfo
from pkgintel.domain.search import SearchHit
from pkgintel.domain.signals.maintainers import PublisherHistory


@runtime_checkable
class SearchableRegistry(Protocol):
    search_source: ClassVar[str]
    """Name of the search source as shown in `_meta.sources` (e.g. `registry.npmjs.org/-/v1/search`)."""

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """
        Up to `limit` packages matching `query`, best first, as the registry ranks them. Raises
        `RegistryUnavailable` / `RegistryResponseInvalid` like `fetch_package`.
        """
        ...


@runtime_checkable
class SuccessorAware(Protocol):
    def successors(self, info: PackageInfo) -> tuple[str, ...]:
        """Names the registry itself gives as the replacement of `info` (empty when none)."""
        ...


@runtime_checkable
class PublisherHistorySource(Protocol):
    publishers_source: ClassVar[str]
    """Name of the source as shown in `_meta.sources`."""

    async def fetch_publishers(self, name: str) -> PublisherHistory:
        """
        Per-release publisher facts of `name`. Raises `PackageNotFound`, `RegistryUnavailable` and
        `RegistryResponseInvalid` like `fetch_package`.
        """
        ...
