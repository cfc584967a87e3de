"""
Maven adapter: versions from `maven-metadata.xml`, the rest from POMs, publish dates from deps.dev.

Repository layout: https://maven.apache.org/repositories/layout.html — an artifact `group:artifact`
lives under `{group with . → /}/{artifact}/`; `maven-metadata.xml` there lists every version with
`<release>` (newest non-SNAPSHOT) and `<latest>`; each version's POM is
`{version}/{artifact}-{version}.pom`. A POM may inherit from a `<parent>` POM: its licences, SCM,
developers, properties and `dependencyManagement` versions. The chain is read up to
`MAX_PARENTS` levels (each level is one more request, in sequence) and `${...}` placeholders are
resolved from `project.*`, the POMs' `<properties>` and the parents'. BOMs the chain imports
(`<scope>import</scope>`) are read too, at once, for the versions they manage
(`MavenAdapter.imported_boms`). A `<relocation>` in
`distributionManagement` marks the artifact moved: reported as deprecation with the new coordinates.

Names are `group:artifact` (`group/artifact`, the purl spelling, is accepted too). Maven Central
publishes no per-artifact download counts, so popularity is null with `downloads_unavailable`.
deps.dev (`/v3alpha/systems/maven/packages/{group}:{artifact}`,
https://docs.deps.dev/api/v3alpha/) gives `publishedAt` per version; when it fails, dates are null.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final
from urllib.parse import quote
from xml.etree.ElementTree import Element

import httpx
import orjson

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryError,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_datetime
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.trees.maven import (
    MAVEN_BOMS,
    MAVEN_DEPENDENCIES,
    MAVEN_MANAGED,
    MAVEN_MANAGED_SCOPES,
)
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems._xml import child_text, parse_xml
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import get_json, get_text
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://repo.maven.apache.org/maven2"
DEFAULT_DEPSDEV_URL: Final = "https://api.deps.dev"
REGISTRY_SOURCE: Final = "repo.maven.apache.org"
POM_SOURCE: Final = "repo.maven.apache.org POM"
DEPSDEV_SOURCE: Final = "deps.dev"
NO_DOWNLOADS: Final = "Maven Central publishes no per-artifact download counts"
MAX_PARENTS: Final = 5
AVAILABLE_IN_ERRORS: Final = 10
MAX_BOMS: Final = 10
"""BOMs read per POM chain (each with its own parent chain)."""
MAX_BOM_NESTING: Final = 1
"""How many levels of BOMs importing BOMs are followed."""

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.MAVEN
_COORD = re.compile(r"^[A-Za-z0-9_.-]+$")
_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")
_SCOPES: Final = {
    "compile": "runtime",
    "runtime": "runtime",
    "test": "dev",
    "provided": "provided",
    "system": "provided",
    "import": "import",
}

LICENSE_NAMES: Final[dict[str, str]] = {
    "apache license, version 2.0": "Apache-2.0",
    "the apache software license, version 2.0": "Apache-2.0",
    "the apache license, version 2.0": "Apache-2.0",
    "apache 2.0": "Apache-2.0",
    "apache-2.0": "Apache-2.0",
    "apache 2": "Apache-2.0",
    "apache license 2.0": "Apache-2.0",
    "mit": "MIT",
    "mit license": "MIT",
    "the mit license": "MIT",
    "bsd-3-clause": "BSD-3-Clause",
    "the bsd 3-clause license": "BSD-3-Clause",
    "bsd 3-clause license": "BSD-3-Clause",
    "new bsd license": "BSD-3-Clause",
    "bsd-2-clause": "BSD-2-Clause",
    "eclipse public license - v 1.0": "EPL-1.0",
    "eclipse public license 1.0": "EPL-1.0",
    "eclipse public license - v 2.0": "EPL-2.0",
    "eclipse public license v2.0": "EPL-2.0",
    "eclipse public license 2.0": "EPL-2.0",
    "epl 2.0": "EPL-2.0",
    "eclipse distribution license - v 1.0": "BSD-3-Clause",
    "gnu lesser general public license": "LGPL-2.1-or-later",
    "gnu lesser general public license, version 2.1": "LGPL-2.1-only",
    "lgpl 2.1": "LGPL-2.1-only",
    "gnu general public license, version 2 with the classpath exception": "GPL-2.0-only WITH Classpath-exception-2.0",
    "gpl2 w/ cpe": "GPL-2.0-only WITH Classpath-exception-2.0",
    "cddl + gplv2 with classpath exception": "CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0",
    "mozilla public license, version 2.0": "MPL-2.0",
    "mpl 2.0": "MPL-2.0",
    "bouncy castle licence": "MIT",
    "public domain": "LicenseRef-Public-Domain",
}
"""POM `<license><name>` spellings (lower case) → SPDX, for names seen on Maven Central."""

LICENSE_URLS: Final[tuple[tuple[str, str], ...]] = (
    ("apache.org/licenses/license-2.0", "Apache-2.0"),
    ("opensource.org/licenses/mit", "MIT"),
    ("opensource.org/licenses/bsd-3-clause", "BSD-3-Clause"),
    ("opensource.org/licenses/bsd-2-clause", "BSD-2-Clause"),
    ("eclipse.org/legal/epl-2.0", "EPL-2.0"),
    ("eclipse.org/legal/epl-v10", "EPL-1.0"),
    ("eclipse.org/org/documents/edl-v10", "BSD-3-Clause"),
    ("mozilla.org/mpl/2.0", "MPL-2.0"),
    ("gnu.org/licenses/lgpl-2.1", "LGPL-2.1-only"),
)
"""Licence URL fragments (lower case) → SPDX, used when the name is unknown or missing."""


def split_coordinates(name: str) -> tuple[str, str] | None:
    """`(group, artifact)` of `group:artifact` or `group/artifact`, or None when not coordinates."""
    key = normalise_name(_ECOSYSTEM, name)
    group, sep, artifact = key.partition(":")
    if not sep or not _COORD.match(group) or not _COORD.match(artifact) or ":" in artifact:
        return None
    return group, artifact


@dataclass(slots=True)
class Pom:
    """The parts of one POM the adapter reads (pure parse of `parse_pom`)."""

    group: str | None
    artifact: str | None
    version: str | None
    parent: tuple[str, str, str] | None
    name: str | None = None
    description: str | None = None
    url: str | None = None
    scm: str | None = None
    licenses: list[tuple[str | None, str | None]] = field(default_factory=list)
    developers: list[Maintainer] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    dependencies: list[dict[str, str | None]] = field(default_factory=list)
    managed: dict[tuple[str, str], str] = field(default_factory=dict)
    managed_traits: dict[tuple[str, str], dict[str, str | None]] = field(default_factory=dict)
    """dependencyManagement's `scope`, `optional` and `exclusions` per artifact (version or not)."""
    imports: list[tuple[str, str, str]] = field(default_factory=list)
    """BOMs imported into `dependencyManagement` (`<scope>import</scope>`), as written."""
    relocation: tuple[str | None, str | None, str | None, str | None] | None = None
    """`(group, artifact, version, message)` from `distributionManagement/relocation`."""


class MavenAdapter:
    """`RegistryAdapter` for a Maven repository (`base_url`, Central by default) with deps.dev."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.MAVEN
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        depsdev_url: str = DEFAULT_DEPSDEV_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._depsdev_url = depsdev_url.rstrip("/")

    def _dir(self, group: str, artifact: str) -> str:
        return f"{self._base_url}/{group.replace('.', '/')}/{quote(artifact)}"

    def pom_url(self, group: str, artifact: str, version: str) -> str:
        return (
            f"{self._dir(group, artifact)}/{quote(version)}/{quote(artifact)}-{quote(version)}.pom"
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`. Metadata and deps.dev at once, then the POM and
        its parents."""
        coords = split_coordinates(name)
        if coords is None:
            raise PackageNotFound(_ECOSYSTEM, name.strip())
        group, artifact = coords
        display = f"{group}:{artifact}"
        depsdev_task = asyncio.ensure_future(
            optional_source(
                lambda: get_json(
                    self._client,
                    f"{self._depsdev_url}/v3alpha/systems/maven/packages/{quote(display, safe='')}",
                    ecosystem=_ECOSYSTEM,
                    name=display,
                    source=DEPSDEV_SOURCE,
                    not_found="none",
                ),
                source=DEPSDEV_SOURCE,
                kind="publish_dates",
            )
        )
        try:
            text = await get_text(
                self._client,
                f"{self._dir(group, artifact)}/maven-metadata.xml",
                ecosystem=_ECOSYSTEM,
                name=display,
                source=REGISTRY_SOURCE,
            )
            metadata = parse_metadata(text)
        except BaseException:
            abandon(depsdev_task)
            raise
        target = _target(display, metadata, version)
        chain, pom_status = await self._pom_chain(group, artifact, target)
        imported, unread = await self.imported_boms(chain) if chain else ({}, [])
        depsdev, depsdev_status = await depsdev_task
        return build_info(
            display,
            metadata,
            version=target,
            poms=chain,
            depsdev=depsdev,
            sources=(pom_status, depsdev_status),
            imported=imported,
            unread_boms=unread,
        )

    async def imported_boms(
        self, chain: Sequence[Pom], *, level: int = 0
    ) -> tuple[dict[tuple[str, str], str], list[str]]:
        """
        The dependencyManagement versions the chain's imported BOMs (`<scope>import</scope>`)
        contribute, each interpolated in its own BOM's POM chain, the first import of an artifact
        winning; with the BOMs that could not be read (or past `MAX_BOMS`). The BOMs are read at
        once; a BOM's own imports one level further (`MAX_BOM_NESTING`).
        """
        resolve = _Resolver(chain)
        wanted: list[tuple[str, str, str]] = []
        unread: list[str] = []
        for pom in chain:
            for g, a, v in pom.imports:
                coords = (resolve(g) or g, resolve(a) or a, resolve(v) or v)
                if coords in wanted:
                    continue
                if any("${" in c for c in coords) or len(wanted) >= MAX_BOMS:
                    unread.append(":".join(coords))
                    continue
                wanted.append(coords)
        if not wanted:
            return {}, unread
        chains = await asyncio.gather(*(self._pom_chain(*coords) for coords in wanted))
        managed: dict[tuple[str, str], str] = {}
        for coords, (bom_chain, _) in zip(wanted, chains, strict=True):
            if not bom_chain:
                unread.append(":".join(coords))
                continue
            own = _Resolver(bom_chain)
            bom_managed: dict[tuple[str, str], str] = {}
            for pom in reversed(bom_chain):  # parents first, the BOM's own entries override
                for (g, a), version in pom.managed.items():
                    bom_managed[(own(g) or g, own(a) or a)] = own(version) or version
            for key, value in bom_managed.items():
                managed.setdefault(key, value)
            if level < MAX_BOM_NESTING:
                nested, nested_unread = await self.imported_boms(bom_chain, level=level + 1)
                for key, value in nested.items():
                    managed.setdefault(key, value)
                unread.extend(nested_unread)
            elif any(pom.imports for pom in bom_chain):
                unread.extend(":".join(b) for pom in bom_chain for b in pom.imports)
        return managed, unread

    async def _pom_chain(
        self, group: str, artifact: str, version: str
    ) -> tuple[list[Pom], SourceStatus]:
        """The POM of `version` and up to `MAX_PARENTS` parents (stops at the first failure)."""
        chain: list[Pom] = []
        coords: tuple[str, str, str] | None = (group, artifact, version)
        detail: str | None = None
        while coords is not None and len(chain) <= MAX_PARENTS:
            try:
                text = await get_text(
                    self._client,
                    self.pom_url(*coords),
                    ecosystem=_ECOSYSTEM,
                    name=":".join(coords),
                    source=POM_SOURCE,
                    not_found="none",
                )
                if text is None:
                    detail = f"no POM for {':'.join(coords)}"
                    break
                pom = parse_pom(text)
            except RegistryError as exc:
                detail = f"{':'.join(coords)}: {exc.reason}"
                break
            chain.append(pom)
            coords = pom.parent
        if not chain:
            return chain, SourceStatus(
                POM_SOURCE, "metadata", SourceState.UNAVAILABLE, None, detail
            )
        return chain, SourceStatus(POM_SOURCE, "metadata", SourceState.OK, None, detail)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Maven Central has no download counts: always None."""
        return None


@dataclass(frozen=True, slots=True)
class Metadata:
    """`maven-metadata.xml`: versions in file order, `<release>` and `<latest>`."""

    group: str | None
    artifact: str | None
    versions: tuple[str, ...]
    release: str | None
    latest: str | None
    last_updated: str | None


def parse_metadata(text: str) -> Metadata:
    """Parse `maven-metadata.xml`; raises `RegistryResponseInvalid` when it is not one."""
    root = parse_xml(text, ecosystem=_ECOSYSTEM, source=REGISTRY_SOURCE)
    versioning = root.find("versioning")
    if root.tag != "metadata" or versioning is None:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "maven-metadata.xml without versioning",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    versions: dict[str, None] = {}
    for node in versioning.findall("versions/version"):
        if node.text and node.text.strip():
            versions.setdefault(node.text.strip(), None)
    return Metadata(
        group=child_text(root, "groupId"),
        artifact=child_text(root, "artifactId"),
        versions=tuple(versions),
        release=child_text(versioning, "release"),
        latest=child_text(versioning, "latest"),
        last_updated=child_text(versioning, "lastUpdated"),
    )


def _latest(metadata: Metadata) -> str | None:
    """`<release>` when listed, else the newest non-SNAPSHOT stable version, else the newest."""
    if metadata.release and metadata.release in metadata.versions:
        return metadata.release
    ordered = sorted(metadata.versions, key=lambda v: sort_key(_ECOSYSTEM, v))
    stable = [
        v for v in ordered if not v.endswith("-SNAPSHOT") and not is_prerelease(_ECOSYSTEM, v)
    ]
    pool = stable or ordered
    return pool[-1] if pool else None


def _target(name: str, metadata: Metadata, version: str | None) -> str:
    latest = _latest(metadata)
    if latest is None:
        raise PackageNotFound(_ECOSYSTEM, name)
    if version is None:
        return latest
    wanted = version.strip()
    if wanted not in metadata.versions:
        available = newest_first(_ECOSYSTEM, list(metadata.versions))
        raise VersionNotFound(_ECOSYSTEM, name, wanted, available=available[:AVAILABLE_IN_ERRORS])
    return wanted


def parse_pom(text: str) -> Pom:
    """Read one POM (no inheritance applied); raises `RegistryResponseInvalid` when not a project."""
    root = parse_xml(text, ecosystem=_ECOSYSTEM, source=POM_SOURCE)
    if root.tag != "project":
        raise RegistryResponseInvalid(
            _ECOSYSTEM, "POM root is not <project>", reason="invalid_shape", source=POM_SOURCE
        )
    parent_node = root.find("parent")
    parent = None
    if parent_node is not None:
        pg, pa, pv = (child_text(parent_node, k) for k in ("groupId", "artifactId", "version"))
        if pg and pa and pv:
            parent = (pg, pa, pv)
    pom = Pom(
        group=child_text(root, "groupId"),
        artifact=child_text(root, "artifactId"),
        version=child_text(root, "version"),
        parent=parent,
        name=child_text(root, "name"),
        description=child_text(root, "description"),
        url=child_text(root, "url"),
        scm=child_text(root, "scm", "url") or child_text(root, "scm", "connection"),
    )
    for lic in root.findall("licenses/license"):
        pom.licenses.append((child_text(lic, "name"), child_text(lic, "url")))
    for dev in root.findall("developers/developer"):
        who = child_text(dev, "name") or child_text(dev, "id")
        if who:
            pom.developers.append(
                Maintainer(name=who, email=child_text(dev, "email"), role="developer")
            )
    props = root.find("properties")
    if props is not None:
        for prop in props:
            if isinstance(prop.tag, str) and prop.text is not None:
                pom.properties[prop.tag] = prop.text.strip()
    pom.dependencies = [_dep(node) for node in root.findall("dependencies/dependency")]
    for node in root.findall("dependencyManagement/dependencies/dependency"):
        d = _dep(node)
        if not d["groupId"] or not d["artifactId"]:
            continue
        key = (d["groupId"], d["artifactId"])
        if (d["scope"] or "").strip() == "import":
            # a BOM: its own dependencyManagement is merged in, it is not a managed artifact
            if d["version"]:
                pom.imports.append((*key, d["version"]))
            continue
        if d["version"]:
            pom.managed[key] = d["version"]
        pom.managed_traits[key] = {k: d[k] for k in ("scope", "optional", "exclusions")}
    reloc = root.find("distributionManagement/relocation")
    if reloc is not None:
        pom.relocation = (
            child_text(reloc, "groupId"),
            child_text(reloc, "artifactId"),
            child_text(reloc, "version"),
            child_text(reloc, "message"),
        )
    return pom


def _dep(node: Element) -> dict[str, str | None]:
    d = {
        k: child_text(node, k)
        for k in ("groupId", "artifactId", "version", "scope", "optional", "type", "classifier")
    }
    # `<exclusions>`: `groupId:artifactId` patterns (`*` allowed since Maven 3.2.1), comma-joined
    excluded = [
        f"{child_text(ex, 'groupId') or '*'}:{child_text(ex, 'artifactId') or '*'}"
        for ex in node.findall("exclusions/exclusion")
    ]
    d["exclusions"] = ",".join(excluded) or None
    return d


class _Resolver:
    """`${...}` resolution over a POM chain (child first), as Maven interpolates a model."""

    def __init__(self, chain: Sequence[Pom]) -> None:
        self.values: dict[str, str] = {}
        for pom in reversed(chain):  # parents first, children override
            self.values.update(pom.properties)
        child = chain[0]
        parent = chain[1] if len(chain) > 1 else None
        group = child.group or (child.parent[0] if child.parent else None)
        version = child.version or (child.parent[2] if child.parent else None)
        for prefix in ("project.", "pom.", ""):
            if group:
                self.values.setdefault(f"{prefix}groupId", group)
            if child.artifact:
                self.values.setdefault(f"{prefix}artifactId", child.artifact)
            if version:
                self.values.setdefault(f"{prefix}version", version)
        if child.parent:
            self.values.setdefault("project.parent.groupId", child.parent[0])
            self.values.setdefault("project.parent.version", child.parent[2])
        elif parent is not None and parent.version:
            self.values.setdefault("project.parent.version", parent.version)

    def __call__(self, value: str | None) -> str | None:
        if value is None:
            return None
        for _ in range(10):  # properties may refer to properties; bounded against cycles
            new = _PLACEHOLDER.sub(lambda m: self.values.get(m[1], m[0]), value)
            if new == value:
                break
            value = new
        return value


def _inherited_dependencies(poms: Sequence[Pom]) -> list[dict[str, str | None]]:
    """The `<dependencies>` of the POM and its parents (a POM inherits its parents' dependencies);
    the POM's own first, then each parent's not already declared nearer (same groupId:artifactId)."""
    seen: set[tuple[str | None, str | None]] = set()
    out: list[dict[str, str | None]] = []
    for pom in poms:
        for d in pom.dependencies:
            key = (d["groupId"], d["artifactId"])
            if key not in seen:
                seen.add(key)
                out.append(d)
    return out


def spdx_license(name: str | None, url: str | None) -> str | None:
    """A POM licence as SPDX when the name or URL is a known one, else the name as written."""
    if name and (known := LICENSE_NAMES.get(name.strip().lower())):
        return known
    lowered = (url or "").lower()
    for fragment, spdx in LICENSE_URLS:
        if fragment in lowered:
            return spdx
    return name.strip() if name else None


def build_info(
    name: str,
    metadata: Metadata,
    *,
    version: str | None = None,
    poms: Sequence[Pom] = (),
    depsdev: Mapping[str, Any] | None = None,
    sources: tuple[SourceStatus, ...] = (),
    imported: Mapping[tuple[str, str], str] | None = None,
    unread_boms: Sequence[str] | None = None,
) -> PackageInfo:
    """
    `PackageInfo` from the metadata, the POM chain of `version` (child first; may be empty when the
    POM could not be read) and a deps.dev package body; `imported` are the managed versions of the
    chain's imported BOMs (`MavenAdapter.imported_boms`; explicit management wins over them) and
    `unread_boms` those BOMs that could not be read — None: the BOMs were not asked for, all are
    unread. Raises `PackageNotFound` when the metadata lists no versions and `VersionNotFound` for an
    unknown `version`.
    """
    target = _target(name, metadata, version)
    latest = _latest(metadata) or target
    dates: dict[str, Any] = {}
    if depsdev is not None and isinstance(depsdev.get("versions"), list):
        for item in depsdev["versions"]:
            key = item.get("versionKey") if isinstance(item, Mapping) else None
            if isinstance(key, Mapping) and isinstance(key.get("version"), str):
                dates[key["version"]] = item.get("publishedAt")
    releases = tuple(
        sorted(
            (
                Release(
                    version=v,
                    published_at=as_datetime(dates.get(v)),
                    prerelease=is_prerelease(_ECOSYSTEM, v) or v.endswith("-SNAPSHOT"),
                )
                for v in metadata.versions
            ),
            key=lambda r: sort_key(_ECOSYSTEM, r.version),
        )
    )
    extra: dict[str, str] = {"downloads_unavailable": NO_DOWNLOADS}
    if not poms:
        extra["dependencies_unavailable"] = f"the POM of {target} could not be read"
        return PackageInfo(
            ecosystem=_ECOSYSTEM,
            name=name,
            latest_version=latest,
            releases=releases,
            dependencies_version=target,
            extra=extra,
            sources=sources,
        )
    resolve = _Resolver(poms)
    child = poms[0]
    license_ = None
    for pom in poms:
        if pom.licenses:
            parts = [spdx_license(resolve(n), resolve(u)) for n, u in pom.licenses]
            # Several <license> entries mean the user may choose (Maven's own reading).
            names = [p for p in dict.fromkeys(parts) if p]
            license_ = (
                " OR ".join(f"({p})" if " " in p and len(names) > 1 else p for p in names) or None
            )
            break
    scm = next((resolve(p.scm) for p in poms if p.scm), None)
    url = next((resolve(p.url) for p in poms if p.url), None)
    developers = next((p.developers for p in poms if p.developers), [])
    # Explicit dependencyManagement of the chain wins over what imported BOMs bring
    # (https://maven.apache.org/guides/introduction/introduction-to-dependency-mechanism.html,
    # "Importing Dependencies"); the BOMs' versions are already interpolated in their own POMs.
    managed: dict[tuple[str, str], str] = dict(imported or {})
    traits: dict[tuple[str, str], dict[str, str | None]] = {}
    for pom in reversed(poms):
        for (g, a), version in pom.managed.items():
            managed[(resolve(g) or g, resolve(a) or a)] = version
        for (g, a), trait in pom.managed_traits.items():
            traits[(resolve(g) or g, resolve(a) or a)] = trait
    deps: list[Dependency] = []
    records: list[dict[str, Any]] = []
    for d in _inherited_dependencies(poms):
        group, artifact = resolve(d["groupId"]), resolve(d["artifactId"])
        if not group or not artifact:
            continue
        declared = resolve(d["version"])
        managed_version = resolve(managed.get((group, artifact)))
        requirement = declared or managed_version or ""
        # Model building fills what a dependency leaves out from the chain's dependencyManagement:
        # scope, optional and exclusions as well as the version.
        trait = traits.get((group, artifact), {})
        scope = resolve(d["scope"] or trait.get("scope") or "compile") or "compile"
        kind = _SCOPES.get(scope.strip(), "runtime")
        optional = (d["optional"] or trait.get("optional") or "").strip() == "true"
        exclusions = d["exclusions"] or trait.get("exclusions") or ""
        if kind == "runtime" and optional:
            kind = "optional"
        deps.append(
            Dependency(
                name=f"{group}:{artifact}",
                requirement="" if "${" in requirement else requirement,
                kind=kind,
            )
        )
        records.append(
            {
                "g": group,
                "a": artifact,
                "v": requirement or None,
                "m": not declared and bool(managed_version),
                "s": scope.strip(),
                "o": optional,
                "x": [resolve(x) or x for x in exclusions.split(",") if x],
                "t": resolve(d["type"]) or "jar",
                "c": resolve(d["classifier"]),
            }
        )
    # What `domain/trees/maven.py` needs beyond `Dependency` (scope, optional, exclusions, the
    # version as written, the POM chain's dependencyManagement): kept out of the wire's metadata.
    extra[MAVEN_DEPENDENCIES] = orjson.dumps(records).decode()
    extra[MAVEN_MANAGED] = orjson.dumps(
        {
            f"{g}:{a}": v
            for (g, a), v in ((k, resolve(v)) for k, v in managed.items())
            if v and "${" not in v
        }
    ).decode()
    scopes = {
        f"{g}:{a}": scope
        for (g, a), t in traits.items()
        if (scope := (resolve(t.get("scope")) or "").strip()) and "${" not in scope
    }
    if scopes:
        extra[MAVEN_MANAGED_SCOPES] = orjson.dumps(scopes).decode()
    boms = (
        list(unread_boms)
        if unread_boms is not None
        else [":".join(resolve(p) or p for p in bom) for pom in poms for bom in pom.imports]
    )
    if boms:
        extra[MAVEN_BOMS] = ", ".join(dict.fromkeys(boms))
    deprecated = None
    if child.relocation is not None:
        rg, ra, rv, message = child.relocation
        moved_to = ":".join(p for p in (rg or (name.split(":")[0]), ra or name.split(":")[1]) if p)
        deprecated = message or f"Relocated to {moved_to}" + (f":{rv}" if rv else "")
        extra["deprecated_successor"] = moved_to
    repository = (
        normalise_repository_url(scm.removeprefix("scm:git:").removeprefix("scm:")) if scm else None
    )
    if repository is None and url:
        repository = normalise_repository_url(url, forges_only=True)
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=resolve(child.description) or resolve(child.name) or "",
        license=license_,
        homepage=url,
        repository=repository,
        releases=releases,
        maintainers=tuple(developers),
        dependencies=tuple(deps),
        dependencies_version=target,
        deprecated=deprecated is not None,
        deprecated_message=deprecated,
        extra=extra,
        sources=sources,
    )
