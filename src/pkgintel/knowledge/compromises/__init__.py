"""
Curated knowledge base of past package compromises (`incidents.yaml` beside this file): which
releases of which packages carried malicious or sabotaging code, with the incident's kind, date,
summary (our words) and source links. Read lazily and validated here (pure); a malformed entry
raises `CompromiseDataError` naming it, so a bad entry is never served.

`compromises_for(ecosystem, name, version)` answers the report's `historical_compromise` and bulk's
`historical_incident`. Every affected version must parse in its ecosystem's own version semantics
(`domain.versions`), and a version asked is the same release as an affected one when the ecosystem
says so (`equality_key`: PEP 440 `2.0` = `2.0.0`, npm `v1.2.3` = `1.2.3`), never by a range: a
release outside the listed ones is never called compromised. Lookups go through an index by
(ecosystem, normalised name) built once.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import yaml

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions.equality import equality_key

_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader where installed (the file is ~175 kB: about 0.15 s instead of 1.8 s with the pure-Python loader)."""

KINDS: Final = frozenset(
    {
        "account_takeover",
        "malicious_handover",
        "maintainer_sabotage",
        "dependency_confusion",
        "release_pipeline",
        "upstream_backdoor",
        "malicious_package",
    }
)


class CompromiseDataError(ValueError):
    """The knowledge file or one of its entries is malformed."""


@dataclass(frozen=True, slots=True)
class AffectedPackage:
    ecosystem: Ecosystem
    package: str
    versions: tuple[str, ...]
    all_versions: bool
    remediation: str
    keys: frozenset[tuple[Any, ...]] = frozenset()
    """`equality_key` of each of `versions` (filled by the parser)."""

    def affects(self, version: str | None) -> bool | None:
        """True when `version` is the same release as one of `versions` (or every release is
        affected); False for any other release; None when no version is given."""
        if self.all_versions:
            return True
        if version is None or not version.strip():
            return None
        v = version.strip()
        return v in self.versions or equality_key(self.ecosystem, v) in self.keys


@dataclass(frozen=True, slots=True)
class Incident:
    id: str
    title: str
    kind: str
    disclosed: dt.date
    summary: str
    sources: tuple[str, ...]
    packages: tuple[AffectedPackage, ...]


@dataclass(frozen=True, slots=True)
class CompromiseMatch:
    """One incident naming one package, judged for one version."""

    incident: Incident
    affected: AffectedPackage
    version: str | None
    version_affected: bool | None
    """True: the version asked (or every version) was compromised; False: it is outside the
    incident's releases; None: no version to judge."""


def _text(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CompromiseDataError(f"{where}: `{key}` must be a non-empty string")
    return value.strip()


def _url(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.startswith("https://") or " " in value:
        raise CompromiseDataError(f"{where}: source {value!r} is not an https URL")
    return value


def _version_keys(eco: Ecosystem, versions: list[str], where: str) -> frozenset[tuple[Any, ...]]:
    """The equality keys of `versions`; raises when one does not parse in `eco`'s semantics."""
    keys: set[tuple[Any, ...]] = set()
    for v in versions:
        key = equality_key(eco, v)
        if not v.strip() or key[0] != 1:
            raise CompromiseDataError(
                f"{where}: version {v!r} does not parse as a {eco.value} version"
            )
        keys.add(key)
    return frozenset(keys)


def parse_incidents(data: Any) -> tuple[Incident, ...]:
    """Validate the YAML document (a list of incidents). Raises `CompromiseDataError`."""
    if not isinstance(data, list):
        raise CompromiseDataError("the compromises file must be a list of incidents")
    out: list[Incident] = []
    seen: set[str] = set()
    for i, entry in enumerate(data):
        where = f"incident #{i + 1}"
        if not isinstance(entry, dict):
            raise CompromiseDataError(f"{where}: not a mapping")
        ident = _text(entry, "id", where)
        where = f"incident {ident}"
        if ident in seen:
            raise CompromiseDataError(f"{where}: duplicate id")
        seen.add(ident)
        kind = _text(entry, "kind", where)
        if kind not in KINDS:
            raise CompromiseDataError(f"{where}: unknown kind {kind!r}")
        disclosed = entry.get("disclosed")
        if not isinstance(disclosed, dt.date):
            raise CompromiseDataError(f"{where}: `disclosed` must be a date (YYYY-MM-DD)")
        sources = entry.get("sources")
        if not isinstance(sources, list) or not sources:
            raise CompromiseDataError(f"{where}: at least one source is required")
        packages = entry.get("packages")
        if not isinstance(packages, list) or not packages:
            raise CompromiseDataError(f"{where}: at least one package is required")
        affected: list[AffectedPackage] = []
        for p in packages:
            if not isinstance(p, dict):
                raise CompromiseDataError(f"{where}: a package entry is not a mapping")
            try:
                eco = Ecosystem(_text(p, "ecosystem", where))
            except ValueError as exc:
                raise CompromiseDataError(
                    f"{where}: unknown ecosystem {p.get('ecosystem')!r}"
                ) from exc
            versions = p.get("versions", [])
            all_versions = p.get("all_versions", False) is True
            if not isinstance(versions, list) or not all(isinstance(v, str) for v in versions):
                raise CompromiseDataError(f"{where}: `versions` must be a list of strings")
            if not versions and not all_versions:
                raise CompromiseDataError(f"{where}: name versions or set all_versions")
            if versions and all_versions:
                raise CompromiseDataError(f"{where}: name versions or set all_versions, not both")
            affected.append(
                AffectedPackage(
                    ecosystem=eco,
                    package=_text(p, "package", where),
                    versions=tuple(versions),
                    all_versions=all_versions,
                    remediation=_text(p, "remediation", where),
                    keys=_version_keys(eco, versions, where),
                )
            )
        out.append(
            Incident(
                id=ident,
                title=_text(entry, "title", where),
                kind=kind,
                disclosed=disclosed,
                summary=_text(entry, "summary", where),
                sources=tuple(_url(s, where) for s in sources),
                packages=tuple(affected),
            )
        )
    return tuple(out)


@functools.cache
def load_incidents() -> tuple[Incident, ...]:
    """The shipped knowledge base (read once)."""
    text = (
        resources.files("pkgintel.knowledge.compromises")
        .joinpath("incidents.yaml")
        .read_text(encoding="utf-8")
    )
    return parse_incidents(yaml.load(text, Loader=_YAML_LOADER))  # noqa: S506 - a safe loader


@functools.cache
def _index() -> dict[tuple[Ecosystem, str], tuple[tuple[Incident, AffectedPackage], ...]]:
    index: dict[tuple[Ecosystem, str], list[tuple[Incident, AffectedPackage]]] = {}
    for incident in load_incidents():
        for p in incident.packages:
            key = (p.ecosystem, normalise_name(p.ecosystem, p.package))
            index.setdefault(key, []).append((incident, p))
    return {k: tuple(v) for k, v in index.items()}


def warm() -> int:
    """Read and index the knowledge base now (~0.15 s with libyaml) rather than in the first request
    that needs it; returns how many packages it names."""
    return len(_index())


def compromises_for(
    ecosystem: Ecosystem, name: str, version: str | None = None
) -> tuple[CompromiseMatch, ...]:
    """Incidents naming `name` in `ecosystem`, newest first, each judged for `version`."""
    found = _index().get((ecosystem, normalise_name(ecosystem, name)), ())
    matches = [CompromiseMatch(incident, p, version, p.affects(version)) for incident, p in found]
    matches.sort(key=lambda m: m.incident.disclosed, reverse=True)
    return tuple(matches)
