"""
Pure rules of dependency-tree resolution (`services/tree.py` does the fetching).

- `edge_applies`: which declared dependencies an install brings in, by each ecosystem's own rules —
  npm installs runtime, optional and (npm 7+) peer dependencies; PyPI installs `requires_dist`
  entries whose PEP 508 marker holds for the target environment, `extra == "x"` entries only when
  the parent was asked with that extra; Cargo builds normal and build dependencies, optional ones
  only when a feature turns them on (features are off by default here), never dev-dependencies.
- `pick_version`: the newest *published* version a requirement admits, in the ecosystem's range
  grammar (`domain/ranges`) and ordering; pre-releases only when the range names one (npm, Cargo)
  or when the specifier mentions one or nothing final satisfies it (PEP 440); yanked releases only when pinned exactly (PEP 592,
  Cargo). None when nothing published satisfies it — the caller reports the edge as unresolved
  rather than inventing a version.
- `find_cycles`: the elementary cycles of the resolved graph, each once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError, grammar_for
from pkgintel.domain.versions import is_prerelease, sort_key

TREE_ECOSYSTEMS: Final = frozenset({Ecosystem.NPM, Ecosystem.PYPI, Ecosystem.CARGO})
"""Ecosystems whose dependency semantics are implemented here."""

_NPM_KINDS: Final = frozenset({"runtime", "optional", "peer"})
_CARGO_KINDS: Final = frozenset({"runtime", "build"})
_NPM_ANY: Final = frozenset({"", "*", "x", "X", "latest"})


@dataclass(frozen=True, slots=True)
class Environment:
    """The install target PEP 508 markers are evaluated against (Linux, CPython, one Python)."""

    python_version: str = "3.13"
    sys_platform: str = "linux"
    platform_system: str = "Linux"
    os_name: str = "posix"
    platform_machine: str = "x86_64"
    implementation_name: str = "cpython"

    def markers(self, extra: str) -> dict[str, str]:
        major_minor = ".".join(self.python_version.split(".")[:2])
        full = self.python_version if self.python_version.count(".") >= 2 else f"{major_minor}.0"
        return {
            "python_version": major_minor,
            "python_full_version": full,
            "implementation_version": full,
            "sys_platform": self.sys_platform,
            "platform_system": self.platform_system,
            "os_name": self.os_name,
            "platform_machine": self.platform_machine,
            "platform_python_implementation": "CPython",
            "implementation_name": self.implementation_name,
            "platform_release": "",
            "platform_version": "",
            "extra": extra,
        }


@dataclass(frozen=True, slots=True)
class EdgeDecision:
    applies: bool
    why: str | None = None
    """Why an edge was left out (a marker that does not hold, a feature-gated crate...)."""


def edge_applies(
    ecosystem: Ecosystem, dep: Dependency, env: Environment, extras: Iterable[str] = ()
) -> EdgeDecision:
    """Whether `dep` is installed with its parent (see the module docstring)."""
    if ecosystem is Ecosystem.NPM:
        if dep.kind in _NPM_KINDS:
            return EdgeDecision(True)
        return EdgeDecision(False, f"{dep.kind} dependency")
    if ecosystem is Ecosystem.CARGO:
        if dep.kind in _CARGO_KINDS:
            return EdgeDecision(True)
        if dep.kind == "optional":
            return EdgeDecision(False, "optional: only built when a feature enables it")
        return EdgeDecision(False, f"{dep.kind} dependency")
    if ecosystem is Ecosystem.PYPI:
        if dep.marker is None:
            return EdgeDecision(True)
        try:
            marker = Marker(dep.marker)
        except InvalidMarker:
            return EdgeDecision(False, f"marker does not parse: {dep.marker}")
        wanted = sorted(set(extras)) or [""]
        try:
            if any(marker.evaluate(env.markers(extra)) for extra in wanted):
                return EdgeDecision(True)
        except (UndefinedComparison, UndefinedEnvironmentName) as exc:
            return EdgeDecision(False, f"marker cannot be evaluated: {exc}")
        if dep.kind.startswith("extra:"):
            return EdgeDecision(False, f"only with the extra [{dep.kind.removeprefix('extra:')}]")
        return EdgeDecision(
            False, f"marker false for Python {env.python_version} on {env.sys_platform}"
        )
    return EdgeDecision(False, f"{ecosystem.value} dependency semantics are not implemented")


class UnevaluableRequirement(ValueError):
    """The requirement is not a version range of the ecosystem (a git URL, an alias, a tag...)."""


def pick_version(ecosystem: Ecosystem, releases: Sequence[Release], requirement: str) -> str | None:
    """
    The newest published version `requirement` admits, or None when none does.

    Raises `UnevaluableRequirement` when the requirement is not a range of the ecosystem's grammar
    (npm `git+https:`/`file:`/`npm:` aliases and dist-tags other than `latest`, an unparsable
    specifier): such an edge cannot be resolved from the registry's version list.
    """
    req = requirement.strip()
    grammar = grammar_for(ecosystem)
    if grammar is None:
        raise UnevaluableRequirement(f"{ecosystem.value} ranges are not evaluated")
    if ecosystem is Ecosystem.NPM and req in _NPM_ANY:
        req = "*"
    if ecosystem is Ecosystem.CARGO and req == "":
        req = "*"
    try:
        rng = grammar.parse(req, include_prerelease=False)
    except RangeSyntaxError as exc:
        raise UnevaluableRequirement(str(exc)) from None
    exact = _pinned(ecosystem, req)
    ordered = sorted(releases, key=lambda r: sort_key(ecosystem, r.version), reverse=True)
    # npm and Cargo apply their pre-release rule inside `contains`; for PEP 440 a pre-release is
    # taken only when the specifier names one, or when nothing final satisfies it (PEP 440, pip).
    finals_first = ecosystem is Ecosystem.PYPI and not _names_prerelease(req)
    passes = (False, True) if finals_first else (True,)
    for allow_pre in passes:
        for rel in ordered:
            if rel.yanked and rel.version != exact:
                continue
            pre = is_prerelease(ecosystem, rel.version)
            if pre and not allow_pre:
                continue
            if ecosystem is Ecosystem.NPM and req == "*" and pre:
                continue
            if rng.contains(rel.version):
                return rel.version
    return None


def _names_prerelease(req: str) -> bool:
    try:
        return bool(SpecifierSet(req).prereleases)
    except (InvalidSpecifier, ValueError):
        return False


def _pinned(ecosystem: Ecosystem, req: str) -> str | None:
    if ecosystem is Ecosystem.PYPI and req.startswith("==") and "*" not in req and "," not in req:
        return req[2:].strip()
    if ecosystem is Ecosystem.CARGO and req.startswith("="):
        return req[1:].strip()
    return None


def find_cycles(edges: Mapping[str, Sequence[str]], limit: int = 20) -> list[list[str]]:
    """
    Cycles of the directed graph `edges` (node → children), each as the node path that closes on
    its first node, found by depth-first search over back edges; at most `limit`, each reported
    once whatever node it was entered from.
    """
    seen_cycles: set[frozenset[str]] = set()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    for start in edges:
        if state.get(start):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, idx = stack.pop()
            if idx == 0:
                state[node] = 1
                path.append(node)
            children = edges.get(node, ())
            if idx < len(children):
                stack.append((node, idx + 1))
                child = children[idx]
                mark = state.get(child, 0)
                if mark == 0:
                    stack.append((child, 0))
                elif mark == 1:
                    cycle = [*path[path.index(child) :], child]
                    key = frozenset(cycle)
                    if key not in seen_cycles and len(cycles) < limit:
                        seen_cycles.add(key)
                        cycles.append(cycle)
            else:
                state[node] = 2
                path.pop()
    return cycles
