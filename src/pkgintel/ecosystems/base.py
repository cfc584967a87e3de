"""The `RegistryAdapter` Protocol every ecosystem adapter implements."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol

from pkgintel.domain.packages import Ecosystem, PackageInfo


class RegistryAdapter(Protocol):
    """
    Reads package metadata from one public registry.

    Implementations keep I/O (`fetch_*`) apart from parsing (pure `parse_*` functions over the
    registry's own JSON), never retry forever, and never return invented values.
    """

    ecosystem: ClassVar[Ecosystem]
    registry_source: ClassVar[str]
    """Name of the metadata source as shown in `_meta.sources` (e.g. `registry.npmjs.org`)."""
    downloads_source: ClassVar[str | None]
    """Name of the downloads source, or None when the ecosystem has none."""

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """
        Return metadata for `name`; dependencies are those of `version` (latest when None).

        Raises `PackageNotFound` when the registry has no such package, `VersionNotFound` when
        `version` is given and the package has no such release, `RegistryUnavailable` on timeouts,
        connection errors, 429 and 5xx, and `RegistryResponseInvalid` on a body that is not the
        expected JSON shape.
        """
        ...

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """
        Downloads over the last 7 days, or None when the ecosystem exposes no such figure.

        Raises `RegistryUnavailable` / `RegistryResponseInvalid` like `fetch_package`; a package the
        downloads source does not know gives None.
        """
        ...


AdapterFactory = Callable[..., RegistryAdapter]
"""`factory(client, base_url=..., downloads_url=...)` builds an adapter on a shared client."""
