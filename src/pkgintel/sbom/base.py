"""
SBOM input values: what a bill of materials says, independent of its output format.

`SbomDocument` is the one value both writers (`cyclonedx.py`, `spdx.py`) take. It holds components keyed
by `LockedPackage.key` (the purl when there is one, else `name@version` / `name`), dependency edges
between those keys, and the vulnerabilities known to affect some of them. `document_from_lockfile`
builds one from a parsed lockfile.

Everything here is pure: no clock (the caller passes `created`), no I/O. The document's identity
(`document_uuid`) is derived from its content, so the same inputs always give byte-identical output.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

SEVERITIES: Final[frozenset[str]] = frozenset({"critical", "high", "medium", "low", "none"})
"""The qualitative severities `SbomVulnerability.severity` accepts (CVSS v3/v4 rating scale names)."""

DEFAULT_TOOL_NAME: Final = "pkgintel"

_SBOM_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://pkgintel.dev/sbom")
_NO_LICENSES: Final[Mapping[str, str | None]] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class SbomComponent:
    """
    One package of the bill of materials.

    - `key`: the identity used by `SbomDocument.edges` and `SbomVulnerability.affects`; unique within
      a document (the writers derive their references from it).
    - `license`: an SPDX license expression as stated by the registry, or None when unknown. The writers
      do not trust it blindly: a string that is not a valid SPDX expression is carried as free text
      (CycloneDX) or reported as NOASSERTION with the text in a comment (SPDX).
    - `direct` / `dev`: as the lockfile states them; None when it does not say.
    - `resolved` / `unresolved_reason`: False plus a reason for entries that are not one exact registry
      version (git, path, range...). They stay in the SBOM, without a purl.
    """

    key: str
    ecosystem: Ecosystem
    name: str
    version: str | None
    purl: str | None = None
    license: str | None = None
    direct: bool | None = None
    dev: bool | None = None
    resolved: bool = True
    unresolved_reason: str | None = None


@dataclass(frozen=True, slots=True)
class SbomVulnerability:
    """
    One advisory and the components it affects.

    - `id`: the advisory id (`GHSA-...`, `CVE-...`, `PYSEC-...`); `aliases` its other ids.
    - `severity`: one of `SEVERITIES`, or None when unknown (never guessed from nothing).
    - `cvss_score` / `cvss_vector`: the base score (0-10) and the vector string as published
      (`CVSS:3.1/AV:N/...`, `CVSS:4.0/...`); the scoring method is read from the vector's prefix.
    - `fixed_in`: versions that fix it, in the order the advisory gives them (may be empty).
    - `affects`: `SbomComponent.key`s of the affected components.

    Raises `ValueError` for an unknown severity or a score outside 0-10.
    """

    id: str
    aliases: tuple[str, ...] = ()
    summary: str = ""
    severity: str | None = None
    cvss_score: float | None = None
    cvss_vector: str | None = None
    url: str | None = None
    fixed_in: tuple[str, ...] = ()
    published: datetime | None = None
    modified: datetime | None = None
    affects: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.id:
            raise ValueError("a vulnerability needs an id")
        if self.severity is not None and self.severity not in SEVERITIES:
            raise ValueError(
                f"{self.id}: severity {self.severity!r} is not one of {sorted(SEVERITIES)}"
            )
        if self.cvss_score is not None and not 0.0 <= self.cvss_score <= 10.0:
            raise ValueError(f"{self.id}: CVSS score {self.cvss_score} is outside 0-10")


@dataclass(frozen=True, slots=True)
class SbomDocument:
    """
    A bill of materials: components, the dependency graph between them, and known vulnerabilities.

    - `edges`: (parent key, child key) pairs; both keys must be components of this document.
    - `created`: when the document was made; must be timezone-aware (it is written in UTC).
    - `tool_name` / `tool_version`: the generator named in the output's metadata.

    Raises `ValueError` when component keys repeat, when an edge or a vulnerability names a key that
    is not a component, when vulnerability ids repeat, or when `created` is naive.
    """

    name: str
    components: tuple[SbomComponent, ...]
    edges: tuple[tuple[str, str], ...]
    vulnerabilities: tuple[SbomVulnerability, ...]
    created: datetime
    tool_name: str
    tool_version: str

    def __post_init__(self) -> None:
        if self.created.tzinfo is None or self.created.utcoffset() is None:
            raise ValueError("SbomDocument.created must be timezone-aware")
        keys: set[str] = set()
        for component in self.components:
            if component.key in keys:
                raise ValueError(f"component key {component.key!r} appears more than once")
            keys.add(component.key)
        for parent, child in self.edges:
            for key in (parent, child):
                if key not in keys:
                    raise ValueError(
                        f"edge {parent!r} -> {child!r} names unknown component {key!r}"
                    )
        ids: set[str] = set()
        for vuln in self.vulnerabilities:
            if vuln.id in ids:
                raise ValueError(f"vulnerability {vuln.id!r} appears more than once")
            ids.add(vuln.id)
            unknown = [key for key in vuln.affects if key not in keys]
            if unknown:
                raise ValueError(f"vulnerability {vuln.id} affects unknown components {unknown}")

    @property
    def roots(self) -> tuple[str, ...]:
        """
        Keys of the components the document is about: those marked `direct`, or every component
        when none is (the lockfile does not record directness). Empty only for an empty document.
        """
        direct = tuple(c.key for c in self.components if c.direct)
        return direct or tuple(c.key for c in self.components)


def document_uuid(doc: SbomDocument) -> uuid.UUID:
    """
    A UUID (version 5) derived from everything the writers put into their output: the same document
    always gets the same UUID, and two documents that differ in any written fact get different ones.
    """
    payload = {
        "name": doc.name,
        "created": doc.created,
        "tool": [doc.tool_name, doc.tool_version],
        # keys and vulnerability ids are unique, so ordering by them alone is total
        "components": sorted((asdict(c) for c in doc.components), key=lambda c: str(c["key"])),
        "edges": sorted(doc.edges),
        "vulnerabilities": sorted(
            (asdict(v) for v in doc.vulnerabilities), key=lambda v: str(v["id"])
        ),
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=_json_default)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return uuid.uuid5(_SBOM_NAMESPACE, digest)


def document_from_lockfile(
    parsed: ParsedLockfile,
    *,
    name: str,
    created: datetime,
    tool_version: str,
    tool_name: str = DEFAULT_TOOL_NAME,
    licenses: Mapping[str, str | None] = _NO_LICENSES,
    vulnerabilities: Iterable[SbomVulnerability] = (),
) -> SbomDocument:
    """
    The SBOM of a parsed lockfile: one component per distinct `LockedPackage.key`, the lockfile's
    edges as the dependency graph, `licenses` looked up by key.

    A lockfile may list the same key more than once (npm installs one version at several
    `node_modules` paths); those entries are one component, because a key is one package version.
    Their flags are merged: `direct` is True when any entry is direct (else False when any says
    False, else None); `dev` is False when any entry is needed at run time, True when every entry is
    dev-only, else None. Raises `ValueError` as `SbomDocument` does (e.g. a vulnerability affecting
    a key that is not in the lockfile).
    """
    groups: dict[str, list[LockedPackage]] = {}
    for package in parsed.packages:
        groups.setdefault(package.key, []).append(package)
    components = tuple(
        _component(key, entries, licenses.get(key)) for key, entries in groups.items()
    )
    return SbomDocument(
        name=name,
        components=components,
        edges=tuple(dict.fromkeys(parsed.edges)),
        vulnerabilities=tuple(vulnerabilities),
        created=created,
        tool_name=tool_name,
        tool_version=tool_version,
    )


def _component(key: str, entries: list[LockedPackage], license_: str | None) -> SbomComponent:
    first = entries[0]
    directs = [e.direct for e in entries]
    devs = [e.dev for e in entries]
    direct = True if True in directs else (False if False in directs else None)
    dev = False if False in devs else (True if all(d is True for d in devs) else None)
    return SbomComponent(
        key=key,
        ecosystem=first.ecosystem,
        name=first.name,
        version=first.version,
        purl=first.purl,
        license=license_,
        direct=direct,
        dev=dev,
        resolved=first.resolved,
        unresolved_reason=first.unresolved_reason,
    )


def _json_default(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")
