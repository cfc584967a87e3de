"""
Health-score weights and the threshold tables behind each component.

Everything numeric about the score lives here, so `docs/scoring.md`, the code and the tests read one source.
`DEFAULT_WEIGHTS` gives the maximum points of each component; the tables turn a measured signal into points
within that maximum. The specification fixes the weights (maintenance 25, security 25, popularity 20,
maturity 15, community 15; total 100).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

COMPONENTS: Final = ("maintenance", "security", "popularity", "maturity", "community")
"""The five score components, in the order they are reported."""

DEFAULT_WEIGHTS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "maintenance": 25,  # days since the last release
        "security": 25,  # advisories affecting the evaluated version, CISA KEV, EPSS, malicious flag
        "popularity": 20,  # weekly downloads
        "maturity": 15,  # number of versions and age of the first release
        "community": 15,  # maintainers (bus factor)
    }
)
"""Maximum points per component; the values sum to `MAX_SCORE`."""

MAX_SCORE: Final = 100

GO_THRESHOLD: Final = 70
"""A score at or above this is the "go" threshold (and the minimum for `safe_to_use`)."""

RISK_BANDS: Final[tuple[tuple[int, str], ...]] = (
    (80, "low"),
    (60, "medium"),
    (40, "high"),
    (0, "critical"),
)
"""`(minimum score, risk)`, best first. `unknown` is used instead when data is insufficient."""

BADGE_COLOURS: Final[tuple[tuple[int, str], ...]] = (
    (80, "green"),
    (60, "yellow"),
    (40, "orange"),
    (0, "red"),
)
"""`(minimum score, badge colour)`, best first."""

# --- maintenance: days since the last release -------------------------------------------------------
MAINTENANCE_STEPS: Final[tuple[tuple[int, int], ...]] = (
    (90, 25),
    (180, 21),
    (365, 16),
    (730, 10),
    (1460, 5),
)
"""`(at most this many days, points)`; older than the last step scores 0, and so does a deprecated package."""

LEGACY_AFTER_DAYS: Final = 730
"""No release for more than this many days (two years) makes a package a candidate for `legacy_but_working`."""

# --- security: advisories affecting the evaluated version ------------------------------------------
SECURITY_PENALTIES: Final[Mapping[str, int]] = MappingProxyType(
    {"critical": 12, "high": 7, "medium": 3, "low": 1, "unrated": 3}
)
"""Points taken off the security maximum per advisory of each severity. `unrated` advisories
(the source states no severity) cost as much as a medium one: known to exist, not known to be minor."""

EPSS_CAPS: Final[tuple[tuple[float, int], ...]] = ((0.5, 5), (0.1, 15))
"""`(max EPSS at least this, security at most these points)`, checked in order."""

# --- popularity: weekly downloads --------------------------------------------------------------------
POPULARITY_FULL_LOG10: Final = 7
"""log10 of the weekly downloads that earn full popularity points (10,000,000 a week)."""

# --- maturity: versions and age ------------------------------------------------------------------------
MATURITY_VERSION_POINTS: Final = 10
MATURITY_FULL_VERSIONS: Final = 30
"""Number of versions that earns the full version part of maturity."""

MATURITY_AGE_STEPS: Final[tuple[tuple[int, int], ...]] = ((730, 5), (365, 3), (90, 1))
"""`(at least this many days since the first release, points)`; younger or unknown scores 0."""

# --- community: maintainers ----------------------------------------------------------------------------
COMMUNITY_STEPS: Final[tuple[tuple[int, int], ...]] = ((5, 15), (3, 12), (2, 9), (1, 5))
"""`(at least this many maintainers, points)`; 0 or unknown maintainers leaves community unscored."""

COMMUNITY_BUS_FACTOR_MULTIPLE: Final = 2
"""With a known bus factor, community counts at most this many people per bus-factor person: ten
listed maintainers of whom one publishes everything count as two."""
COMMUNITY_NEW_PUBLISHER_PENALTY: Final = 3
"""Points off community when the latest release came from an account that never published before."""

# --- when the score means nothing ------------------------------------------------------------------
INSUFFICIENT_UNSCORED: Final = 3
"""This many unscored components (or more) make the data insufficient."""

INSUFFICIENT_TOGETHER: Final = frozenset({"maintenance", "popularity"})
"""When all of these components are unscored the data is insufficient, whatever else is known."""
