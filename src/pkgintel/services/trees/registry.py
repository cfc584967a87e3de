"""
Which resolution walks each ecosystem's tree: `RESOLUTIONS`, one line per ecosystem of
`domain.trees.resolution.TREE_ECOSYSTEMS` (`tests/services/trees/test_tree_registry.py` holds the two to
the same set).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.services.trees.conda_homebrew_cocoapods import CondaHomebrewCocoaPodsResolution
from pkgintel.services.trees.cpan import CpanResolution
from pkgintel.services.trees.go import GoResolution
from pkgintel.services.trees.jsr_cran_julia_hackage import JsrCranJuliaHackageResolution
from pkgintel.services.trees.maven import MavenResolution
from pkgintel.services.trees.resolution import Resolution

RESOLUTIONS: Final[Mapping[Ecosystem, type[Resolution]]] = {
    # version ranges, newest (NuGet: lowest) in range: the base walk
    Ecosystem.NPM: Resolution,
    Ecosystem.PYPI: Resolution,
    Ecosystem.CARGO: Resolution,
    Ecosystem.RUBYGEMS: Resolution,
    Ecosystem.COMPOSER: Resolution,
    Ecosystem.PUB: Resolution,
    Ecosystem.HEX: Resolution,
    Ecosystem.NUGET: Resolution,
    # minimal version selection, not ranges
    Ecosystem.GO: GoResolution,
    # scopes, exclusions, dependencyManagement, nearest-wins mediation
    Ecosystem.MAVEN: MavenResolution,
    # channels, tap formulae, subspecs
    Ecosystem.CONDA: CondaHomebrewCocoaPodsResolution,
    Ecosystem.HOMEBREW: CondaHomebrewCocoaPodsResolution,
    Ecosystem.COCOAPODS: CondaHomebrewCocoaPodsResolution,
    # JSR (npm: dependencies from npm), CRAN (current version only), Julia, Hackage
    Ecosystem.JSR: JsrCranJuliaHackageResolution,
    Ecosystem.CRAN: JsrCranJuliaHackageResolution,
    Ecosystem.JULIA: JsrCranJuliaHackageResolution,
    Ecosystem.HACKAGE: JsrCranJuliaHackageResolution,
    # modules → distributions, core modules of perl skipped
    Ecosystem.CPAN: CpanResolution,
}
"""The resolution class of each ecosystem a tree is resolved for."""
