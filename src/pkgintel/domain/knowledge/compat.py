"""
Stack compatibility from declared constraints (pure).

A *stack* is a set of packages at exact versions plus optional runtimes (`node`, `python`). For each
package we know what its version declares (`VersionConstraints`: npm `peerDependencies` with
`peerDependenciesMeta` optional flags, `dependencies`, `engines.node`; PyPI `requires_dist` with PEP
508 markers and `requires_python`). `check_stack` compares every declaration with the versions asked
and returns conflicts (a declared constraint the stack breaks) and warnings (a missing required
peer, a duplicate copy npm would nest, a range that cannot be evaluated).

`suggest_versions` looks for the nearest versions that satisfy every constraint with a real
backtracking resolver (`resolvelib`) over the published versions it is given.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName
from resolvelib import AbstractProvider, BaseReporter, Resolver
from resolvelib.resolvers import ResolutionError

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import major_of
from pkgintel.domain.ranges import requirement_met as satisfies

RUNTIMES: Final = {
    "node": Ecosystem.NPM,
    "python": Ecosystem.PYPI,
    "ruby": Ecosystem.RUBYGEMS,
    "php": Ecosystem.COMPOSER,
    "java": Ecosystem.MAVEN,
}
"""Runtime names a stack may contain, and the ecosystem whose packages (and range grammar) go with
them: a runtime's version is compared in that ecosystem's grammar. Registry metadata declares node
(`engines.node`) and python (`requires_python`); ruby, php and java versions are checked against
curated breakages only."""
MAX_ROUNDS: Final = 400

_EXTRA = re.compile(r"""\bextra\s*==\s*['"]""")


@dataclass(frozen=True, slots=True)
class Requirement:
    """One declared constraint of a version on another package."""

    name: str
    spec: str
    kind: str
    """`peer`, `peer_optional`, `runtime` or `optional`."""
    marker: str | None = None


@dataclass(frozen=True, slots=True)
class VersionConstraints:
    """What one published version declares."""

    version: str
    requirements: tuple[Requirement, ...] = ()
    engines: Mapping[str, str] = field(default_factory=dict)
    """`node` → npm `engines.node`; `python` → PyPI `requires_python`."""
    prerelease: bool = False
    yanked: bool = False
    unread: Mapping[str, str] = field(default_factory=dict)
    """Declarations of this version that could not be read (`requires_dist`, `requires_python`),
    each with why: they are not checked, so the stack cannot be called compatible."""


@dataclass(frozen=True, slots=True)
class PublishedConstraints:
    """A package's published versions (oldest → newest) and the constraints known for them."""

    name: str
    versions: tuple[str, ...]
    by_version: Mapping[str, VersionConstraints]
    source: str
    """Where the declarations come from (e.g. `registry.npmjs.org`)."""


@dataclass(frozen=True, slots=True)
class StackItem:
    name: str
    version: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """A declared (or curated) constraint the stack breaks."""

    package: str
    package_version: str
    requires: str
    constraint: str
    found_version: str
    kind: str
    """`peer`, `peer_optional`, `requires`, `engine` or `curated`."""
    source: str
    origin: str = "declared"
    """`declared` (registry metadata) or `curated` (our knowledge, with `source` a URL)."""
    message: str = ""
    fix: str = ""
    """Curated conflicts: the versions that work together again (empty for declared ones)."""


@dataclass(frozen=True, slots=True)
class CompatWarning:
    package: str
    kind: str
    """`missing_peer`, `duplicate_copy`, `unevaluable`, `runtime_unstated`."""
    message: str
    requires: str | None = None
    constraint: str | None = None


@dataclass(frozen=True, slots=True)
class Breakage:
    """A curated incompatibility not declared in metadata."""

    ecosystem: Ecosystem
    package: str
    versions: str
    other: str
    other_versions: str
    reason: str
    fix: str
    source: str


def key(ecosystem: Ecosystem, name: str) -> str:
    return name if name in RUNTIMES else normalise_name(ecosystem, name)


@dataclass(frozen=True, slots=True)
class BreakageIndex:
    """
    Curated breakages indexed by (ecosystem, package key): a stack's lookup costs one dictionary
    probe per stack item plus the few entries of the packages it names, however large the matrix.
    """

    by_package: Mapping[tuple[Ecosystem, str], tuple[Breakage, ...]]
    size: int

    @classmethod
    def of(cls, breakages: Iterable[Breakage]) -> BreakageIndex:
        grouped: dict[tuple[Ecosystem, str], list[Breakage]] = {}
        n = 0
        for b in breakages:
            grouped.setdefault((b.ecosystem, key(b.ecosystem, b.package)), []).append(b)
            n += 1
        return cls({k: tuple(v) for k, v in grouped.items()}, n)

    def for_package(self, ecosystem: Ecosystem, name: str) -> tuple[Breakage, ...]:
        return self.by_package.get((ecosystem, key(ecosystem, name)), ())


def marker_applies(marker: str | None, python: str) -> bool | None:
    """A PEP 508 marker evaluated for `python` (other fields: packaging's defaults of this host
    are not used — only python_version/python_full_version/implementation are set; extras never
    apply). None when the marker cannot be evaluated."""
    if not marker:
        return True
    if _EXTRA.search(marker):
        return False
    parts = python.split(".")
    env = {
        "python_version": ".".join(parts[:2]),
        "python_full_version": python if len(parts) >= 3 else f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
        "extra": "",
    }
    try:
        return bool(Marker(marker).evaluate(env))
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return None


def applicable(ecosystem: Ecosystem, req: Requirement, python: str) -> bool | None:
    if ecosystem is Ecosystem.PYPI:
        return marker_applies(req.marker, python)
    return True


def check_stack(
    ecosystem: Ecosystem,
    items: Sequence[StackItem],
    constraints: Mapping[str, VersionConstraints],
    *,
    runtimes: Mapping[str, str],
    python: str,
    source_of: Callable[[str], str],
) -> tuple[list[Conflict], list[CompatWarning]]:
    """
    Conflicts and warnings of `items` given `constraints` (by item key; items without constraints
    are skipped — the caller reports them as unavailable). `python` is the version markers and
    `requires_python` are evaluated for (the stated runtime or the default).
    """
    by_key = {key(ecosystem, i.name): i for i in items}
    conflicts: list[Conflict] = []
    warnings: list[CompatWarning] = []
    for item in items:
        vc = constraints.get(key(ecosystem, item.name))
        if vc is None:
            continue
        src = source_of(item.name)
        for runtime, spec in vc.engines.items():
            stated = runtimes.get(runtime) or (python if runtime == "python" else None)
            if stated is None:
                continue
            ok = satisfies(RUNTIMES[runtime], stated, spec)
            label = "engines.node" if runtime == "node" else "requires_python"
            if ok is False:
                conflicts.append(
                    Conflict(
                        package=item.name,
                        package_version=item.version,
                        requires=runtime,
                        constraint=spec,
                        found_version=stated,
                        kind="engine",
                        source=f"{src}: {item.name}@{item.version} {label}",
                        message=f"{item.name}@{item.version} needs {runtime} {spec}; the stack has {runtime} {stated}"
                        + ("" if runtime in runtimes else " (assumed default)"),
                    )
                )
            elif ok is None:
                warnings.append(
                    CompatWarning(
                        item.name, "unevaluable", f"cannot evaluate {label} {spec!r}", runtime, spec
                    )
                )
        for req in vc.requirements:
            target = by_key.get(key(ecosystem, req.name))
            applies = applicable(ecosystem, req, python)
            if applies is False:
                continue
            label = _label(ecosystem, req.kind)
            if target is None:
                if req.kind == "peer" and ecosystem is Ecosystem.NPM:
                    warnings.append(
                        CompatWarning(
                            item.name,
                            "missing_peer",
                            f"{item.name}@{item.version} expects {req.name} {req.spec} as a peer, "
                            "which the stack does not list (npm 7+ installs it automatically)",
                            req.name,
                            req.spec,
                        )
                    )
                continue
            ok = satisfies(ecosystem, target.version, req.spec)
            if ok is None or applies is None:
                warnings.append(
                    CompatWarning(
                        item.name,
                        "unevaluable",
                        f"cannot evaluate {item.name}'s {label} {req.name} {req.spec!r}"
                        + (f" (marker {req.marker!r})" if applies is None else ""),
                        req.name,
                        req.spec,
                    )
                )
                continue
            if ok:
                continue
            if ecosystem is Ecosystem.NPM and req.kind in ("runtime", "optional"):
                warnings.append(
                    CompatWarning(
                        item.name,
                        "duplicate_copy",
                        f"{item.name}@{item.version} depends on {req.name} {req.spec}, not "
                        f"{target.version}: npm installs a second, nested copy of {req.name}",
                        req.name,
                        req.spec,
                    )
                )
                continue
            conflicts.append(
                Conflict(
                    package=item.name,
                    package_version=item.version,
                    requires=target.name,
                    constraint=req.spec,
                    found_version=target.version,
                    kind="peer"
                    if req.kind == "peer"
                    else ("peer_optional" if req.kind == "peer_optional" else "requires"),
                    source=f"{src}: {item.name}@{item.version} {label}",
                    message=f"{item.name}@{item.version} requires {target.name} {req.spec} "
                    f"({label}); the stack has {target.name}@{target.version}",
                )
            )
    return conflicts, warnings


def _label(ecosystem: Ecosystem, kind: str) -> str:
    if ecosystem is Ecosystem.NPM:
        return {
            "peer": "peerDependencies",
            "peer_optional": "peerDependencies (optional)",
            "runtime": "dependencies",
            "optional": "optionalDependencies",
        }.get(kind, kind)
    if ecosystem is Ecosystem.PYPI:
        return "requires_dist"
    return "dependencies"


@functools.lru_cache(maxsize=16384)
def _curated_met(ecosystem: Ecosystem, version: str, requirement: str) -> bool | None:
    """`requirement_met`, memoised: the matrix's ranges are few and fixed, and parsing a range
    costs far more than testing a version against it."""
    return satisfies(ecosystem, version, requirement)


def apply_breakages(
    ecosystem: Ecosystem,
    items: Sequence[StackItem],
    breakages: BreakageIndex | Iterable[Breakage],
    *,
    runtimes: Mapping[str, str] | None = None,
) -> list[Conflict]:
    """
    Curated incompatibilities that hold for this stack: the entry's package is in the stack at a
    version in `versions`, and its `other` side — another stack item, or a runtime the stack states
    (`python@3.12`, `node@18`, `ruby@3.2`, `php@8.1`, `java@21`; a runtime's version is compared in
    the grammar of its ecosystem, see `RUNTIMES`) — is at a version in `other_versions`. A runtime
    the stack does not state is never assumed here. A range that cannot be evaluated for the asked
    version does not apply (the loader refuses entries whose ranges do not parse).
    """
    index = breakages if isinstance(breakages, BreakageIndex) else BreakageIndex.of(breakages)
    met = _curated_met
    stated = runtimes or {}
    by_key = {key(ecosystem, i.name): i for i in items}
    out: list[Conflict] = []
    for a in items:
        for b in index.for_package(ecosystem, a.name):
            if b.other in RUNTIMES:
                other_name, other_version = b.other, stated.get(b.other)
                grammar = RUNTIMES[b.other]
            else:
                hit = by_key.get(key(ecosystem, b.other))
                other_name, other_version = (hit.name, hit.version) if hit else (b.other, None)
                grammar = ecosystem
            if other_version is None:
                continue
            if met(ecosystem, a.version, b.versions) and met(
                grammar, other_version, b.other_versions
            ):
                out.append(
                    Conflict(
                        package=a.name,
                        package_version=a.version,
                        requires=other_name,
                        constraint=f"not {b.other_versions}",
                        found_version=other_version,
                        kind="curated",
                        source=b.source,
                        origin="curated",
                        message=f"{b.reason} Fix: {b.fix}",
                        fix=b.fix,
                    )
                )
    return out


# -- suggestions ------------------------------------------------------------------------------


def preference_order(versions: Sequence[str], asked: str) -> list[str]:
    """
    Versions (oldest → newest in) ordered by nearness to `asked`: the asked version, then the same
    major newest first, then higher majors (nearest first, newest within), then lower majors.
    """
    asked_major = major_of(asked)
    groups: dict[int | None, list[str]] = {}
    for v in versions:
        groups.setdefault(major_of(v), []).append(v)
    out = [asked] if asked in versions else []
    same = [v for v in reversed(groups.get(asked_major, [])) if v != asked]
    out += same
    majors = sorted(m for m in groups if m is not None and m != asked_major)
    if asked_major is not None:
        higher = [m for m in majors if m > asked_major]
        lower = sorted((m for m in majors if m < asked_major), reverse=True)
    else:
        higher, lower = majors, []
    for m in (*higher, *lower):
        out += list(reversed(groups[m]))
    return out


@dataclass(frozen=True, slots=True)
class _Req:
    name: str
    spec: str | None
    """None = any version; `=<v>` = exactly v (an anchor)."""


class _Provider(AbstractProvider[Any, Any, Any]):
    def __init__(
        self,
        ecosystem: Ecosystem,
        candidates: Mapping[str, Sequence[str]],
        constraints: Mapping[str, Mapping[str, VersionConstraints]],
        names: Mapping[str, str],
        runtimes: Mapping[str, str],
        python: str,
        anchors: set[str],
    ) -> None:
        self.eco = ecosystem
        self.candidates = candidates
        self.constraints = constraints
        self.names = names
        self.runtimes = runtimes
        self.python = python
        self.anchors = anchors
        self._met: dict[tuple[str, str], bool] = {}
        """`(spec, version)` → satisfied: the resolver asks the same pairs again on every round."""

    def identify(self, requirement_or_candidate: Any) -> str:
        return str(
            requirement_or_candidate[0]
            if isinstance(requirement_or_candidate, tuple)
            else requirement_or_candidate.name
        )

    def get_preference(
        self,
        identifier: str,
        resolutions: Any,
        candidates: Any,
        information: Any,
        backtrack_causes: Any,
    ) -> Any:
        return (
            identifier not in self.anchors,
            len(self.candidates.get(identifier, ())),
            identifier,
        )

    def _ok(self, req: _Req, version: str) -> bool:
        if req.spec is None:
            return True
        if req.spec.startswith("="):
            return version == req.spec[1:]
        met = self._met.get((req.spec, version))
        if met is None:
            met = self._met[(req.spec, version)] = satisfies(self.eco, version, req.spec) is True
        return met

    def _runtime_ok(self, vc: VersionConstraints) -> bool:
        for runtime, spec in vc.engines.items():
            stated = self.runtimes.get(runtime) or (self.python if runtime == "python" else None)
            if stated is not None and satisfies(RUNTIMES[runtime], stated, spec) is False:
                return False
        return True

    def find_matches(self, identifier: str, requirements: Any, incompatibilities: Any) -> Any:
        reqs = list(requirements[identifier])
        bad = {c[1] for c in incompatibilities[identifier]}
        out = []
        for v in self.candidates.get(identifier, ()):
            if v in bad or not all(self._ok(r, v) for r in reqs):
                continue
            vc = self.constraints.get(identifier, {}).get(v)
            if vc is None or not self._runtime_ok(vc):
                continue
            out.append((identifier, v))
        return out

    def is_satisfied_by(self, requirement: _Req, candidate: tuple[str, str]) -> bool:
        return self._ok(requirement, candidate[1])

    def get_dependencies(self, candidate: tuple[str, str]) -> Any:
        ident, version = candidate
        vc = self.constraints.get(ident, {}).get(version)
        if vc is None:
            return []
        deps = []
        for req in vc.requirements:
            k = key(self.eco, req.name)
            if k not in self.candidates:
                continue
            if self.eco is Ecosystem.NPM and req.kind not in ("peer", "peer_optional"):
                continue  # npm nests a second copy rather than failing
            if applicable(self.eco, req, self.python) is False:
                continue
            deps.append(_Req(k, req.spec))
        return deps


def suggest_versions(
    ecosystem: Ecosystem,
    items: Sequence[StackItem],
    published: Mapping[str, PublishedConstraints],
    *,
    runtimes: Mapping[str, str],
    python: str,
    anchor: str | None = None,
    include_prerelease: bool = False,
) -> dict[str, str] | None:
    """
    Nearest versions (by `preference_order`) of every item satisfying every declared constraint
    among the stack, with `anchor` (an item key) kept at its asked version. None when no
    combination of the known versions works (or the search gives up after `MAX_ROUNDS`).
    """
    candidates: dict[str, list[str]] = {}
    constraints: dict[str, Mapping[str, VersionConstraints]] = {}
    names: dict[str, str] = {}
    for item in items:
        k = key(ecosystem, item.name)
        pub = published.get(k)
        if pub is None:
            return None
        names[k] = item.name
        usable = [
            v
            for v in pub.versions
            if v in pub.by_version
            and (v == item.version or include_prerelease or not pub.by_version[v].prerelease)
            and (v == item.version or not pub.by_version[v].yanked)
        ]
        candidates[k] = preference_order(usable, item.version)
        constraints[k] = pub.by_version
    anchors = {anchor} if anchor else set()
    provider = _Provider(ecosystem, candidates, constraints, names, runtimes, python, anchors)
    root = [
        _Req(
            k,
            f"={next(i.version for i in items if key(ecosystem, i.name) == k)}"
            if k in anchors
            else None,
        )
        for k in candidates
    ]
    try:
        result = Resolver(provider, BaseReporter()).resolve(root, max_rounds=MAX_ROUNDS)
    except ResolutionError:
        return None
    return {names[k]: cand[1] for k, cand in result.mapping.items()}
