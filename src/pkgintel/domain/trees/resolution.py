"""
Pure rules of dependency-tree resolution (`services/trees/` does the fetching).

- `edge_applies`: which declared dependencies an install brings in, by each ecosystem's own rules —
  npm installs runtime, optional and (npm 7+) peer dependencies; PyPI installs `requires_dist`
  entries whose PEP 508 marker holds for the target environment, `extra == "x"` entries only when
  the parent was asked with that extra; Cargo builds normal and build dependencies, optional ones
  only when a feature turns them on (features are off by default here), never dev-dependencies;
  RubyGems installs runtime dependencies, never development ones; Composer installs `require`,
  never `require-dev`, and platform requirements (`php`, `ext-*`, `lib-*`, `composer-plugin-api`,
  ...) are checked against the running PHP, not installed; pub installs `dependencies`, never
  `dev_dependencies`, and SDK packages (`sdk: flutter`) come with the SDK; Hex (mix) leaves
  `optional: true` requirements out unless the project itself asks for the package; NuGet
  restore takes the one dependency group nearest the target framework (`net8.0` by default:
  `nearest_nuget_group`); Go takes every go.mod `require` line, `// indirect` ones too (versions are
  then chosen by minimal version selection, `domain/trees/mvs.py`, not by `pick_version`). The rules of
  each, with their sources, are in `edge_applies` and in docs/api.md.
- `pick_version`: the version of a requirement the installer would pick among the *published* ones,
  in the ecosystem's range grammar (`domain/ranges`) and ordering — the newest (npm, PyPI, Cargo,
  RubyGems, Composer, pub, Hex), the lowest for NuGet. Pre-releases: only when the range names one
  (npm, Cargo, RubyGems, Hex; NuGet when a bound is one), when the specifier mentions one or nothing final satisfies it (PEP 440, and pub's
  `Version.prioritize`: stable first, a pre-release only when no stable version is allowed), or at
  the stability the constraint allows (Composer's minimum-stability `stable`, lowered by `@beta` or
  by naming a less stable version). Yanked releases (PEP 592, Cargo, pub's retracted, NuGet's
  unlisted) only when pinned exactly. None when nothing published satisfies it — the caller reports the edge as
  unresolved rather than inventing a version.
- `one_version_per_name`: whether the installer keeps a single version of each package (all but npm
  and Cargo), and `conflict_why`: the sentence a clash is reported with.
- `find_cycles`: the elementary cycles of the resolved graph, each once.

Conda, Homebrew and CocoaPods: `edge_applies`, `pick_version` and `conflict_why` hand over to
`conda_homebrew_cocoapods.py` (their rules and sources are there). JSR, CRAN, Julia and Hackage: the
same, and `one_version_per_name`, hand over to `jsr_cran_julia_hackage.py`. CPAN: `cpan.py` (CPAN::Meta
ranges over distribution versions, runtime `requires` only; modules → distributions and core modules
in `services/trees/cpan.py`). The families answer with the values of `edges.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError, grammar_for
from pkgintel.domain.trees import conda_homebrew_cocoapods, cpan, jsr_cran_julia_hackage
from pkgintel.domain.trees.edges import EdgeDecision, UnevaluableRequirement
from pkgintel.domain.versions import is_prerelease, sort_key

TREE_ECOSYSTEMS: Final = frozenset(
    {
        Ecosystem.NPM,
        Ecosystem.PYPI,
        Ecosystem.CARGO,
        Ecosystem.RUBYGEMS,
        Ecosystem.COMPOSER,
        Ecosystem.PUB,
        Ecosystem.HEX,
        Ecosystem.NUGET,
        Ecosystem.GO,
        # Conda, Homebrew, CocoaPods: rules in `conda_homebrew_cocoapods.py`
        Ecosystem.CONDA,
        Ecosystem.HOMEBREW,
        Ecosystem.COCOAPODS,
        *jsr_cran_julia_hackage.ECOSYSTEMS,  # JSR, CRAN, Julia, Hackage: `domain/trees/jsr_cran_julia_hackage.py`
        Ecosystem.MAVEN,  # scopes, exclusions, nearest-wins mediation: `domain/trees/maven.py`
        Ecosystem.CPAN,  # modules → distributions, core modules: `domain/trees/cpan.py`
    }
)
"""Ecosystems whose dependency semantics are implemented here."""

_CONDA_HOMEBREW_COCOAPODS: Final = frozenset(
    {Ecosystem.CONDA, Ecosystem.HOMEBREW, Ecosystem.COCOAPODS}
)
"""Dispatched to `conda_homebrew_cocoapods.py`."""

_MULTI_VERSION: Final = frozenset({Ecosystem.NPM, Ecosystem.CARGO})
"""Installers that place several versions of one name side by side (npm nesting, Cargo semver-
incompatible duplicates); every other installer here resolves one version per name."""

_INSTALLER: Final = {
    Ecosystem.PYPI: "pip",
    Ecosystem.RUBYGEMS: "Bundler",
    Ecosystem.COMPOSER: "Composer",
    Ecosystem.PUB: "pub",
    Ecosystem.HEX: "mix",
}

# Composer's own test for a platform package (PlatformRepository::isPlatformPackage):
# https://github.com/composer/composer/blob/main/src/Composer/Repository/PlatformRepository.php
_COMPOSER_PLATFORM: Final = re.compile(
    r"^(?:php(?:-64bit|-ipv6|-zts|-debug)?|hhvm|(?:ext|lib)-[a-z0-9](?:[_.-]?[a-z0-9]+)*"
    r"|composer(?:-(?:plugin|runtime)-api)?)$",
    re.IGNORECASE,
)

_RUNTIME_ONLY: Final = {
    # `gem install`/Bundler install runtime dependencies; development ones are for the gem's own
    # work (https://guides.rubygems.org/specification-reference/#add_development_dependency).
    Ecosystem.RUBYGEMS: "development dependency: gem install and Bundler install runtime ones only",
    # `dev_dependencies` are only the root package's (https://dart.dev/tools/pub/dependencies).
    Ecosystem.PUB: "dev dependency: pub installs only `dependencies` of a dependency",
}
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
    nuget_framework: str = "net8.0"
    """The target framework NuGet dependency groups are chosen for (.NET 8, an LTS release)."""

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


def edge_applies(
    ecosystem: Ecosystem,
    dep: Dependency,
    env: Environment,
    extras: Iterable[str] = (),
    *,
    groups: Sequence[str] | None = None,
) -> EdgeDecision:
    """
    Whether `dep` is installed with its parent (see the module docstring). `groups` (NuGet): the
    target frameworks of every dependency group of the parent's version, empty ones included; the
    dependency's own groups are in its `marker`.
    """
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
    if ecosystem is Ecosystem.RUBYGEMS:
        if dep.kind == "runtime":
            return EdgeDecision(True)
        return EdgeDecision(False, _RUNTIME_ONLY[ecosystem])
    if ecosystem is Ecosystem.COMPOSER:
        # https://getcomposer.org/doc/04-schema.md#require and #require-dev: a dependency's
        # require-dev is never installed; platform packages are checked against the running PHP
        # and its extensions, never downloaded (https://getcomposer.org/doc/01-basic-usage.md#platform-packages).
        if dep.kind == "platform" or _COMPOSER_PLATFORM.match(dep.name):
            return EdgeDecision(
                False,
                "platform requirement: checked against the PHP runtime and its extensions, "
                "not installed from Packagist",
            )
        if dep.kind == "runtime":
            return EdgeDecision(True)
        return EdgeDecision(False, f"{dep.kind} dependency: Composer installs `require` only")
    if ecosystem is Ecosystem.PUB:
        # `sdk: flutter` / `sdk: dart` packages ship with the SDK
        # (https://dart.dev/tools/pub/dependencies#sdk); git/path/hosted sources stay edges
        # (installed, but not from pub.dev: `pick_version` says so).
        if dep.kind == "sdk":
            sdk = dep.requirement.removeprefix("sdk:") or "the"
            return EdgeDecision(False, f"SDK package: provided by {sdk} SDK, not from pub.dev")
        if dep.kind == "runtime" or dep.kind.startswith("source:"):
            return EdgeDecision(True)
        return EdgeDecision(False, _RUNTIME_ONLY[ecosystem])
    if ecosystem is Ecosystem.HEX:
        # mix fetches an `optional: true` requirement only when the project itself (or another
        # package, non-optionally) requires it (https://hexdocs.pm/mix/Mix.Tasks.Deps.html,
        # `:optional`); features are off by default, as for Cargo.
        if dep.kind == "runtime":
            return EdgeDecision(True)
        if dep.kind == "optional":
            return EdgeDecision(
                False, "optional: mix installs it only when the project asks for it"
            )
        return EdgeDecision(False, f"{dep.kind} dependency")
    if ecosystem is Ecosystem.NUGET:
        return _nuget_edge(dep, env.nuget_framework, groups)
    if ecosystem is Ecosystem.GO:
        # every go.mod `require` line, `// indirect` ones too, is part of the module graph MVS
        # reads (https://go.dev/ref/mod#minimal-version-selection); `services/trees/go.py` resolves
        return EdgeDecision(True)
    if ecosystem in _CONDA_HOMEBREW_COCOAPODS:
        return conda_homebrew_cocoapods.edge_applies_b(ecosystem, dep, env.python_version)
    if ecosystem in jsr_cran_julia_hackage.ECOSYSTEMS:
        why = jsr_cran_julia_hackage.skip_reason(ecosystem, dep)
        return EdgeDecision(why is None, why)
    if ecosystem is Ecosystem.CPAN:
        # runtime `requires` only; modules shipped with perl are decided by `services/trees/cpan.py`
        why = cpan.edge_applies(dep)
        return EdgeDecision(why is None, why)
    return EdgeDecision(False, f"{ecosystem.value} dependency semantics are not implemented")


def _nuget_edge(dep: Dependency, target: str, groups: Sequence[str] | None) -> EdgeDecision:
    # Restore takes the one dependency group nearest the project's framework
    # (https://learn.microsoft.com/nuget/concepts/dependency-resolution and
    # https://learn.microsoft.com/nuget/reference/nuspec#dependency-groups).
    own = [g.strip() for g in (dep.marker or "").split(",") if g.strip()]
    if not own:
        return EdgeDecision(True)  # no group information: a framework-agnostic dependency
    chosen = nearest_nuget_group(groups if groups else own, target)
    if chosen is None:
        return EdgeDecision(
            False, f"no dependency group of this version is compatible with {target}"
        )
    if chosen in own:
        return EdgeDecision(True)
    return EdgeDecision(
        False, f"only in the {', '.join(own)} group(s); a {target} project uses the {chosen} group"
    )


_NUGET_FAMILY: Final = (
    (re.compile(r"^net([5-9]|[1-9]\d+)\.(\d+)$", re.IGNORECASE), "core"),
    (re.compile(r"^\.?netcoreapp(\d+)\.(\d+)$", re.IGNORECASE), "core"),
    (re.compile(r"^\.?netstandard(\d+)\.(\d+)$", re.IGNORECASE), "standard"),
    (re.compile(r"^\.netframework(\d+)\.(\d+)(?:\.(\d+))?$", re.IGNORECASE), "framework"),
    (re.compile(r"^net(4)(\d)(\d)?$", re.IGNORECASE), "framework"),
)


def _nuget_framework(name: str) -> tuple[str, tuple[int, ...]] | None:
    """`net8.0` → ("core", (8, 0, 0)); `.NETStandard2.0` → ("standard", (2, 0, 0));
    `.NETFramework4.6.1` and `net461` → ("framework", (4, 6, 1)); `any` → ("any", ()); None for the
    rest (platform TFMs such as `net8.0-windows`, portable profiles, Xamarin...)."""
    text = name.strip()
    if text.lower() in ("any", ""):
        return ("any", ())
    for pattern, family in _NUGET_FAMILY:
        m = pattern.match(text)
        if m:
            parts = tuple(int(g) for g in m.groups() if g is not None)
            return (family, parts + (0,) * (3 - len(parts)))
    return None


def nearest_nuget_group(groups: Sequence[str], target: str) -> str | None:
    """
    The dependency group NuGet restore uses for a project targeting `target` (a `netX.Y`, X ≥ 5):
    the highest .NET (Core) group not above it, else the highest .NET Standard group (2.1 at most),
    else the framework-agnostic group, else — the SDK's `AssetTargetFallback` for .NET projects —
    the highest .NET Framework 4.6.1-4.8.1 group; None when no group is compatible. A simplified
    reading of NuGet's `FrameworkReducer.GetNearest` for that one kind of project.
    """
    parsed_target = _nuget_framework(target)
    if parsed_target is None or parsed_target[0] != "core":
        return None
    limit = parsed_target[1]
    best: dict[str, tuple[tuple[int, ...], str]] = {}
    for group in groups:
        fw = _nuget_framework(group)
        if fw is None:
            continue
        family, version = fw
        ok = (
            (family == "core" and version <= limit)
            or (family == "standard" and version <= (2, 1, 0))
            or family == "any"
            or (family == "framework" and (4, 6, 1) <= version <= (4, 8, 1))
        )
        if ok and (family not in best or version > best[family][0]):
            best[family] = (version, group.strip())
    for family in ("core", "standard", "any", "framework"):
        if family in best:
            return best[family][1]
    return None


def one_version_per_name(ecosystem: Ecosystem) -> bool:
    """True when the installer keeps one version of each package name (pip, Bundler, Composer, pub,
    mix); npm and Cargo place several side by side."""
    if ecosystem in jsr_cran_julia_hackage.ECOSYSTEMS:
        return ecosystem not in jsr_cran_julia_hackage.MULTI_VERSION
    return ecosystem not in _MULTI_VERSION


def conflict_why(ecosystem: Ecosystem) -> str:
    """The sentence a second requirement the kept version does not meet is reported with."""
    if ecosystem in jsr_cran_julia_hackage.ECOSYSTEMS:
        return jsr_cran_julia_hackage.conflict_why(ecosystem)
    if ecosystem is Ecosystem.NUGET:
        # restore moves the one version up to the lowest meeting every range when there is one
        # (NU1608/NU1107 otherwise); the tree keeps the first version chosen and names the clash
        return (
            "NuGet restore keeps one version per name (the lowest meeting every range); the "
            "version this tree kept does not meet this requirement"
        )
    if ecosystem in _CONDA_HOMEBREW_COCOAPODS:
        return conda_homebrew_cocoapods.conflict_why_b(ecosystem)
    if ecosystem is Ecosystem.CPAN:
        return cpan.CONFLICT_WHY
    installer = _INSTALLER.get(ecosystem, ecosystem.value)
    return f"{installer} installs one version per name; this requirement is not met by it"


def pick_version(ecosystem: Ecosystem, releases: Sequence[Release], requirement: str) -> str | None:
    """
    The newest published version `requirement` admits, or None when none does.

    Raises `UnevaluableRequirement` when the requirement is not a range of the ecosystem's grammar
    (npm `git+https:`/`file:`/`npm:` aliases and dist-tags other than `latest`, an unparsable
    specifier): such an edge cannot be resolved from the registry's version list.
    """
    if ecosystem in _CONDA_HOMEBREW_COCOAPODS:
        return conda_homebrew_cocoapods.pick_version_b(ecosystem, releases, requirement)
    req = requirement.strip()
    if ecosystem is Ecosystem.CPAN:
        try:
            return cpan.pick_version(releases, req)
        except RangeSyntaxError as exc:
            raise UnevaluableRequirement(str(exc)) from None
    if ecosystem in jsr_cran_julia_hackage.ECOSYSTEMS:
        try:
            return jsr_cran_julia_hackage.pick_version_a(ecosystem, releases, req)
        except RangeSyntaxError as exc:
            raise UnevaluableRequirement(str(exc)) from None
    grammar = grammar_for(ecosystem)
    if grammar is None:
        raise UnevaluableRequirement(f"{ecosystem.value} ranges are not evaluated")
    if ecosystem is Ecosystem.NPM and req in _NPM_ANY:
        req = "*"
    if ecosystem is Ecosystem.CARGO and req == "":
        req = "*"
    if ecosystem is Ecosystem.RUBYGEMS and req == "":
        req = ">= 0"  # Gem::Requirement.default
    if ecosystem is Ecosystem.PUB and req == "":
        # the pub adapter leaves git, path and other-host sources without a range
        raise UnevaluableRequirement("a git, path or other-host source: no pub.dev version to pick")
    # pub's `Version.prioritize` (pub_semver) prefers every stable version to any pre-release, so
    # the range is read as `allows` and the two passes below apply the preference.
    try:
        rng = grammar.parse(req, include_prerelease=ecosystem is Ecosystem.PUB)
    except RangeSyntaxError as exc:
        raise UnevaluableRequirement(str(exc)) from None
    exact = _pinned(ecosystem, req)
    # NuGet restore takes the *lowest* version in range ("lowest applicable version",
    # https://learn.microsoft.com/nuget/concepts/dependency-resolution); the others the newest.
    ordered = sorted(
        releases,
        key=lambda r: sort_key(ecosystem, r.version),
        reverse=ecosystem is not Ecosystem.NUGET,
    )
    # npm, Cargo, RubyGems, Composer and Hex apply their pre-release rule inside `contains`; for
    # PEP 440 a pre-release is taken only when the specifier names one, or when nothing final
    # satisfies it (PEP 440, pip); pub takes one only when no stable version is allowed.
    finals_first = (ecosystem is Ecosystem.PYPI and not _names_prerelease(req)) or (
        ecosystem is Ecosystem.PUB
    )
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
    if (
        ecosystem is Ecosystem.NUGET
        and req.startswith("[")
        and req.endswith("]")
        and "," not in req
    ):
        return req[1:-1].strip()
    if ecosystem is Ecosystem.PUB and req[:1].isdigit() and " " not in req:
        return req  # a bare version is exactly that version in pub_semver
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
