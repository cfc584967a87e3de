"""
Versions per ecosystem (pure): ordering, validity, pre-releases and equality.

One module per version scheme (`semver`, `pep440`, `pub`, `julia`, `go`, `maven`, `nuget`, `rubygems`,
`composer`, `hackage`, `cran`, `cpan`, `conda`, `homebrew`), each with `key(version)` (a tuple that orders
like the ecosystem's own tools; never raises) and `is_prerelease(version)`. `schemes` maps every
ecosystem to its scheme, `ordering` dispatches to the scheme modules, `equality` decides whether two
spellings name one release. The names below are the package's public interface; callers import them
from `pkgintel.domain.versions`.
"""

from __future__ import annotations

from pkgintel.domain.versions.composer import composer_normalize
from pkgintel.domain.versions.equality import (
    equality_key,
    find_equal,
    npm_clean,
    versions_equal,
)
from pkgintel.domain.versions.maven import MavenVersion
from pkgintel.domain.versions.ordering import (
    compare,
    is_prerelease,
    is_valid,
    newest_first,
    scheme_sort_key,
    sort_key,
    validate_version,
)
from pkgintel.domain.versions.schemes import (
    MAX_VERSION_LENGTH,
    SCHEME_BY_ECOSYSTEM,
    SEMVER_FAMILY,
    VersionScheme,
)

__all__ = [
    "MAX_VERSION_LENGTH",
    "SCHEME_BY_ECOSYSTEM",
    "SEMVER_FAMILY",
    "MavenVersion",
    "VersionScheme",
    "compare",
    "composer_normalize",
    "equality_key",
    "find_equal",
    "is_prerelease",
    "is_valid",
    "newest_first",
    "npm_clean",
    "scheme_sort_key",
    "sort_key",
    "validate_version",
    "versions_equal",
]
