"""
`CompatService`: is this stack of exact versions compatible? (`/api/compat`, MCP
`check_compatibility`, the stack audit's action items).

1. The stack is split into packages and runtimes (`node@18.17.0`, `python@3.9`); the ecosystem is
   the one given, else detected (a scoped `@x/y` name or `node` → npm, `python` → PyPI, otherwise
   the registry where every asked version is published).
2. Each package's declarations come from its registry, concurrently: npm from one packument per
   package (every version's peer/runtime dependencies and `engines.node`, kept in memory for
   `ttl_s`); PyPI from `PackageService` snapshots of the asked versions (`requires_dist` with
   markers, `requires_python`). Within one check each registry document (a packument, a project
   document, a version's document or core metadata file, a downloads count) is asked for once,
   however many of detection, loading and the suggestions' candidates read it
   (`upstream_memo.one_answer`).
3. `domain.knowledge.compat.check_stack` finds declared conflicts; curated breakages (data with sources,
   `knowledge/compat/breakages.yaml`, looked up by package through a `BreakageIndex`) are applied on
   top and marked `curated`, each with the versions that fix it. A curated breakage with a runtime
   (`python@3.12`, `node@17`, `ruby@3.2`, `php@8`, `java@21`) applies only when the stack states it.
4. With declared conflicts, `domain.knowledge.compat.suggest_versions` (resolvelib) finds the nearest
   published versions that satisfy every declared constraint, once per conflicting package kept
   fixed (curated conflicts carry their own fix; the resolver knows no more than the declarations).

`CURATED_ONLY` ecosystems (RubyGems, Composer, Maven, Cargo): their registries' declarations are not
read here, so the check applies the curated breakages alone and answers `compatible: false` when one
holds, otherwise `null` with every package named as `unsupported` in `unavailable` — never "true".

`compatible` is False with any conflict; None when some package's metadata, or part of it, could
not be read (`unavailable`, each naming the package, version, the fields not read and why) or a
declared constraint could not be evaluated (an `unevaluable` warning); True only when every declared
constraint was read and holds. A PyPI version is judged on its own metadata only
(`pypi_version_constraints`): a snapshot whose requirements are another version's, or unknown, is
never read as "no requirements".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, Protocol

from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import (
    EcosystemNotSupported,
    InvalidInput,
    PackageNotFound,
    PkgIntelError,
    RegistryError,
    VersionNotFound,
)
from pkgintel.domain.knowledge.compat import (
    RUNTIMES,
    Breakage,
    BreakageIndex,
    CompatWarning,
    Conflict,
    PublishedConstraints,
    Requirement,
    StackItem,
    VersionConstraints,
    apply_breakages,
    check_stack,
    key,
    preference_order,
    suggest_versions,
)
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.versions import is_valid
from pkgintel.ecosystems.pypi_metadata import same_version
from pkgintel.transport.memo import SharedFetches, one_answer

SUPPORTED: Final = (Ecosystem.NPM, Ecosystem.PYPI)
"""Ecosystems whose declared constraints are read (and curated breakages applied)."""
CURATED_ONLY: Final = (Ecosystem.RUBYGEMS, Ecosystem.COMPOSER, Ecosystem.MAVEN, Ecosystem.CARGO)
"""Ecosystems checked against curated breakages only (their declarations are not read here)."""
CHECKED: Final = SUPPORTED + CURATED_ONLY
PYPI_CANDIDATES: Final = 8
"""Nearest versions per conflicting PyPI package whose metadata is fetched for suggestions."""
_RUNTIME_ALIASES: Final = {
    "nodejs": "node",
    "node.js": "node",
    "python3": "python",
    "cpython": "python",
    "jdk": "java",
    "openjdk": "java",
}


class NpmConstraintSource(Protocol):
    """What the npm adapter offers beyond `RegistryAdapter` (`NpmAdapter.fetch_constraints`)."""

    registry_source: str

    async def fetch_constraints(self, name: str) -> PublishedConstraints: ...


class Snapshots(Protocol):
    """The part of `PackageService` used here."""

    async def get_snapshot(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> _HasInfo: ...


class _HasInfo(Protocol):
    @property
    def info(self) -> PackageInfo: ...

    @property
    def cache_status(self) -> str: ...


CONSTRAINT_FIELDS: Final[Mapping[Ecosystem, tuple[str, ...]]] = {
    Ecosystem.NPM: ("dependencies", "optionalDependencies", "peerDependencies", "engines"),
    Ecosystem.PYPI: ("requires_dist", "requires_python"),
}
"""The declarations a check reads, per ecosystem (named in `Unavailable.unread`)."""


@dataclass(frozen=True, slots=True)
class Unavailable:
    package: str
    version: str
    reason: str
    """`not_found`, `version_not_found`, `upstream_unavailable`, `unsupported`, or
    `metadata_unavailable` (the version exists but some of its own declarations could not be read)."""
    message: str
    unread: tuple[str, ...] = ()
    """The declarations of this version that were not checked (all of them but for
    `metadata_unavailable`)."""


@dataclass(frozen=True, slots=True)
class Suggestion:
    keep: str | None
    """The package kept at its asked version (None: everything may move)."""
    versions: dict[str, str]
    changes: dict[str, str]
    """Only the packages whose version differs from the asked one."""


@dataclass(frozen=True, slots=True)
class SourceUse:
    name: str
    package: str
    version: str
    status: str
    fetched_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class CompatReport:
    ecosystem: Ecosystem
    ecosystem_detected: bool
    detection: str
    packages: dict[str, str]
    runtimes: dict[str, str]
    python_assumed: str | None
    compatible: bool | None
    conflicts: list[Conflict]
    warnings: list[CompatWarning]
    unavailable: list[Unavailable]
    suggestions: list[Suggestion]
    sources: list[SourceUse] = field(default_factory=list)


def parse_stack(text: str) -> dict[str, str]:
    """
    `a@1.2.3,@scope/b@4.5.6, python@3.9` → `{name: version}`. The version is what follows the
    last `@` that is not the first character. Raises `InvalidInput` on an item without a version.
    """
    out: dict[str, str] = {}
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        at = item.rfind("@")
        if at <= 0:
            raise InvalidInput("stack", f"{item!r} has no @version (write name@1.2.3)")
        name, version = item[:at].strip(), item[at + 1 :].strip()
        if not name or not version:
            raise InvalidInput("stack", f"{item!r} has no @version (write name@1.2.3)")
        out[name] = version
    if not out:
        raise InvalidInput("stack", "the stack is empty")
    return out


class CompatService:
    """See the module docstring."""

    def __init__(
        self,
        packages: Snapshots,
        npm: NpmConstraintSource | None,
        *,
        breakages: Callable[[], BreakageIndex | Sequence[Breakage]] = tuple,
        default_python: str = "3.13",
        max_packages: int = 25,
        ttl_s: float = 21600.0,
        cache_entries: int = 256,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._packages = packages
        self._npm = npm
        self._breakages = breakages
        self._default_python = default_python
        self._max = max_packages
        self._clock = clock
        self._npm_cache = MemoryLRU[str, tuple[PublishedConstraints, datetime]](
            cache_entries, ttl_s=ttl_s
        )
        self._flights = SharedFetches[tuple[PublishedConstraints, datetime]]()

    # -- sources --------------------------------------------------------------------------
    async def _npm_published(self, name: str) -> tuple[PublishedConstraints, datetime, str]:
        if self._npm is None:
            raise EcosystemNotSupported(Ecosystem.NPM.value)
        k = key(Ecosystem.NPM, name)
        hit = self._npm_cache.get(k)
        if hit is not None:
            return hit[0], hit[1], "hit"
        npm = self._npm

        async def fetch() -> tuple[PublishedConstraints, datetime]:
            pub = await npm.fetch_constraints(name)
            fetched = self._clock()
            self._npm_cache.set(k, (pub, fetched))
            return pub, fetched

        pub, fetched = await self._flights.get(k, fetch)
        return pub, fetched, "miss"

    async def _pypi_constraints(
        self, name: str, version: str
    ) -> tuple[VersionConstraints, PackageInfo, str]:
        """The version's own constraints, its snapshot's info and cache status (`stale`...)."""
        snap = await self._packages.get_snapshot(Ecosystem.PYPI, name, version)
        return pypi_version_constraints(snap.info, version), snap.info, snap.cache_status

    # -- detection ------------------------------------------------------------------------
    async def _exists_everywhere(self, ecosystem: Ecosystem, items: Mapping[str, str]) -> bool:
        async def one(name: str, version: str) -> bool:
            try:
                if ecosystem is Ecosystem.NPM:
                    pub, _, _ = await self._npm_published(name)
                    return version in pub.by_version
                await self._packages.get_snapshot(Ecosystem.PYPI, name, version)
                return True
            except PkgIntelError:
                return False

        results = await asyncio.gather(*(one(n, v) for n, v in items.items()))
        return all(results)

    async def _detect(
        self, items: Mapping[str, str], runtimes: Mapping[str, str]
    ) -> tuple[Ecosystem, str]:
        if any(n.startswith("@") and "/" in n for n in items) or "node" in runtimes:
            return Ecosystem.NPM, "a scoped name or the node runtime names npm"
        if "python" in runtimes:
            return Ecosystem.PYPI, "the python runtime names PyPI"
        for runtime in ("ruby", "php", "java"):
            if runtime in runtimes:
                return RUNTIMES[runtime], f"the {runtime} runtime names {RUNTIMES[runtime].value}"
        npm_ok, pypi_ok = await asyncio.gather(
            self._exists_everywhere(Ecosystem.NPM, items),
            self._exists_everywhere(Ecosystem.PYPI, items),
        )
        if npm_ok and not pypi_ok:
            return Ecosystem.NPM, "every asked version is published on npm (not all on PyPI)"
        if pypi_ok and not npm_ok:
            return Ecosystem.PYPI, "every asked version is published on PyPI (not all on npm)"
        why = "both npm and PyPI" if npm_ok else "neither npm nor PyPI"
        raise InvalidInput(
            "ecosystem",
            f"cannot detect the ecosystem: the asked versions exist on {why}; pass `ecosystem`",
        )

    # -- the check ------------------------------------------------------------------------
    async def check(
        self,
        packages: Mapping[str, str],
        *,
        ecosystem: Ecosystem | None = None,
        suggest: bool = True,
    ) -> CompatReport:
        """
        The compatibility of `packages` ({name: exact version}; `node`/`python` entries are
        runtimes). Raises `InvalidInput` (bad/empty/oversized stack, undetectable ecosystem) and
        `EcosystemNotSupported` (no constraint data for that ecosystem yet). Every registry
        document is asked for once per check (`upstream_memo.one_answer`), however many of
        detection, loading and the suggestions' candidates read it.
        """
        with one_answer():
            return await self._check(packages, ecosystem=ecosystem, suggest=suggest)

    async def _check(
        self,
        packages: Mapping[str, str],
        *,
        ecosystem: Ecosystem | None,
        suggest: bool,
    ) -> CompatReport:
        items: dict[str, str] = {}
        runtimes: dict[str, str] = {}
        for raw_name, raw_version in packages.items():
            name, version = raw_name.strip(), str(raw_version).strip()
            if not name or not version:
                raise InvalidInput("packages", f"{raw_name!r}: name and version are required")
            runtime = _RUNTIME_ALIASES.get(name.lower(), name.lower())
            if runtime in RUNTIMES:
                runtimes[runtime] = version.lstrip("v")
            else:
                items[name] = version
        if not items:
            raise InvalidInput("packages", "the stack names no package (only runtimes)")
        if len(items) > self._max:
            raise InvalidInput("packages", f"at most {self._max} packages per check")
        detected = ecosystem is None
        if ecosystem is None:
            ecosystem, detection = await self._detect(items, runtimes)
        else:
            detection = "given"
        if ecosystem not in CHECKED:
            raise EcosystemNotSupported(ecosystem.value)
        for name, version in items.items():
            if not is_valid(ecosystem, version):
                raise InvalidInput(
                    "packages", f"{name}: {version!r} is not an exact {ecosystem.value} version"
                )
        if ecosystem in CURATED_ONLY:
            return self._curated_only(ecosystem, items, runtimes, detected, detection)
        python = runtimes.get("python") or self._default_python
        python_assumed = None if "python" in runtimes or ecosystem is not Ecosystem.PYPI else python

        stack = [StackItem(n, v) for n, v in items.items()]
        constraints: dict[str, VersionConstraints] = {}
        published: dict[str, PublishedConstraints] = {}
        unavailable: list[Unavailable] = []
        sources: list[SourceUse] = []
        display: dict[str, str] = {}
        every = CONSTRAINT_FIELDS[ecosystem]

        async def load(item: StackItem) -> None:
            k = key(ecosystem, item.name)
            try:
                if ecosystem is Ecosystem.NPM:
                    pub, fetched, _ = await self._npm_published(item.name)
                    published[k] = pub
                    display[k] = pub.name
                    vc = pub.by_version.get(item.version)
                    if vc is None:
                        near = [
                            v for v in reversed(pub.versions) if not pub.by_version[v].prerelease
                        ][:5]
                        unavailable.append(
                            Unavailable(
                                item.name,
                                item.version,
                                "version_not_found",
                                f"{item.name} has no published version {item.version} (newest: {', '.join(near)})",
                                every,
                            )
                        )
                        return
                    constraints[k] = vc
                    sources.append(SourceUse(pub.source, pub.name, item.version, "ok", fetched))
                else:
                    vc, info, cache_status = await self._pypi_constraints(item.name, item.version)
                    constraints[k] = vc
                    display[k] = info.name
                    status = "stale" if cache_status == "stale" else "ok"
                    if vc.unread:
                        status = "unavailable"
                        unavailable.append(
                            Unavailable(
                                item.name,
                                item.version,
                                "metadata_unavailable",
                                f"{info.name} {item.version}: "
                                + "; ".join(
                                    f"{f} not read ({why})" for f, why in vc.unread.items()
                                ),
                                tuple(vc.unread),
                            )
                        )
                    sources.append(SourceUse("pypi.org", info.name, item.version, status))
            except VersionNotFound as exc:
                unavailable.append(
                    Unavailable(item.name, item.version, "version_not_found", exc.message, every)
                )
            except PackageNotFound as exc:
                unavailable.append(
                    Unavailable(item.name, item.version, "not_found", exc.message, every)
                )
            except RegistryError as exc:
                unavailable.append(
                    Unavailable(item.name, item.version, "upstream_unavailable", exc.message, every)
                )
                sources.append(
                    SourceUse(exc.source or ecosystem.value, item.name, item.version, "unavailable")
                )

        await asyncio.gather(*(load(i) for i in stack))
        # Loads finish in any order: list sources and gaps in the stack's order, so equal questions
        # get equal answers.
        rank = {key(ecosystem, i.name): n for n, i in enumerate(stack)}
        sources.sort(key=lambda s: rank.get(key(ecosystem, s.package), len(rank)))
        unavailable.sort(key=lambda u: rank.get(key(ecosystem, u.package), len(rank)))
        conflicts, warnings = check_stack(
            ecosystem,
            stack,
            constraints,
            runtimes=runtimes,
            python=python,
            source_of=lambda _n: "registry.npmjs.org" if ecosystem is Ecosystem.NPM else "pypi.org",
        )
        conflicts += apply_breakages(ecosystem, stack, self._breakages(), runtimes=runtimes)
        if (
            ecosystem is Ecosystem.NPM
            and "node" not in runtimes
            and any(vc.engines for vc in constraints.values())
        ):
            warnings.append(
                CompatWarning(
                    "node",
                    "runtime_unstated",
                    "packages declare engines.node; add node@<version> to the stack to check it",
                )
            )
        compatible: bool | None
        if conflicts:
            compatible = False
        elif unavailable or any(w.kind == "unevaluable" for w in warnings):
            compatible = None  # something declared was not checked: never "compatible"
        else:
            compatible = True
        suggestions: list[Suggestion] = []
        declared = any(c.origin != "curated" for c in conflicts)
        if declared and suggest and not unavailable:
            suggestions = await self._suggest(
                ecosystem, stack, conflicts, published, runtimes, python
            )
        return CompatReport(
            ecosystem=ecosystem,
            ecosystem_detected=detected,
            detection=detection,
            packages=dict(items),
            runtimes=runtimes,
            python_assumed=python_assumed,
            compatible=compatible,
            conflicts=conflicts,
            warnings=warnings,
            unavailable=unavailable,
            suggestions=suggestions,
            sources=sources,
        )

    def _curated_only(
        self,
        ecosystem: Ecosystem,
        items: Mapping[str, str],
        runtimes: Mapping[str, str],
        detected: bool,
        detection: str,
    ) -> CompatReport:
        """A `CURATED_ONLY` ecosystem: curated breakages alone (see the module docstring)."""
        stack = [StackItem(n, v) for n, v in items.items()]
        conflicts = apply_breakages(ecosystem, stack, self._breakages(), runtimes=runtimes)
        unavailable = [
            Unavailable(
                i.name,
                i.version,
                "unsupported",
                f"{ecosystem.value} declarations are not read by this check; "
                "only curated breakages were applied",
                ("declared dependencies",),
            )
            for i in stack
        ]
        return CompatReport(
            ecosystem=ecosystem,
            ecosystem_detected=detected,
            detection=detection,
            packages=dict(items),
            runtimes=dict(runtimes),
            python_assumed=None,
            compatible=False if conflicts else None,
            conflicts=conflicts,
            warnings=[],
            unavailable=unavailable,
            suggestions=[],
            sources=[],
        )

    async def _suggest(
        self,
        ecosystem: Ecosystem,
        stack: list[StackItem],
        conflicts: list[Conflict],
        published: dict[str, PublishedConstraints],
        runtimes: Mapping[str, str],
        python: str,
    ) -> list[Suggestion]:
        if ecosystem is Ecosystem.PYPI:
            published = await self._pypi_published(stack, conflicts)
            if not published:
                return []
        involved: list[str] = []
        for c in conflicts:
            for name in (c.package, c.requires):
                k = key(ecosystem, name)
                if k not in involved and any(key(ecosystem, i.name) == k for i in stack):
                    involved.append(k)
        anchors: list[str | None] = [*involved[:3], None]
        out: list[Suggestion] = []
        seen: set[tuple[tuple[str, str], ...]] = set()
        asked = {i.name: i.version for i in stack}
        for anchor in anchors:
            found = await asyncio.to_thread(
                suggest_versions,
                ecosystem,
                stack,
                published,
                runtimes=runtimes,
                python=python,
                anchor=anchor,
            )
            if not found:
                continue
            signature = tuple(sorted(found.items()))
            if signature in seen:
                continue
            seen.add(signature)
            keep = next((i.name for i in stack if key(ecosystem, i.name) == anchor), None)
            out.append(
                Suggestion(
                    keep=keep,
                    versions=found,
                    changes={n: v for n, v in found.items() if asked.get(n) != v},
                )
            )
        return out[:3]

    async def _pypi_published(
        self, stack: list[StackItem], conflicts: list[Conflict]
    ) -> dict[str, PublishedConstraints]:
        """Metadata of the nearest few versions of each conflicting package (others: asked only)."""
        moving = {key(Ecosystem.PYPI, n) for c in conflicts for n in (c.package, c.requires)}
        result: dict[str, PublishedConstraints] = {}

        async def one(item: StackItem) -> None:
            k = key(Ecosystem.PYPI, item.name)
            snap = await self._packages.get_snapshot(Ecosystem.PYPI, item.name)
            info = snap.info
            releases = [r for r in info.releases if not r.yanked or r.version == item.version]
            versions = [r.version for r in releases]
            wanted = [item.version]
            if k in moving:
                stable = [r.version for r in releases if not r.prerelease]
                wanted = preference_order(stable, item.version)[:PYPI_CANDIDATES] or [item.version]
            pairs = await asyncio.gather(
                *(self._pypi_constraints(item.name, v) for v in wanted), return_exceptions=True
            )
            # A version whose own declarations could not be read is no candidate: the resolver
            # would take it for one without requirements.
            by_version = {
                v: pair[0]
                for v, pair in zip(wanted, pairs, strict=True)
                if not isinstance(pair, BaseException) and not pair[0].unread
            }
            result[k] = PublishedConstraints(info.name, tuple(versions), by_version, "pypi.org")

        try:
            await asyncio.gather(*(one(i) for i in stack))
        except PkgIntelError:
            return {}
        return result


def pypi_version_constraints(info: PackageInfo, version: str) -> VersionConstraints:
    """
    Declared constraints of one PyPI release from its `PackageInfo`: `requires_dist` (extras
    left out) and `requires_python`, only when they are `version`'s own. Requirements of another
    version (a stored copy of the latest serving for an old version) or unknown ones
    (`dependencies_unavailable`) are not read as "none": they go to `unread` with why;
    `requires_python` is still read when the adapter names `version` as its owner
    (`requires_python_of`).
    """
    release = info.release(version)
    own = (
        same_version(info.dependencies_version, version)
        and "dependencies_unavailable" not in info.extra
    )
    unread: dict[str, str] = {}
    reqs: tuple[Requirement, ...] = ()
    if own:
        reqs = tuple(
            Requirement(
                name=d.name,
                spec=d.requirement,
                kind="runtime" if d.kind == "runtime" else d.kind,
                marker=d.marker,
            )
            for d in info.dependencies
            if not d.kind.startswith("extra:")
        )
    else:
        unread["requires_dist"] = info.extra.get("dependencies_unavailable") or (
            f"the metadata at hand is of {info.dependencies_version}, not {version}"
            if info.dependencies_version
            else f"the registry did not give the requirements of {version}"
        )
    requires_python: str | None = None
    if own or same_version(info.extra.get("requires_python_of"), version):
        requires_python = info.extra.get("requires_python")
    else:
        unread["requires_python"] = unread["requires_dist"]
    return VersionConstraints(
        version=version,
        requirements=reqs,
        engines={"python": requires_python} if requires_python else {},
        prerelease=bool(release and release.prerelease),
        yanked=bool(release and release.yanked),
        unread=unread,
    )
