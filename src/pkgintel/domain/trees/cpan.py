"""
CPAN prerequisite rules, pure (the first part of CPAN dependency trees, issue 32 item 6).

- **Version ranges** (CPAN::Meta::Spec, "Version Ranges":
  https://metacpan.org/pod/CPAN::Meta::Spec#Version-Ranges): a comma-separated list of simple
  ranges `>= 1.2`, `<= 2`, `> 1`, `< 2`, `== 1.5`, `!= 1.3`, all of which must hold; a bare version
  `1.2` means `>= 1.2`, and `0` (or nothing) means any version. Versions compare by Perl's
  `version.pm` rules (`domain/versions/cpan.py`: `1.2` = v1.200, `v1.2.3` dotted).
- **What an install follows**: only `runtime` `requires` prerequisites (the adapter's `runtime`
  kind); `recommends`/`suggests` and the configure/build/test phases are not installed for a user
  of the distribution. `perl` itself is never a package.
- **Core modules**: a module that ships with perl (`knowledge/cpan_core`, Module::CoreList for one
  perl release) needs no install when the version perl ships meets the range; a core module whose
  shipped version is too old (a dual-life module such as `Test::More >= 1.4`) is installed from
  CPAN like any other.

- **Modules and distributions**: a prerequisite names a *module* and bounds the module's version,
  while release lists give *distribution* versions. For the distribution's main module
  (`Foo::Bar` of `Foo-Bar`) the distribution version is the module version (`distribution_range`);
  any other module's version is not the distribution's, so a non-zero requirement on it cannot be
  checked against the release list and is `UnevaluableRequirement` with the reason, never guessed.
- **One version per distribution**: cpanm installs into one library path, where a distribution has
  one installed version (`CONFLICT_WHY`).

Every function here raises `RangeSyntaxError` for text outside the grammar (`distribution_range`:
`UnevaluableRequirement`), never guesses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.versions import is_prerelease, is_valid, sort_key

_ECO: Final = Ecosystem.CPAN
_CLAUSE: Final = re.compile(r"^(>=|<=|==|!=|>|<)?\s*(\S+)$")

CONFLICT_WHY: Final = (
    "cpanm installs one version of a distribution into the library path; the version this tree "
    "kept does not meet this requirement"
)


@dataclass(frozen=True, slots=True)
class CpanRange:
    """A parsed CPAN::Meta version range: (operator, version) clauses that must all hold."""

    clauses: tuple[tuple[str, str], ...]

    def contains(self, version: str) -> bool:
        """True when `version` meets every clause (False for a version that is no CPAN version)."""
        if not is_valid(_ECO, version):
            return False
        key = sort_key(_ECO, version)
        for op, bound in self.clauses:
            other = sort_key(_ECO, bound)
            ok = {
                ">=": key >= other,
                "<=": key <= other,
                ">": key > other,
                "<": key < other,
                "==": key == other,
                "!=": key != other,
            }[op]
            if not ok:
                return False
        return True


def parse_range(text: str) -> CpanRange:
    """The range `text` states (see the module contract); `RangeSyntaxError` outside the grammar."""
    clauses: list[tuple[str, str]] = []
    stripped = text.strip()
    if not stripped:
        return CpanRange(())
    for part in stripped.split(","):
        match = _CLAUSE.match(part.strip())
        if match is None or not is_valid(_ECO, match.group(2)):
            raise RangeSyntaxError(
                "CPAN::Meta",
                text,
                f"{part.strip()!r} is not '[op] version' (op >=, <=, >, <, ==, !=)",
            )
        op, bound = match.group(1) or ">=", match.group(2)
        if not (op == ">=" and sort_key(_ECO, bound) == sort_key(_ECO, "0")):
            clauses.append((op, bound))
    return CpanRange(tuple(clauses))


def requirement_met(version: str, requirement: str) -> bool | None:
    """Whether `version` meets `requirement`; None when the requirement does not parse."""
    try:
        return parse_range(requirement).contains(version)
    except RangeSyntaxError:
        return None


def pick_version(releases: Sequence[Release], requirement: str) -> str | None:
    """
    The release cpanm installs for `requirement`: the newest release in range that is neither a
    developer release (`_`, TRIAL) nor withdrawn — unless the range names that version exactly —
    or None when no release is in range. Raises `RangeSyntaxError` outside the grammar.
    """
    rng = parse_range(requirement)
    exact = {b for op, b in rng.clauses if op == "=="}
    ordered = sorted(releases, key=lambda r: sort_key(_ECO, r.version), reverse=True)
    for release in ordered:
        named = release.version in exact
        if (release.yanked or is_prerelease(_ECO, release.version)) and not named:
            continue
        if rng.contains(release.version):
            return release.version
    return None


def installed_with_perl(
    dependency: Dependency, core: dict[str, str | None], perl: str
) -> str | None:
    """
    Why an install does not fetch `dependency` from CPAN because perl `perl` ships it (a sentence),
    or None when it must be installed. A core module without a declared version meets only an
    "any version" requirement. Raises `RangeSyntaxError` outside the grammar.
    """
    if dependency.name not in core:
        return None
    shipped = core[dependency.name]
    rng = parse_range(dependency.requirement)
    if not rng.clauses:
        return f"ships with perl {perl}"
    if shipped is not None and rng.contains(shipped):
        return f"ships with perl {perl} at {shipped}, which meets {dependency.requirement!r}"
    return None


def edge_applies(dependency: Dependency) -> str | None:
    """None when an install follows this prerequisite; otherwise why it does not."""
    if dependency.name == "perl":
        return "perl itself, not a CPAN package"
    if dependency.kind != "runtime":
        return f"{dependency.kind} prerequisite: not installed for a user of the distribution"
    return None


def distribution_range(
    module: str, requirement: str, distribution: str, main_module: str | None
) -> str:
    """
    The range the version of `distribution` must meet for the prerequisite `module` at
    `requirement`: the requirement itself when `module` is the distribution's main module, "0"
    (any version) when the requirement admits any version. Raises `UnevaluableRequirement` with
    the reason for a bounded requirement on another module, or for text outside the grammar.
    """
    try:
        rng = parse_range(requirement)
    except RangeSyntaxError as exc:
        raise UnevaluableRequirement(str(exc)) from None
    if not rng.clauses:
        return "0"
    if module == main_module:
        return requirement
    raise UnevaluableRequirement(
        f"{module} {requirement!r} bounds the version of a module that is not the main module of "
        f"{distribution} ({main_module or 'none declared'}): the module's own version is not the "
        "distribution's, and MetaCPAN's release list gives distribution versions only"
    )
