"""
Registries where every asked version exists and declares nothing (no dependencies, no peers, no
`requires_python`, no `engines`): the situation of a curated breakage by definition, since the
packages' metadata does not prevent the pair. Used by the compatibility tests and
`bench/bench_compat_matrix.py` to run stacks through `CompatService` offline, so whatever conflict
comes back is the curated matrix's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

from pkgintel.domain.knowledge.compat import (
    BreakageIndex,
    PublishedConstraints,
    VersionConstraints,
)
from pkgintel.domain.packages import Ecosystem, PackageInfo, Release
from pkgintel.knowledge.breakages import load_breakage_index
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.compatibility import CompatService


class _EveryVersion(Mapping[str, VersionConstraints]):
    """Every version is published and declares nothing."""

    def __getitem__(self, version: str) -> VersionConstraints:
        return VersionConstraints(version=version)

    def __contains__(self, version: object) -> bool:
        return isinstance(version, str)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class NpmDeclaresNothing:
    """An npm constraint source whose packuments declare nothing for any version."""

    registry_source = "registry.npmjs.org"

    async def fetch_constraints(self, name: str) -> PublishedConstraints:
        return PublishedConstraints(name, (), _EveryVersion(), self.registry_source)


@dataclass
class _Snap:
    info: PackageInfo
    cache_status: str = "miss"


class PypiDeclaresNothing:
    """PyPI snapshots whose asked version is published with no requirements of its own."""

    async def get_snapshot(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> _Snap:
        v = version or "1.0.0"
        return _Snap(
            PackageInfo(
                ecosystem=Ecosystem.PYPI,
                name=name,
                latest_version=v,
                releases=(Release(v),),
                dependencies_version=v,
            )
        )


def undeclared_compat(breakages: BreakageIndex | None = None) -> CompatService:
    """`CompatService` over the registries above and the shipped matrix (or `breakages`)."""
    index = breakages if breakages is not None else load_breakage_index()
    return CompatService(PypiDeclaresNothing(), NpmDeclaresNothing(), breakages=lambda: index)


def undeclared_runtime(compat: CompatService | None = None) -> Runtime:
    """The two fields `application.compat.compat_answer` reads from a `Runtime`."""
    fake: Any = SimpleNamespace(compat=compat or undeclared_compat(), public_url="http://test")
    return cast(Runtime, fake)
