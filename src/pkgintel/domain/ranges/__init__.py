"""
Version ranges in each ecosystem's own grammar (pure). One extension point, one folder:
`base.py` is the contract (`RangeGrammar`, `VersionRange`, `RangeSyntaxError`), one module per
grammar, and `GRAMMARS` below is the literal registry by ecosystem.

| ecosystem | grammar | semantics from |
|---|---|---|
| PyPI | `pep440.Pep440Grammar` | `packaging.specifiers.SpecifierSet` (pip's) |
| npm | `npm.NpmGrammar` | node-semver 7 `Range` (desugaring and pre-release rule) |
| Cargo | `cargo.CargoGrammar` | the `semver` crate's `VersionReq` (caret by default) |
| RubyGems | `rubygems.RubyGemsGrammar` | `Gem::Requirement` (`~>` pessimistic) |
| Maven | `maven.MavenGrammar` | maven-artifact `VersionRange` (intervals, soft requirement) |
| NuGet | `nuget.NuGetGrammar` | NuGet.Versioning `VersionRange` (bare version = minimum) |
| Composer | `composer.ComposerGrammar` | composer/semver `VersionParser::parseConstraints` |
| Pub | `pub.PubGrammar` | pub_semver `VersionConstraint.parse` |
| Hex | `hex.HexGrammar` | Elixir `Version` requirements (`~>`, `and`/`or`) |
| Hackage | `hackage.HackageGrammar` | Cabal's `VersionRange` (`^>=`, `== 1.2.*`, version sets) |
| conda | `conda.CondaGrammar(caller_text=True)` | conda's `VersionSpec` (`,` and `|`, `=1.2`, `~=`) |

Go has no range grammar: the go command uses minimal version selection over exact `require`
versions, so there is nothing to evaluate (see docs/versions.md). conda's registered grammar
refuses `^...$` clauses: they are regular expressions, which a caller's text must not get to run.
The dependency tree, over registry data, evaluates them with `CondaGrammar()`.

Adding a scheme: write `<scheme>.py` with a class satisfying `RangeGrammar` (its `parse`
raises `RangeSyntaxError`; its range's `contains` never raises and uses the ecosystem's own
ordering from `pkgintel.domain.versions`), add one line to `GRAMMARS`, and run the scheme's
reference vectors as a table-driven test (see docs/versions.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeGrammar, RangeSyntaxError, VersionRange
from pkgintel.domain.ranges.cargo import CargoGrammar
from pkgintel.domain.ranges.composer import ComposerGrammar
from pkgintel.domain.ranges.conda import CondaGrammar
from pkgintel.domain.ranges.hackage import HackageGrammar
from pkgintel.domain.ranges.hex import HexGrammar
from pkgintel.domain.ranges.maven import MavenGrammar
from pkgintel.domain.ranges.npm import NpmGrammar
from pkgintel.domain.ranges.nuget import NuGetGrammar
from pkgintel.domain.ranges.pep440 import Pep440Grammar
from pkgintel.domain.ranges.pub import PubGrammar
from pkgintel.domain.ranges.rubygems import RubyGemsGrammar
from pkgintel.domain.versions import is_valid

__all__ = [
    "GRAMMARS",
    "RangeGrammar",
    "RangeSyntaxError",
    "VersionRange",
    "grammar_for",
    "major_of",
    "parse_range",
    "requirement_met",
    "satisfies",
]

GRAMMARS: Final[Mapping[Ecosystem, RangeGrammar]] = MappingProxyType(
    {
        Ecosystem.PYPI: Pep440Grammar(),
        Ecosystem.NPM: NpmGrammar(),
        Ecosystem.CARGO: CargoGrammar(),
        Ecosystem.RUBYGEMS: RubyGemsGrammar(),
        Ecosystem.MAVEN: MavenGrammar(),
        Ecosystem.NUGET: NuGetGrammar(),
        Ecosystem.COMPOSER: ComposerGrammar(),
        Ecosystem.PUB: PubGrammar(),
        Ecosystem.HEX: HexGrammar(),
        Ecosystem.HACKAGE: HackageGrammar(),
        Ecosystem.CONDA: CondaGrammar(caller_text=True),
    }
)
"""Every ecosystem whose native range syntax we evaluate → its grammar."""


def grammar_for(ecosystem: Ecosystem) -> RangeGrammar | None:
    """The ecosystem's grammar, or None when its range syntax is not evaluated (yet)."""
    return GRAMMARS.get(ecosystem)


def parse_range(
    ecosystem: Ecosystem, text: str, *, include_prerelease: bool = False
) -> VersionRange:
    """`text` parsed in `ecosystem`'s grammar. Raises `RangeSyntaxError` (an `InvalidInput`) when
    the text is not in the grammar or the ecosystem has none."""
    grammar = GRAMMARS.get(ecosystem)
    if grammar is None:
        raise RangeSyntaxError(ecosystem.value, text, "ranges are not evaluated for this ecosystem")
    return grammar.parse(text, include_prerelease=include_prerelease)


def satisfies(
    ecosystem: Ecosystem, version: str, text: str, *, include_prerelease: bool = False
) -> bool:
    """True when `version` is in the range `text`; False when it is not or the text is not a range
    of the ecosystem's grammar (node-semver's `satisfies` contract)."""
    try:
        rng = parse_range(ecosystem, text, include_prerelease=include_prerelease)
    except RangeSyntaxError:
        return False
    return rng.contains(version)


_NPM_UNEVALUABLE = re.compile(
    r"^(npm:|workspace:|file:|link:|git|github:|https?:|[\w.-]+/[\w.-]+(#.*)?$)"
)
_MATCHING_PRERELEASE_RULE = frozenset({Ecosystem.NPM, Ecosystem.CARGO})
_NPM_TAG = re.compile(r"^[A-Za-z][\w.-]*$")


def requirement_met(ecosystem: Ecosystem, version: str, requirement: str) -> bool | None:
    """
    Whether a declared requirement (a dependency's or a peer's range, `engines`, `requires_python`)
    admits `version`: True/False, or None when it cannot be told — the ecosystem has no grammar
    here, the requirement is not a range (npm aliases, git/file/URL specs, dist-tags) or either side
    does not parse. An empty requirement, `*`, `x` and `latest` admit everything. npm pre-releases
    follow npm's default (excluded unless the range names one), Cargo's likewise; the other
    grammars admit pre-releases here (pip, `Gem::Requirement#satisfied_by?`, NuGet `Satisfies`,
    Composer `Semver::satisfies`, pub `allows` and Elixir `Version.match?` check a chosen version
    that way).
    """
    req = requirement.strip()
    if ecosystem is Ecosystem.NPM:
        if req in ("", "*", "x", "latest"):
            return True
        if _NPM_UNEVALUABLE.match(req) or (_NPM_TAG.match(req) and not req.lower().startswith("x")):
            return None
    elif ecosystem is Ecosystem.PYPI and req == "":
        return True
    grammar = GRAMMARS.get(ecosystem)
    if grammar is None:
        return None
    try:
        # npm and Cargo's pre-release rules are part of matching; the other tools' rules only
        # steer which version an installer picks, so a stated version is checked without them.
        rng = grammar.parse(req, include_prerelease=ecosystem not in _MATCHING_PRERELEASE_RULE)
    except RangeSyntaxError:
        return None
    if not is_valid(ecosystem, version):
        return None
    return rng.contains(version)


def major_of(version: str) -> int | None:
    """The first number of a version (`^1.2` → 1, `v2.0.0` → 2), or None."""
    m = re.match(r"^\D*?(\d+)", version)
    return int(m.group(1)) if m else None
