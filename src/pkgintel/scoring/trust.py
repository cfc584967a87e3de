"""
Maintainer trust: 0-100 from a GitHub account's public record, with its breakdown.

Pure (`now` is an argument). Six components, each worth fixed points (documented in
docs/scoring.md, "Maintainer trust"); a component without data is *unscored*: left out of the
maximum, the rest rescaled to 0..100 (the rule of ADR 0004), and named in `unscored`. Trust says how
established an account is, not that it is honest: an old, popular account can be taken over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Final

from pkgintel.domain.signals.github_facts import Account, OwnedRepository

TRUST_WEIGHTS: Final = MappingProxyType(
    {
        "account_age": 25,
        "followers": 15,
        "public_repos": 10,
        "popular_repos": 25,
        "organizations": 10,
        "activity": 15,
    }
)
AGE_STEPS: Final = ((5 * 365, 25), (2 * 365, 18), (365, 12), (90, 5))
"""`(at least this many days old, points)`; younger scores 0."""
ACTIVITY_STEPS: Final = ((30, 15), (90, 12), (365, 7), (730, 3))
"""`(last push to an owned repository at most this many days ago, points)`; older scores 0."""
FOLLOWERS_FULL_LOG10: Final = 3  # 1,000 followers earn the full points
REPOS_FULL: Final = 50  # 50 public repositories earn the full points
STARS_FULL_LOG10: Final = 4  # a 10,000-star owned repository earns the full points
LEVELS: Final = ((70, "high"), (40, "medium"), (0, "low"))


@dataclass(frozen=True, slots=True)
class TrustScore:
    score: int
    level: str
    breakdown: dict[str, int]
    max_score: int
    unscored: tuple[str, ...]
    explanations: dict[str, str]


def _log_points(value: int, full_log10: float, weight: int) -> int:
    return math.floor(weight * min(1.0, math.log10(max(0, value) + 1) / full_log10) + 0.5)


def _step(days: int, steps: tuple[tuple[int, int], ...], *, at_least: bool) -> int:
    for limit, points in steps:
        if (days >= limit) if at_least else (days <= limit):
            return points
    return 0


def compute_trust(
    account: Account,
    repositories: tuple[OwnedRepository, ...] | None,
    organizations: tuple[str, ...] | None,
    *,
    now: datetime,
) -> TrustScore:
    """
    Score `account`. `repositories` (its own public repositories) and `organizations` (its public
    memberships) are None when they could not be fetched: their components are then unscored.
    Organisation membership is unscored for an organisation account (it has none by definition).
    """
    points: dict[str, int | None] = {}
    why: dict[str, str] = {}
    if account.created_at is not None:
        days = max(0, (now - account.created_at).days)
        points["account_age"] = _step(days, AGE_STEPS, at_least=True)
        why["account_age"] = f"account created {days} days ago"
    else:
        points["account_age"], why["account_age"] = None, "creation date not given"
    if account.followers is not None:
        points["followers"] = _log_points(account.followers, FOLLOWERS_FULL_LOG10, 15)
        why["followers"] = f"{account.followers} followers"
    else:
        points["followers"], why["followers"] = None, "follower count not given"
    if account.public_repos is not None:
        points["public_repos"] = _log_points(account.public_repos, math.log10(REPOS_FULL + 1), 10)
        why["public_repos"] = f"{account.public_repos} public repositories"
    else:
        points["public_repos"], why["public_repos"] = None, "repository count not given"
    own = [r for r in repositories or () if not r.fork]
    if repositories is None:
        points["popular_repos"] = points["activity"] = None
        why["popular_repos"] = why["activity"] = "the account's repositories could not be fetched"
    else:
        top = max(own, key=lambda r: r.stars, default=None)
        points["popular_repos"] = _log_points(top.stars if top else 0, STARS_FULL_LOG10, 25)
        why["popular_repos"] = (
            f"most starred own repository {top.full_name} ({top.stars} stars)"
            if top
            else "no own (non-fork) public repositories"
        )
        pushes = [r.pushed_at for r in repositories if r.pushed_at is not None]
        if pushes:
            days = max(0, (now - max(pushes)).days)
            points["activity"] = _step(days, ACTIVITY_STEPS, at_least=False)
            why["activity"] = f"last push to an owned repository {days} days ago"
        else:
            points["activity"], why["activity"] = None, "no dated pushes to owned repositories"
    if account.type == "Organization":
        points["organizations"] = None
        why["organizations"] = "an organisation account belongs to no organisations"
    elif organizations is None:
        points["organizations"], why["organizations"] = None, "memberships could not be fetched"
    else:
        n = len(organizations)
        points["organizations"] = 10 if n >= 2 else 7 if n == 1 else 0
        why["organizations"] = f"{n} public organisation membership{'s' if n != 1 else ''}"
    unscored = tuple(k for k in TRUST_WEIGHTS if points[k] is None)
    breakdown = {k: points[k] or 0 for k in TRUST_WEIGHTS}
    possible = sum(w for k, w in TRUST_WEIGHTS.items() if k not in unscored)
    raw = sum(breakdown.values())
    score = math.floor(100 * raw / possible + 0.5) if possible else 0
    level = next(name for minimum, name in LEVELS if score >= minimum)
    return TrustScore(score, level, breakdown, possible, unscored, why)
