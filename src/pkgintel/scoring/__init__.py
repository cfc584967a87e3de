"""
Pure scoring core: health score, recommendation and licence classification.

Values in, values out: no I/O, and the clock is passed in as `now`. See `docs/scoring.md` for the formulas.
"""

from pkgintel.scoring.health import HealthScore, badge_colour, compute_health, risk_band
from pkgintel.scoring.licenses import (
    LICENSE_CLASSES,
    LICENSE_RISKS,
    LicenseAssessment,
    classify_license,
)
from pkgintel.scoring.recommendation import (
    ACTIONS,
    NO_VERSION,
    Recommendation,
    compute_recommendation,
)
from pkgintel.scoring.signals import VULNERABILITY_STATUSES, HealthSignals, VulnerabilitySummary
from pkgintel.scoring.weights import COMPONENTS, DEFAULT_WEIGHTS, GO_THRESHOLD, MAX_SCORE

__all__ = [
    "ACTIONS",
    "COMPONENTS",
    "DEFAULT_WEIGHTS",
    "GO_THRESHOLD",
    "LICENSE_CLASSES",
    "LICENSE_RISKS",
    "MAX_SCORE",
    "NO_VERSION",
    "VULNERABILITY_STATUSES",
    "HealthScore",
    "HealthSignals",
    "LicenseAssessment",
    "Recommendation",
    "VulnerabilitySummary",
    "badge_colour",
    "classify_license",
    "compute_health",
    "compute_recommendation",
    "risk_band",
]
