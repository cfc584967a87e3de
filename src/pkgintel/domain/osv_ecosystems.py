"""
OSV ecosystem names ↔ `Ecosystem` (pure).

OSV names its ecosystems with their own spelling (`PyPI`, `crates.io`, `Packagist`, `SwiftURL`;
https://ossf.github.io/osv-schema/#defined-ecosystems). Some carry a `:<suffix>`: `Maven` and
`Packagist` a repository URL (`Maven:https://maven.google.com`), Linux distributions a release.
For the package ecosystems we serve the suffix only says which repository is authoritative, so
`Maven:<url>` is still Maven; the raw string stays on each `Affected` for whoever needs it.

CocoaPods, CPAN, Conda, Homebrew and JSR have no OSV ecosystem; `GHC`, `Bioconductor`,
`GitHub Actions` and the Linux distributions have no `Ecosystem` here.
"""

from __future__ import annotations

from pkgintel.domain.packages import Ecosystem

OSV_ECOSYSTEMS: dict[str, Ecosystem] = {
    "npm": Ecosystem.NPM,
    "PyPI": Ecosystem.PYPI,
    "crates.io": Ecosystem.CARGO,
    "Go": Ecosystem.GO,
    "Maven": Ecosystem.MAVEN,
    "NuGet": Ecosystem.NUGET,
    "RubyGems": Ecosystem.RUBYGEMS,
    "Packagist": Ecosystem.COMPOSER,
    "Pub": Ecosystem.PUB,
    "Hex": Ecosystem.HEX,
    "SwiftURL": Ecosystem.SWIFT,
    "Hackage": Ecosystem.HACKAGE,
    "CRAN": Ecosystem.CRAN,
    "Julia": Ecosystem.JULIA,
}
"""OSV ecosystem name (without suffix) → our `Ecosystem`."""

OSV_NAME_BY_ECOSYSTEM: dict[Ecosystem, str] = {eco: name for name, eco in OSV_ECOSYSTEMS.items()}
"""Our `Ecosystem` → OSV ecosystem name, for the ecosystems OSV knows (e.g. for api.osv.dev)."""


def ecosystem_from_osv(osv_ecosystem: str) -> Ecosystem | None:
    """
    The `Ecosystem` an OSV ecosystem string denotes, or None when we do not serve it.

    Exact names only (OSV names are case-sensitive); a `:<suffix>` is ignored, so
    `Maven:https://maven.google.com` → `Ecosystem.MAVEN`.
    """
    base = osv_ecosystem.strip().split(":", 1)[0]
    return OSV_ECOSYSTEMS.get(base)


def osv_name(ecosystem: Ecosystem) -> str | None:
    """The OSV ecosystem name of `ecosystem`, or None when OSV has none (CocoaPods, CPAN, ...)."""
    return OSV_NAME_BY_ECOSYSTEM.get(ecosystem)
