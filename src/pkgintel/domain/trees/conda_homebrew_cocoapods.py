"""
Dependency-tree rules for Conda, Homebrew and CocoaPods (pure; `dependency_tree` dispatches here,
`services/trees/conda_homebrew_cocoapods.py` walks). Each follows its installer's own documentation:

- **Conda** (`conda install`): a version's edges are the `depends` match specs of the one build the
  adapter reads (noarch, else linux-64, the newest upload; `extra["dependencies_platform"]`). The
  version part is a conda `VersionSpec` (`domain/ranges/conda.py`); the build-string part selects
  among a version's builds and is not evaluated (the tree resolves versions, not builds). Virtual
  packages (`__glibc`, `__cuda`, `__osx`, ...: "injected into the solver" for system features
  conda cannot install, https://docs.conda.io/projects/conda/en/stable/user-guide/tasks/manage-virtual.html)
  and `python` (the interpreter the environment is built on, the conda counterpart of the PyPI
  tree's target Python) are `skipped` as platform, never `unresolved`. Versions: the newest
  release the spec admits; conda's matcher has no pre-release rule; a version with no build under
  the `main` label (the adapter's yanked) is not in the channel's installable index and is never
  picked. One version per name. conda's real solver is a SAT solver over builds that backtracks;
  this is a newest-in-spec walk without backtracking.
- **Homebrew** (`brew install`): a formula's `dependencies` and `:recommended` ones (installed
  unless `--without-<name>`), not `:optional` ones (only with `--with-<name>`)
  (https://rubydoc.brew.sh/Formula.html#depends_on-class_method); build and test dependencies only
  when building from source, never for a bottle. `uses_from_macos` formulae are provided by macOS
  (https://docs.brew.sh/Formula-Cookbook#specifying-other-formulae-as-dependencies): the tree is for
  macOS, where they are `skipped`; on Linux brew installs them. Homebrew serves one version of
  each formula, the current one, so an edge has no range and resolves to that version.
- **CocoaPods** (`pod install`): a podspec's `dependencies` with `Pod::Requirement`s — the
  RubyGems operators (`~>`, `>=`, `=`, ...; https://guides.cocoapods.org/using/the-podfile.html),
  a pre-release only when a requirement names one (the resolver's `prerelease?` rule).
  `Pod/Subspec` resolves to the pod `Pod`; installing a pod brings its root dependencies and those
  of the subspecs asked for (with their parents' and the same-pod subspecs they require), the
  `default_subspecs` when the pod is asked for by name, every subspec when there are none
  (https://guides.cocoapods.org/syntax/podspec.html#default_subspecs). Platform-specific
  dependencies are those of iOS (the tree's target platform); others are `skipped`. One version per
  name; Molinillo backtracks, this walk does not.

Swift is not here: the Swift adapter reads tags from the code host, and SwiftPM declares
dependencies in `Package.swift`, Swift code that no source we read serves as data — the registry
specification's manifest endpoint (https://github.com/swiftlang/swift-package-manager/blob/main/Documentation/PackageRegistry/Registry.md,
4.3) returns that Swift source, and GitHub's dependency graph reads only `Package.resolved`
(https://docs.github.com/code-security/supply-chain-security/understanding-your-software-supply-chain/dependency-graph-supported-package-ecosystems),
a repository's own pins (`UNSUPPORTED_WHY`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import orjson

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError, VersionRange
from pkgintel.domain.ranges.conda import CondaGrammar
from pkgintel.domain.ranges.rubygems import RubyGemsGrammar
from pkgintel.domain.trees.edges import EdgeDecision, UnevaluableRequirement
from pkgintel.domain.versions import sort_key

ECOSYSTEMS: Final = frozenset({Ecosystem.CONDA, Ecosystem.HOMEBREW, Ecosystem.COCOAPODS})

UNSUPPORTED_WHY: Final = {
    Ecosystem.SWIFT: (
        "swift dependency trees are not resolvable here: SwiftPM declares a package's dependencies "
        "in Package.swift, Swift code that only the Swift toolchain evaluates (a package "
        "registry's manifest endpoint serves the same code), and no source this service reads "
        "publishes them as data — the Swift Package Index list gives repository URLs, the code "
        "host's API tags and releases, and GitHub's dependency graph only a repository's own "
        "Package.resolved pins, not what SwiftPM resolves for a consumer — so no version's "
        "dependencies are known, and none are guessed"
    ),
}
"""Ecosystems with an adapter but no tree, and why (the 422 detail)."""

COCOAPODS_PLATFORM: Final = "ios"
"""The platform CocoaPods trees are resolved for (platform-specific dependencies of others are
skipped)."""

HOMEBREW_PLATFORM: Final = "macOS"

_CONDA: Final = CondaGrammar()
_PODS: Final = RubyGemsGrammar()
_CONFLICT: Final = {
    Ecosystem.CONDA: (
        "conda installs one version per name; the version this tree kept does not meet this "
        "spec (conda's SAT solver might settle on another that meets both)"
    ),
    Ecosystem.HOMEBREW: "Homebrew installs one version per formula",
    Ecosystem.COCOAPODS: (
        "CocoaPods installs one version per pod; the version this tree kept does not meet this "
        "requirement (Molinillo might backtrack to one that meets both)"
    ),
}


def edge_applies_b(ecosystem: Ecosystem, dep: Dependency, python_version: str) -> EdgeDecision:
    """Whether `dep` is installed with its parent (see the module contract)."""
    if ecosystem is Ecosystem.CONDA:
        if dep.name.startswith("__"):
            return EdgeDecision(
                False,
                "virtual package: a system feature conda detects (glibc, CUDA driver, OS), "
                "never installed",
            )
        if dep.name == "python":
            return EdgeDecision(False, _python_why(dep.requirement, python_version))
        return EdgeDecision(True)
    if ecosystem is Ecosystem.HOMEBREW:
        if dep.kind in ("runtime", "recommended"):
            return EdgeDecision(True)
        if dep.kind == "uses_from_macos":
            return EdgeDecision(
                False,
                "uses_from_macos: provided by macOS (this tree is for macOS; on Linux brew "
                "installs it as a dependency)",
            )
        if dep.kind == "optional":
            return EdgeDecision(False, "optional: installed only with --with-" + dep.name)
        return EdgeDecision(False, f"{dep.kind} dependency: not installed with a bottle")
    if ecosystem is Ecosystem.COCOAPODS:
        if dep.marker is not None and dep.marker != COCOAPODS_PLATFORM:
            return EdgeDecision(
                False, f"only on {dep.marker}; this tree is for {COCOAPODS_PLATFORM}"
            )
        return EdgeDecision(True)
    return EdgeDecision(False, f"{ecosystem.value} dependency semantics are not implemented")


def _python_why(spec: str, python_version: str) -> str:
    why = (
        "the Python interpreter: the environment's own (conda installs it once per environment; "
        "not expanded here)"
    )
    if not spec:
        return why
    try:
        admits = _CONDA.parse(spec).contains(python_version)
    except RangeSyntaxError:
        return why
    return why + (
        f"; this build asks python {spec}, which "
        + ("admits" if admits else "does not admit")
        + f" Python {python_version}"
    )


def _range(ecosystem: Ecosystem, requirement: str) -> VersionRange:
    """A conda or CocoaPods requirement parsed; raises `UnevaluableRequirement` outside the
    grammar."""
    req = requirement.strip()
    try:
        if ecosystem is Ecosystem.CONDA:
            return _CONDA.parse(req)
        return _PODS.parse(req or ">= 0")  # an empty Pod::Requirement is `>= 0`
    except RangeSyntaxError as exc:
        raise UnevaluableRequirement(str(exc)) from None


TAP_WHY: Final = "a formula from another tap: formulae.brew.sh serves homebrew/core and casks only"


def is_tap_formula(name: str) -> bool:
    """`user/tap/formula`: a formula of a third-party tap (not on formulae.brew.sh)."""
    return name.count("/") >= 2 and not name.startswith("homebrew/core/")


def pick_version_b(
    ecosystem: Ecosystem, releases: Sequence[Release], requirement: str
) -> str | None:
    """
    The version the installer takes for `requirement` among the published `releases`, or None.
    Raises `UnevaluableRequirement` for a requirement outside the ecosystem's grammar (any
    Homebrew range: Homebrew dependencies have none).
    """
    if ecosystem is Ecosystem.HOMEBREW:
        if requirement.strip():
            raise UnevaluableRequirement("Homebrew dependencies carry no version range")
        current = [r for r in releases if not r.yanked]
        return current[-1].version if current else None
    rng = _range(ecosystem, requirement)
    ordered = sorted(releases, key=lambda r: sort_key(ecosystem, r.version), reverse=True)
    for rel in ordered:
        if rel.yanked:
            continue  # conda: no build under `main`, not in the installable index
        if rng.contains(rel.version):
            return rel.version
    return None


def requirement_met_b(ecosystem: Ecosystem, version: str, requirement: str) -> bool | None:
    """Whether `version` (already in the tree) meets `requirement`; None when it cannot be told."""
    if ecosystem is Ecosystem.HOMEBREW:
        return True if not requirement.strip() else None
    try:
        rng = (
            _CONDA.parse(requirement)
            if ecosystem is Ecosystem.CONDA
            else _PODS.parse(requirement.strip() or ">= 0", include_prerelease=True)
        )
    except RangeSyntaxError:
        return None
    return rng.contains(version)


def conflict_why_b(ecosystem: Ecosystem) -> str:
    return _CONFLICT[ecosystem]


POD_ITSELF: Final = ""
"""In `pod_subspecs`' `asked`: the pod asked for by name (its default subspecs)."""


def pod_subspecs(extra: Mapping[str, str], asked: Iterable[str] | None) -> list[str]:
    """
    The subspecs of a pod an install brings in: those `asked` (None, or `POD_ITSELF` among them:
    the pod asked for by name, so its `default_subspecs`, or every top-level subspec when the
    podspec names none; `none`: only the root), each with its parents, its own subspecs (a subspec
    asked for by name brings all of its children) and the same-pod subspecs it requires,
    transitively. Names the pod does not have are dropped (`missing_subspecs` names them).
    """
    known = [s.strip() for s in extra.get("subspecs", "").split(",") if s.strip()]
    if not known:
        return []
    wanted = [POD_ITSELF] if asked is None else list(asked)
    start: list[str] = []
    if POD_ITSELF in wanted:
        default = extra.get("default_subspecs")
        if default and default != "none":
            start = [s.strip() for s in default.split(",") if s.strip()]
        elif not default:
            start = [s for s in known if "/" not in s]
    by_lower = {k.lower(): k for k in known}  # the request's `extras` arrive lower-cased
    start += [by_lower.get(a.lower(), a) for a in wanted if a != POD_ITSELF]
    try:
        requires = orjson.loads(extra.get("subspec_requires", "{}"))
    except orjson.JSONDecodeError:
        requires = {}
    if not isinstance(requires, dict):
        requires = {}
    chosen: set[str] = set()
    todo = list(start) + [r for r in requires.get("", []) if isinstance(r, str)]
    while todo:
        path = todo.pop(0)
        if path in chosen or path not in known:
            continue
        chosen.add(path)
        depth = path.count("/") + 1
        todo.extend(s for s in known if s.startswith(path + "/") and s.count("/") == depth)
        todo.extend(r for r in requires.get(path, []) if isinstance(r, str))
    # a subspec inherits its parents' dependencies, not their other subspecs
    inherited = {"/".join(p.split("/")[:i]) for p in chosen for i in range(1, p.count("/") + 1)}
    return [s for s in known if s in chosen | inherited]


def missing_subspecs(extra: Mapping[str, str], asked: Iterable[str]) -> list[str]:
    """The `asked` subspec names (not `POD_ITSELF`) this version of the pod does not have."""
    known = {s.strip().lower() for s in extra.get("subspecs", "").split(",") if s.strip()}
    return [a for a in asked if a != POD_ITSELF and a.lower() not in known]
