"""
Curated knowledge files (`curated/*.yaml`, shipped in the package): alternatives, migration paths and
breaking changes, each entry with a source URL. Parsed and validated here (pure); the services
answer from the database, which `services.knowledge.shipped` fills from these files at start when the shipped
revision changed (and `pkgintel ingest knowledge` on demand).

A file that breaks the rules raises `CuratedDataError` naming the entry, so a bad entry is never
served: a missing field, a source that is not an https URL, an unknown ecosystem, a package name the
ecosystem's rules refuse, a replacement that is the package itself, and a second entry for the same
package (alternatives), the same pair (migrations) or the same version (breaking changes).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem

_DATA_PACKAGE = "pkgintel.knowledge"
_FOLDER = "curated"


class CuratedDataError(ValueError):
    """A curated file or entry is malformed."""


@dataclass(frozen=True, slots=True)
class AlternativeChoice:
    name: str
    why: str
    source: str
    builtin: bool = False
    """Part of the language, its standard library or the framework itself (`unittest.mock`,
    `std::sync::LazyLock`, `embed`): nothing to install, never looked up on the registry."""


@dataclass(frozen=True, slots=True)
class CuratedAlternatives:
    ecosystem: Ecosystem
    package: str
    reason: str
    source: str
    alternatives: tuple[AlternativeChoice, ...]
    deprecated: bool = False
    """The maintainers deprecated the package (`reason` and `source` say so): the report treats it
    as deprecated when the registry does not (a mirror may strip the notice)."""


@dataclass(frozen=True, slots=True)
class CuratedMigration:
    ecosystem: Ecosystem
    from_package: str
    to_package: str
    rationale: str
    estimated_minutes: int
    steps: tuple[str, ...]
    before: str
    after: str
    differences: tuple[str, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CuratedBreaking:
    ecosystem: Ecosystem
    package: str
    version: str
    source: str
    changes: tuple[tuple[str, str | None], ...]
    """(text, migration hint)."""


@dataclass(frozen=True, slots=True)
class CuratedKnowledge:
    alternatives: tuple[CuratedAlternatives, ...]
    migrations: tuple[CuratedMigration, ...]
    breaking: tuple[CuratedBreaking, ...]

    def alternatives_for(self, ecosystem: Ecosystem, name: str) -> CuratedAlternatives | None:
        key = normalise_name(ecosystem, name)
        for entry in self.alternatives:
            if entry.ecosystem is ecosystem and normalise_name(ecosystem, entry.package) == key:
                return entry
        return None

    def migration(self, ecosystem: Ecosystem, src: str, dst: str) -> CuratedMigration | None:
        a, b = normalise_name(ecosystem, src), normalise_name(ecosystem, dst)
        for m in self.migrations:
            if (
                m.ecosystem is ecosystem
                and normalise_name(ecosystem, m.from_package) == a
                and normalise_name(ecosystem, m.to_package) == b
            ):
                return m
        return None


def _url(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.startswith("https://") or " " in value:
        raise CuratedDataError(f"{where}: source must be an https URL, got {value!r}")
    return value


def _package(ecosystem: Ecosystem, entry: dict[str, Any], field: str, where: str) -> str:
    """A package name the ecosystem's rules accept (as written; compared by its normalised key)."""
    name = _text(entry, field, where)
    try:
        validate_name(ecosystem, name)
    except InvalidInput as exc:
        raise CuratedDataError(
            f"{where}: {field} {name!r} is not a {ecosystem.value} name"
        ) from exc
    return name


def _flag(entry: dict[str, Any], field: str, where: str) -> bool:
    value = entry.get(field, False)
    if not isinstance(value, bool):
        raise CuratedDataError(f"{where}: {field} must be true or false")
    return value


def _choice(
    ecosystem: Ecosystem, own: str, c: dict[str, Any], default_source: Any, where: str
) -> AlternativeChoice:
    builtin = _flag(c, "builtin", where)
    name = _text(c, "name", where) if builtin else _package(ecosystem, c, "name", where)
    if normalise_name(ecosystem, name) == own:
        raise CuratedDataError(f"{where}: the replacement {name!r} is the package itself")
    return AlternativeChoice(
        name, _text(c, "why", where), _url(c.get("source", default_source), where), builtin
    )


def _text(entry: dict[str, Any], field: str, where: str) -> str:
    value = entry.get(field)
    if not isinstance(value, str) or not value.strip():
        raise CuratedDataError(f"{where}: field {field!r} is required text")
    return value.strip()


def _eco(entry: dict[str, Any], where: str) -> Ecosystem:
    try:
        return Ecosystem(str(entry.get("ecosystem")))
    except ValueError as exc:
        raise CuratedDataError(f"{where}: unknown ecosystem {entry.get('ecosystem')!r}") from exc


def _list(entry: dict[str, Any], field: str, where: str) -> list[Any]:
    value = entry.get(field, [])
    if not isinstance(value, list):
        raise CuratedDataError(f"{where}: {field!r} must be a list")
    return value


def _texts(entry: dict[str, Any], field: str, where: str) -> tuple[str, ...]:
    """A list of text items; anything else (a YAML `key: value` read as a mapping) is refused."""
    items = _list(entry, field, where)
    for j, item in enumerate(items):
        if not isinstance(item, str) or not item.strip():
            raise CuratedDataError(
                f"{where}.{field}[{j}]: must be text (quote an item containing ': '), got {item!r}"
            )
    return tuple(items)


def parse_alternatives(data: Any) -> tuple[CuratedAlternatives, ...]:
    out = []
    seen: set[tuple[Ecosystem, str]] = set()
    for i, e in enumerate(data or []):
        where = f"alternatives[{i}]"
        eco = _eco(e, where)
        package = _package(eco, e, "package", where)
        own = normalise_name(eco, package)
        if (eco, own) in seen:
            raise CuratedDataError(f"{where}: a second entry for {eco.value} {package!r}")
        seen.add((eco, own))
        choices = tuple(
            _choice(eco, own, c, e.get("source"), f"{where}.alternatives[{j}]")
            for j, c in enumerate(_list(e, "alternatives", where))
        )
        if not choices:
            raise CuratedDataError(f"{where}: at least one alternative is required")
        if len({normalise_name(eco, c.name) for c in choices}) != len(choices):
            raise CuratedDataError(f"{where}: an alternative is listed twice")
        out.append(
            CuratedAlternatives(
                eco,
                package,
                _text(e, "reason", where),
                _url(e.get("source"), where),
                choices,
                _flag(e, "deprecated", where),
            )
        )
    return tuple(out)


def parse_migrations(data: Any) -> tuple[CuratedMigration, ...]:
    out = []
    seen: set[tuple[Ecosystem, str, str]] = set()
    for i, e in enumerate(data or []):
        where = f"migrations[{i}]"
        eco = _eco(e, where)
        src, dst = _package(eco, e, "from", where), _text(e, "to", where)
        pair = (eco, normalise_name(eco, src), normalise_name(eco, dst))
        if pair[1] == pair[2]:
            raise CuratedDataError(f"{where}: from and to are the same package")
        if pair in seen:
            raise CuratedDataError(f"{where}: a second path from {src!r} to {dst!r}")
        seen.add(pair)
        minutes = e.get("estimated_minutes")
        if not isinstance(minutes, int) or minutes <= 0:
            raise CuratedDataError(f"{where}: estimated_minutes must be a positive integer")
        sources = tuple(_url(s, where) for s in _list(e, "sources", where))
        if not sources:
            raise CuratedDataError(f"{where}: at least one source is required")
        out.append(
            CuratedMigration(
                eco,
                src,
                dst,
                _text(e, "rationale", where),
                minutes,
                _texts(e, "steps", where),
                _text(e, "before", where),
                _text(e, "after", where),
                _texts(e, "differences", where),
                sources,
            )
        )
    return tuple(out)


def parse_breaking(data: Any) -> tuple[CuratedBreaking, ...]:
    out = []
    seen: set[tuple[Ecosystem, str, str]] = set()
    for i, e in enumerate(data or []):
        where = f"breaking[{i}]"
        version = e.get("version")
        if not isinstance(version, str) or not version:
            raise CuratedDataError(f"{where}: version must be a quoted string")
        eco = _eco(e, where)
        package = _package(eco, e, "package", where)
        key = (eco, normalise_name(eco, package), version)
        if key in seen:
            raise CuratedDataError(f"{where}: a second entry for {package!r} {version}")
        seen.add(key)
        changes = tuple(
            (_text(c, "text", f"{where}.changes[{j}]"), c.get("hint"))
            for j, c in enumerate(_list(e, "changes", where))
        )
        if not changes:
            raise CuratedDataError(f"{where}: at least one change is required")
        out.append(
            CuratedBreaking(
                eco,
                package,
                version,
                _url(e.get("source"), where),
                changes,
            )
        )
    return tuple(out)


def _read(name: str) -> Any:
    text = resources.files(_DATA_PACKAGE).joinpath(_FOLDER, name).read_text(encoding="utf-8")
    return yaml.safe_load(text)


@functools.cache
def load_curated() -> CuratedKnowledge:
    """The shipped curated files, parsed once per process."""
    return CuratedKnowledge(
        parse_alternatives(_read("alternatives.yaml")),
        parse_migrations(_read("migrations.yaml")),
        parse_breaking(_read("breaking.yaml")),
    )
