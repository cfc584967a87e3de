"""
`BreakingService`: breaking changes per version from harvested release notes (GitHub releases and
changelog files, see `domain/knowledge/release_notes.py`) with curated entries on top, and a version
transition: every breaking change after `from_version` up to and including `to_version`, oldest
first, each with its source URL and a migration hint.

Database only; a package whose notes were never harvested answers `status: "not_harvested"` and an
empty list (never "no breaking changes").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.knowledge.release_notes import (
    ORIGIN_CURATED,
    BreakingChange,
    ReleaseSection,
    mark_major_bumps,
)
from pkgintel.domain.knowledge.values import HarvestState
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_valid, sort_key, validate_version
from pkgintel.storage.base import KnowledgeStore

_ORIGIN_RANK = {ORIGIN_CURATED: 0, "github-release": 1, "changelog": 2}


@dataclass(frozen=True, slots=True)
class VersionBreaking:
    """The breaking changes of one version, from every origin."""

    version: str
    published_at: datetime | None
    changes: tuple[BreakingChange, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BreakingAnswer:
    ecosystem: Ecosystem
    package: str
    from_version: str | None
    to_version: str | None
    status: str
    """`ok`, `not_harvested`, `no_repository`, `failed` (curated entries are served in every case)."""
    versions: tuple[VersionBreaking, ...]
    """Oldest first; only versions with at least one breaking change."""
    sections_read: int
    harvest: HarvestState | None


def _ordered(ecosystem: Ecosystem, versions: list[str]) -> list[str]:
    valid = [v for v in versions if is_valid(ecosystem, v)]
    invalid = [v for v in versions if not is_valid(ecosystem, v)]
    return sorted(valid, key=lambda v: sort_key(ecosystem, v)) + sorted(invalid)


def _bound(ecosystem: Ecosystem, field: str, version: str | None) -> str | None:
    """A transition bound: a version of the ecosystem's scheme, else `InvalidInput` on `field`."""
    if version is None:
        return None
    try:
        cleaned = validate_version(ecosystem, version)
    except InvalidInput as exc:
        raise InvalidInput(field, exc.message) from exc
    if not is_valid(ecosystem, cleaned):
        raise InvalidInput(field, f"{cleaned!r} is not a {ecosystem.value} version")
    return cleaned


def _dedupe(changes: list[BreakingChange]) -> tuple[BreakingChange, ...]:
    seen: set[str] = set()
    out = []
    for c in sorted(changes, key=lambda c: _ORIGIN_RANK.get(c.origin, 9)):
        key = " ".join(c.text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
    return tuple(out)


class BreakingService:
    """See the module docstring."""

    def __init__(self, store: KnowledgeStore) -> None:
        self._store = store

    async def _curated(self, ecosystem: Ecosystem | None, key: str | None) -> list[ReleaseSection]:
        rows = await self._store.curated("breaking", ecosystem, key)
        out = []
        for row in rows:
            changes = tuple(
                BreakingChange(
                    row.target,
                    c["text"],
                    "curated",
                    row.source,
                    ORIGIN_CURATED,
                    c.get("hint"),
                    None,
                )
                for c in row.payload["changes"]
            )
            out.append(
                ReleaseSection(
                    row.target,
                    row.payload.get("title") or row.target,
                    row.source,
                    ORIGIN_CURATED,
                    None,
                    tuple(c.text for c in changes),
                    changes,
                )
            )
        return out

    async def breaking(
        self,
        ecosystem: Ecosystem,
        name: str,
        from_version: str | None = None,
        to_version: str | None = None,
    ) -> BreakingAnswer:
        """
        Breaking changes of `name`, optionally only those of the transition from → to (exclusive of
        `from_version`, inclusive of `to_version`). Raises `InvalidInput` for an unparseable version
        or a `to_version` older than `from_version`.
        """
        from_version = _bound(ecosystem, "from_version", from_version)
        to_version = _bound(ecosystem, "to_version", to_version)
        if (
            from_version
            and to_version
            and sort_key(ecosystem, to_version) < sort_key(ecosystem, from_version)
        ):
            raise InvalidInput("to_version", "to_version is older than from_version")
        key = normalise_name(ecosystem, name)
        sections = await self._store.sections(ecosystem, key)
        curated = await self._curated(ecosystem, key)
        states = await self._store.harvest_states(ecosystem, key)
        harvest = states.get("releases")
        by_origin: dict[str, list[ReleaseSection]] = {}
        for sec in sections:
            by_origin.setdefault(sec.origin, []).append(sec)
        merged: dict[str, list[ReleaseSection]] = {}
        for origin_sections in by_origin.values():
            order = _ordered(ecosystem, [s.version for s in origin_sections])
            index = {s.version: s for s in origin_sections}
            for sec in mark_major_bumps(index[v] for v in order):
                merged.setdefault(sec.version, []).append(sec)
        for sec in curated:
            merged.setdefault(sec.version, []).append(sec)
        out: list[VersionBreaking] = []
        for version in _ordered(ecosystem, list(merged)):
            if not self._in_range(ecosystem, version, from_version, to_version):
                continue
            secs = merged[version]
            changes = _dedupe([c for s in secs for c in s.breaking])
            if not changes:
                continue
            published = next((s.published_at for s in secs if s.published_at), None)
            urls = tuple(dict.fromkeys(s.url for s in secs if s.url))
            out.append(VersionBreaking(version, published, changes, urls))
        status = harvest.status if harvest else "not_harvested"
        return BreakingAnswer(
            ecosystem, key, from_version, to_version, status, tuple(out), len(sections), harvest
        )

    @staticmethod
    def _in_range(ecosystem: Ecosystem, version: str, low: str | None, high: str | None) -> bool:
        if low is None and high is None:
            return True
        if not is_valid(ecosystem, version):
            return False
        k = sort_key(ecosystem, version)
        if low is not None and not k > sort_key(ecosystem, low):
            return False
        return not (high is not None and k > sort_key(ecosystem, high))

    async def recent(self, limit: int = 12) -> list[tuple[Ecosystem, str, VersionBreaking]]:
        """Curated breaking changes first, then harvested ones, newest publication first."""
        out: list[tuple[Ecosystem, str, VersionBreaking]] = []
        for row in await self._store.curated("breaking", limit=limit):
            changes = tuple(
                BreakingChange(
                    row.target,
                    c["text"],
                    "curated",
                    row.source,
                    ORIGIN_CURATED,
                    c.get("hint"),
                    None,
                )
                for c in row.payload["changes"]
            )
            out.append(
                (
                    row.ecosystem,
                    row.package,
                    VersionBreaking(row.target, None, changes, (row.source,)),
                )
            )
        if len(out) < limit:
            for eco, pkg, sec in await self._store.recent_breaking_sections(limit - len(out)):
                out.append(
                    (
                        eco,
                        pkg,
                        VersionBreaking(sec.version, sec.published_at, sec.breaking, (sec.url,)),
                    )
                )
        return out[:limit]
