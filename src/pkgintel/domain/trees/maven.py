"""
Maven's dependency rules for a tree (`services/trees/maven.py` walks the graph with them).

The tree is the root artifact's runtime classpath as Maven resolves it when building the root
(`mvn dependency:tree -Dscope=runtime`): the `compile` and `runtime` dependencies of the root and,
transitively, theirs. Every rule below is from Maven's "Introduction to the Dependency Mechanism"
(https://maven.apache.org/guides/introduction/introduction-to-dependency-mechanism.html, "the
guide" below) unless another source is named.

- Scopes (`edge_scope`): the guide's scope table — a `compile` dependency's `compile` dependencies
  stay `compile`, its `runtime` ones are `runtime`; everything under a `runtime` dependency is
  `runtime`; `provided`, `test` and `system` dependencies of a dependency are not transitive. The
  root's own `provided` (and `system`) dependencies are on its compile classpath only — "provided"
  means the JDK or a container supplies them at run time — and its `test` ones on the test
  classpath: all three are `skipped` with why. `import` is only meaningful for a BOM in
  `dependencyManagement`: it is never an edge.
- Optional (`edge_scope`): "optional dependencies are not transitive" (guide, "Optional
  Dependencies"): a dependency's optional dependencies are left out; the root's own optional ones
  are on its classpath (kind `optional`: a project that depends on the root does not get them).
- Exclusions (`excluded_by`): an `<exclusion>` on an edge removes that artifact from everything
  below the edge; patterns accumulate along the path; `*` matches any groupId or artifactId
  (Maven 3.2.1 and later, https://maven.apache.org/pom.html#exclusions).
- Dependency management (`requirement`): the root's `dependencyManagement` (merged from its parent
  POMs by the adapter) sets the version of every transitive dependency it names, over the version
  the dependency's own POM declares ("the version ... of artifacts to be used when they are
  encountered in transitive dependencies", guide, "Dependency Management"). A POM's own
  versionless dependencies take their version from that POM's own management (the adapter).
  BOMs imported with `<scope>import</scope>` are read by the adapter (explicit entries win); a
  version that only an unreadable BOM manages is unknown, and the edge says so.
- Mediation (`MediationOutcome`): one version per `groupId:artifactId`, "nearest definition" wins,
  and at equal depth the first declaration (guide, "Dependency mediation"). A farther declaration
  is omitted — not an error for Maven ("omitted for conflict with ..." in `dependency:tree`).
- Versions (`pick_version`): a bare `1.2.3` is a soft requirement — that version, which must be
  published (Maven downloads exactly it); a range `[1.0,2.0)` (or a union of ranges) takes the
  highest published version in it in Maven's ordering (`domain/ranges/maven.py`,
  https://maven.apache.org/pom.html#dependency-version-requirement-specification). A range does not
  pick a `-SNAPSHOT` unless a bound names one (Maven Central publishes none). A version that is
  still a `${property}` after the adapter's interpolation is unresolvable, never guessed.

  The root's management also sets the scope of a transitive dependency it names (`managed_scope`).
Left out (named in docs/api.md): profiles (POMs are read as if no profile were active), the root's
managed exclusions over transitive dependencies, BOMs past the adapter's limits, the `type`/`classifier` of an artifact (mediation is
by `groupId:artifactId`), the scope a losing declaration would widen the winner to, and the search
for a version meeting every hard range requirement (a farther range the nearest version does not
meet is reported as a conflict).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

import orjson

from pkgintel.domain.packages import Ecosystem, PackageInfo, Release
from pkgintel.domain.ranges import RangeSyntaxError, grammar_for

MAVEN_DEPENDENCIES: Final = "maven_dependencies"
"""`PackageInfo.extra` key (set by the Maven adapter): JSON list of the version's `<dependency>`
records in document order — `g`, `a`, `v` (version after interpolation, None when neither declared
nor managed), `m` (the version came from dependencyManagement), `s` scope, `o` optional, `x`
exclusion patterns `group:artifact`, `t` type, `c` classifier."""
MAVEN_MANAGED: Final = "maven_managed"
"""`PackageInfo.extra` key: JSON object `groupId:artifactId` → version, the dependencyManagement
of the POM and its parents (entries whose version does not interpolate are left out)."""
MAVEN_MANAGED_SCOPES: Final = "maven_managed_scopes"
"""`PackageInfo.extra` key: JSON object `groupId:artifactId` → the scope the POM chain's
dependencyManagement gives it (only entries that name a scope)."""
MAVEN_BOMS: Final = "maven_boms"
"""`PackageInfo.extra` key: the BOMs the POM chain imports that could not be read
(`group:artifact:version`, comma separated)."""

TRANSITIVE_SCOPES: Final = frozenset({"compile", "runtime"})
_NOT_ON_RUNTIME_CLASSPATH: Final = {
    "provided": "provided scope: expected from the JDK or a container at run time, and not "
    "transitive (Maven scope table)",
    "system": "system scope: a file on the build machine, not from a repository, and not "
    "transitive (Maven scope table)",
    "test": "test scope: only on the test classpath, and not transitive (Maven scope table)",
    "import": "import scope: a BOM merged into dependencyManagement, not a dependency",
}


@dataclass(frozen=True, slots=True)
class MavenDependency:
    """One `<dependency>` of a POM (after inheritance and interpolation)."""

    group: str
    artifact: str
    version: str | None
    """The version as declared or managed; may still hold a `${...}` placeholder."""
    managed: bool = False
    """The version came from the POM chain's dependencyManagement."""
    scope: str = "compile"
    optional: bool = False
    exclusions: tuple[str, ...] = ()
    type: str = "jar"
    classifier: str | None = None

    @property
    def name(self) -> str:
        return f"{self.group}:{self.artifact}"


def dependencies_of(info: PackageInfo) -> tuple[tuple[MavenDependency, ...], bool]:
    """
    The version's dependencies and whether they carry the full record (scope, optional,
    exclusions). A snapshot stored before the adapter recorded them falls back to
    `PackageInfo.dependencies` (scope from the kind, no exclusions): the flag is then False.
    """
    raw = info.extra.get(MAVEN_DEPENDENCIES)
    if raw is not None:
        out = []
        for r in orjson.loads(raw):
            out.append(
                MavenDependency(
                    group=r["g"],
                    artifact=r["a"],
                    version=r.get("v"),
                    managed=bool(r.get("m")),
                    scope=r.get("s") or "compile",
                    optional=bool(r.get("o")),
                    exclusions=tuple(r.get("x") or ()),
                    type=r.get("t") or "jar",
                    classifier=r.get("c"),
                )
            )
        return tuple(out), True
    kinds = {"runtime": "compile", "optional": "compile", "dev": "test", "provided": "provided"}
    fallback = []
    for dep in info.dependencies:
        group, _, artifact = dep.name.partition(":")
        fallback.append(
            MavenDependency(
                group=group,
                artifact=artifact,
                version=dep.requirement or None,
                scope=kinds.get(dep.kind, dep.kind),
                optional=dep.kind == "optional",
            )
        )
    return tuple(fallback), False


def managed_versions(info: PackageInfo, key: str = MAVEN_MANAGED) -> dict[str, str]:
    """The POM chain's dependencyManagement versions (`groupId:artifactId` → version), or with
    `key=MAVEN_MANAGED_SCOPES` its managed scopes."""
    raw = info.extra.get(key)
    if not raw:
        return {}
    data = orjson.loads(raw)
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


@dataclass(frozen=True, slots=True)
class ScopeDecision:
    scope: str | None
    """The scope the dependency gets on the root's classpath (`compile`, `runtime`), or None."""
    why: str | None = None
    """Why it is not on the classpath."""


def edge_scope(parent_scope: str | None, dep: MavenDependency) -> ScopeDecision:
    """
    The scope `dep` gets below a node of `parent_scope` (None for the root itself), or why it is
    left out (module contract: scope table, optional dependencies).
    """
    declared = dep.scope.strip().lower() or "compile"
    if declared not in TRANSITIVE_SCOPES:
        why = _NOT_ON_RUNTIME_CLASSPATH.get(declared, f"unknown scope {declared!r}")
        if parent_scope is None and declared in ("provided", "system"):
            why = why.replace(", and not transitive (Maven scope table)", "") + (
                ": on the root's compile classpath only"
            )
        return ScopeDecision(None, why)
    if parent_scope is None:
        return ScopeDecision(declared)
    if dep.optional:
        # "Optional dependencies are not transitive" (guide, Optional Dependencies)
        return ScopeDecision(None, "optional dependency of a dependency: not transitive")
    # The guide's table: compile × compile → compile, compile × runtime → runtime,
    # runtime × (compile | runtime) → runtime.
    if parent_scope == "compile" and declared == "compile":
        return ScopeDecision("compile")
    return ScopeDecision("runtime")


def managed_scope(
    parent_scope: str, dep: MavenDependency, root_scopes: Mapping[str, str]
) -> ScopeDecision | None:
    """
    The root's dependencyManagement scope for a transitive dependency that passed `edge_scope`
    (None when the root manages no scope for it): it replaces the declared scope — a managed
    `provided`, `test` or `system` takes the artifact off the runtime classpath, a managed
    `runtime` or `compile` goes through the scope table again ("dependency management ... of
    artifacts ... encountered in transitive dependencies", guide; Maven's resolver manages the
    scope with the version, after the declared scope has selected the dependency).
    """
    scope = root_scopes.get(dep.name)
    if scope is None or scope == dep.scope:
        return None
    if scope not in TRANSITIVE_SCOPES:
        return ScopeDecision(
            None,
            f"{scope} scope set by the root's dependencyManagement: not on the runtime classpath",
        )
    return edge_scope(parent_scope, replace(dep, scope=scope))


def _matches(pattern: str, group: str, artifact: str) -> bool:
    pg, _, pa = pattern.partition(":")
    return pg in ("*", group) and pa in ("*", "", artifact)


def excluded_by(dep: MavenDependency, exclusions: Iterable[tuple[str, str]]) -> str | None:
    """The `(pattern, edge)` exclusion that removes `dep`, as a sentence, or None.

    `exclusions` are `(pattern, edge that declared it)` accumulated along the path from the root."""
    for pattern, edge in exclusions:
        if _matches(pattern, dep.group, dep.artifact):
            return f"excluded by <exclusion> {pattern} on {edge}"
    return None


class UnresolvableVersion(ValueError):
    """The dependency's version cannot be known (a placeholder, none declared or managed)."""


def requirement(
    dep: MavenDependency,
    *,
    transitive: bool,
    root_managed: Mapping[str, str],
    boms: str | None = None,
) -> tuple[str, str]:
    """
    `(requirement, source)` for `dep`: the root's dependencyManagement version for a transitive
    dependency it names (source `managed by the root`), else the version its POM declares or
    manages. Raises `UnresolvableVersion` with the reason when the version is unknown.
    """
    if transitive and dep.name in root_managed:
        return root_managed[dep.name], "dependencyManagement of the root"
    version = (dep.version or "").strip()
    if not version:
        where = f"; the imported BOM(s) {boms} could not be read" if boms else ""
        raise UnresolvableVersion(
            f"no version declared and none in the POM chain's dependencyManagement{where}"
        )
    if "${" in version:
        raise UnresolvableVersion(
            f"version {version} names a property no POM in the chain defines (profiles and "
            "settings are not read)"
        )
    return version, "dependencyManagement of its POM" if dep.managed else "declared"


def is_range(text: str) -> bool:
    """True for a Maven range or union of ranges (`[1.0,2.0)`, `[1.5]`, `(,1.0],[1.2,)`)."""
    return text.strip().startswith(("[", "("))


def pick_version(releases: Sequence[Release], text: str) -> str | None:
    """
    The version Maven takes for requirement `text` among the published `releases`: a soft
    requirement is that exact version (None when it is not published); a range is the highest
    published version in it (no `-SNAPSHOT` unless the range names one). Raises
    `UnresolvableVersion` for a range that does not parse.
    """
    req = text.strip()
    if not is_range(req):
        return req if any(r.version == req for r in releases) else None
    grammar = grammar_for(Ecosystem.MAVEN)
    assert grammar is not None
    try:
        rng = grammar.parse(req)
    except RangeSyntaxError as exc:
        raise UnresolvableVersion(str(exc)) from None
    snapshots = "SNAPSHOT" in req.upper()
    # releases are ordered oldest → newest in Maven's order (PackageInfo contract)
    for rel in reversed(releases):
        if rel.version.upper().endswith("-SNAPSHOT") and not snapshots:
            continue
        if rng.contains(rel.version):
            return rel.version
    return None


def meets(version: str, text: str) -> bool:
    """True when `version` meets requirement `text` as Maven reads it after mediation: a soft
    requirement is met by any version; a range only by a version inside it."""
    req = text.strip()
    if not is_range(req):
        return True
    grammar = grammar_for(Ecosystem.MAVEN)
    assert grammar is not None
    try:
        return grammar.parse(req).contains(version)
    except RangeSyntaxError:
        return False


def nearest_wins(names: Sequence[str], placed: Collection[str]) -> tuple[list[int], list[int]]:
    """
    Mediation over one breadth-first level: `names` are the `groupId:artifactId` of the level's
    declarations in order (parents in the order they were placed, each parent's dependencies in
    document order), `placed` the artifacts decided at nearer levels (the root among them).
    Returns the indices that decide their artifact's version (the first declaration of an
    artifact not placed nearer) and those that are omitted — "nearest definition" first, then
    "the first declaration wins" at equal depth (guide, "Dependency mediation").
    """
    winners: list[int] = []
    losers: list[int] = []
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in placed or name in seen:
            losers.append(i)
        else:
            seen.add(name)
            winners.append(i)
    return winners, losers


@dataclass(frozen=True, slots=True)
class MediationOutcome:
    """What happens to a declaration of an artifact already placed nearer the root."""

    duplicate: bool
    """Same version as the kept one (`omitted for duplicate`): nothing to report."""
    conflict: dict[str, str] | None
    """The `conflicts` entry to report, or None."""


def mediate(
    name: str, requirement_text: str, required_by: str, kept_id: str, kept_version: str
) -> MediationOutcome:
    """
    A farther (or later, at equal depth) declaration of `name` meets the version already kept.
    Nearest definition wins (guide, "Dependency mediation"); a soft version other than the kept
    one is "omitted for conflict" — Maven's normal outcome, `mediation: nearest_wins`; a range the
    kept version is outside of is a hard requirement Maven cannot honour alongside it
    (`mediation: range_not_met`, https://maven.apache.org/pom.html#dependency-version-requirement-specification).
    """
    req = requirement_text.strip()
    if req == kept_version:
        return MediationOutcome(True, None)

    def conflict(mediation: str, why: str) -> MediationOutcome:
        entry = {"package": name, "requirement": req, "required_by": required_by, "kept": kept_id}
        return MediationOutcome(False, {**entry, "mediation": mediation, "why": why})

    if not is_range(req):
        return conflict(
            "nearest_wins",
            f"omitted for conflict with {kept_version}: Maven's nearest definition wins "
            "(the declaration nearer the root, or declared first at the same depth); "
            "not an error",
        )
    if meets(kept_version, req):
        return MediationOutcome(True, None)
    return conflict(
        "range_not_met",
        f"the nearest definition keeps {kept_version}, outside this hard range "
        "requirement: Maven fails with a version conflict unless another version meets "
        "every range (not searched here)",
    )


__all__ = [
    "MAVEN_BOMS",
    "MAVEN_DEPENDENCIES",
    "MAVEN_MANAGED",
    "MAVEN_MANAGED_SCOPES",
    "MavenDependency",
    "MediationOutcome",
    "ScopeDecision",
    "UnresolvableVersion",
    "dependencies_of",
    "edge_scope",
    "excluded_by",
    "is_range",
    "managed_scope",
    "managed_versions",
    "mediate",
    "meets",
    "nearest_wins",
    "pick_version",
    "requirement",
]
