"""
The rules behind every verdict, in one place (pure).

Every door — report, health, briefs, `check_bulk`, `/api/malicious`, scan, stack, `pin_safe`, MCP —
decides with these functions, so a verdict cannot be more reassuring in one door than in another.
`docs/scoring.md` ("How a verdict is reached") states the same rules in prose.

Severity for a verdict (`effective_severity`): the advisory's stated bucket, except that

- an advisory without a rating counts as **medium** (it is known to exist, not known to be minor);
  CVSS "none" counts as low;
- a CVE in the CISA KEV catalog (exploited in the wild) counts as **critical**;
- an EPSS exploit probability of at least 0.5 raises it to at least **high**, of at least 0.1 to at
  least **medium**.

The **gate** of a verdict is a minimum effective severity. An advisory at or above the gate blocks a
version; one below it is a caveat. Upgrade targets (`choose_upgrade`) are judged gate by gate: the
lowest published release that clears every advisory at or above the strictest gate any release can
clear, never a version the registry does not list as published and not yanked.

Malicious status (`malicious_status`): `malicious` whenever no clean release is known to exist;
`historical_incident` only when a release outside every reported set is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

SEVERITY_RANK: Final[Mapping[str, int]] = {
    "critical": 4,
    "high": 3,
    "medium": 2,
    "low": 1,
}
"""Rank of each effective severity; higher is worse."""

GATES: Final = ("medium", "high", "critical")
"""Gates an upgrade path is judged at, strictest first."""

VERDICT_GATE: Final = "medium"
"""The gate of the report's recommendation: medium, unrated, KEV- or EPSS-raised advisories block."""

UNRATED_AS: Final = "medium"
KEV_AS: Final = "critical"
EPSS_RAISES: Final[tuple[tuple[float, str], ...]] = ((0.5, "high"), (0.1, "medium"))
"""`(EPSS at least, severity at least)`, checked in order."""


def stated_severity(detail: Mapping[str, Any]) -> str:
    """
    The severity an advisory detail counts as before exploit data (KEV, EPSS) is looked at: its
    stated bucket, CVSS "none" as low, an unrated one as `UNRATED_AS` (medium).
    """
    stated = detail.get("severity")
    if isinstance(stated, str) and stated in SEVERITY_RANK:
        return stated
    return "low" if stated == "none" else UNRATED_AS


def effective_severity(detail: Mapping[str, Any]) -> str:
    """
    The severity an advisory detail (the wire dict of `VulnerabilityReport.details`) counts as for
    verdicts: one of `SEVERITY_RANK`. See the module docstring for the rules.
    """
    rank = SEVERITY_RANK[stated_severity(detail)]
    kev = detail.get("kev")
    if isinstance(kev, Mapping) and kev.get("in_catalog"):
        rank = max(rank, SEVERITY_RANK[KEV_AS])
    epss = detail.get("epss")
    score = epss.get("score") if isinstance(epss, Mapping) else None
    if isinstance(score, int | float):
        for threshold, severity in EPSS_RAISES:
            if score >= threshold:
                rank = max(rank, SEVERITY_RANK[severity])
                break
    return _name_of(rank)


def _name_of(rank: int) -> str:
    for name, value in SEVERITY_RANK.items():
        if value == rank:
            return name
    raise ValueError(f"no severity of rank {rank}")  # pragma: no cover - ranks are closed


def at_or_above(detail: Mapping[str, Any], gate: str) -> bool:
    """True when the advisory's effective severity is at or above `gate`."""
    return SEVERITY_RANK[effective_severity(detail)] >= SEVERITY_RANK[gate]


def worst_rank(details: Iterable[Mapping[str, Any]]) -> int:
    """Highest effective rank among `details` (0 when there are none)."""
    return max((SEVERITY_RANK[effective_severity(d)] for d in details), default=0)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A published, non-yanked release newer than the evaluated version, with its own findings."""

    version: str
    details: tuple[Mapping[str, Any], ...]
    """Advisories affecting this release."""
    malicious: bool = False
    """A malicious-package report affects this release."""


@dataclass(frozen=True, slots=True)
class UpgradePlan:
    """
    Where to go from a version with blocking advisories.

    `target` is a published, non-yanked release (None when none clears even the critical gate among
    the candidates examined); `gate` is the strictest gate it clears; `clears` are the ids of the
    current version's advisories that `target` is not affected by; `remaining` the ids still affecting
    `target` (its caveats, by effective severity).
    """

    target: str | None
    gate: str | None
    clears: tuple[str, ...] = ()
    remaining: tuple[tuple[str, str], ...] = ()
    """`(id, effective severity)` of advisories that affect `target`."""
    examined: int = 0
    exhausted: bool = False
    """True when candidates ran out (or the examination limit was reached) before a target was found."""
    reason: str | None = None


NOTHING_BLOCKS: Final = "no advisory at or above the gate affects it"
"""The plan's reason when the advisory data is known and nothing at or above the gate affects the
version (said only over data that was read: see `unknown_plan`)."""


def unknown_plan(reason: str | None = None) -> UpgradePlan:
    """
    The plan when the advisory data for the version is unavailable: no target, no gate, nothing
    examined, and a reason saying that whether an advisory affects the version is unknown (never
    that none does). `reason` is the lookup's own reason, appended when given.
    """
    why = (
        "vulnerability data is unavailable, so whether an advisory affects this version, and which "
        "release would clear it, is unknown"
    )
    return UpgradePlan(None, None, reason=f"{why} ({reason})" if reason else why)


def choose_upgrade(
    current: Sequence[Mapping[str, Any]],
    candidates: Iterable[Candidate],
    *,
    gate: str = VERDICT_GATE,
) -> UpgradePlan:
    """
    The lowest candidate (in the iteration order given: ascending by the ecosystem's ordering) that
    clears the strictest gate possible, trying `gate` first and then each stricter one of `GATES`.

    `current` must come from advisory data that was read (with none, use `unknown_plan`). A gate is
    only tried when the current version has an advisory at or above it. A candidate clears
    a gate when it is not malicious and no advisory affecting it is at or above that gate. Candidates
    are consumed lazily and only until the first one clearing the strictest relevant gate is found.
    """
    gates = [g for g in GATES if SEVERITY_RANK[g] >= SEVERITY_RANK[gate]]
    needed = [g for g in gates if any(at_or_above(d, g) for d in current)]
    if not needed:
        return UpgradePlan(None, None, reason=NOTHING_BLOCKS)
    found: dict[str, Candidate] = {}
    examined = 0
    for cand in candidates:
        examined += 1
        if cand.malicious:
            continue
        rank = worst_rank(cand.details)
        for g in needed:
            if g not in found and rank < SEVERITY_RANK[g]:
                found[g] = cand
        if needed[0] in found:
            break
    for g in needed:
        if g in found:
            target = found[g]
            hit = {str(d.get("id")) for d in target.details}
            clears = tuple(str(d.get("id")) for d in current if str(d.get("id")) not in hit)
            remaining = tuple((str(d.get("id")), effective_severity(d)) for d in target.details)
            return UpgradePlan(
                target.version,
                g,
                clears,
                remaining,
                examined,
                exhausted=g != needed[0],
            )
    return UpgradePlan(
        None,
        None,
        examined=examined,
        exhausted=True,
        reason="no published release newer than this one clears its critical advisories"
        if examined
        else "no published, non-yanked release is newer than this one",
    )


# --------------------------------------------------------------------------------------------
# Malicious status.

MAINSTREAM_WEEKLY_DOWNLOADS: Final = 100_000
"""Above this, a malicious report on a package is flagged `review_advisory` (a mainstream package is
more often a false positive or a briefly compromised release than a package built to attack)."""


@dataclass(frozen=True, slots=True)
class MaliciousStatus:
    """The resolution of a package's malicious-package reports for one question."""

    status: str
    """`malicious`, `historical_incident`, `clean` (reports loaded, none names the package) or
    `unknown` (no reports are loaded)."""
    judged_version: str | None
    """The version the answer is about: the one asked, else the latest release (None when no release
    is known)."""
    reason: str
    review_advisory: bool = False
    affected_versions: tuple[str, ...] = field(default_factory=tuple)


def malicious_status(
    *,
    loaded: bool,
    reports: int,
    all_versions: bool,
    asked_version: str | None,
    asked_affected: bool | None,
    latest_version: str | None,
    latest_affected: bool | None,
    package_gone: bool,
    reported_versions: Sequence[str] = (),
    weekly_downloads: int | None = None,
) -> MaliciousStatus:
    """
    Decide the malicious status of a package (or of `asked_version`).

    - No reports loaded → `unknown`. No report names the package → `clean`.
    - A report covering every version, or the asked version affected → `malicious`.
    - No version asked: judged at the latest release. The latest affected, the package gone from the
      registry (or its name index) after the report, or no release known at all → `malicious`: no
      clean release is known to exist.
    - Otherwise a clean release is known (the asked one, or a latest outside every reported set) →
      `historical_incident`.

    `review_advisory` is set for a `malicious` answer on a package with more than
    `MAINSTREAM_WEEKLY_DOWNLOADS` weekly downloads.
    """
    affected = tuple(reported_versions)
    if not loaded:
        return MaliciousStatus(
            "unknown", asked_version or latest_version, "no malicious-package reports are loaded"
        )
    if reports == 0:
        return MaliciousStatus(
            "clean", asked_version or latest_version, "no malicious-package report names it"
        )
    review = weekly_downloads is not None and weekly_downloads > MAINSTREAM_WEEKLY_DOWNLOADS

    def bad(version: str | None, why: str) -> MaliciousStatus:
        return MaliciousStatus("malicious", version, why, review, affected)

    if all_versions:
        return bad(asked_version or latest_version, "every version is reported malicious")
    if asked_version is not None:
        if asked_affected:
            return bad(asked_version, f"version {asked_version} is reported malicious")
        return MaliciousStatus(
            "historical_incident",
            asked_version,
            f"version {asked_version} is outside every report; other versions were reported malicious"
            + (f": {', '.join(affected[:10])}" if affected else ""),
            False,
            affected,
        )
    if package_gone:
        return bad(None, "the package is gone from the registry after a malicious-package report")
    if latest_version is None:
        return bad(None, "reported malicious and no clean release is known to exist")
    if latest_affected or latest_affected is None:
        return bad(latest_version, f"the latest release, {latest_version}, is reported malicious")
    return MaliciousStatus(
        "historical_incident",
        latest_version,
        f"the latest release, {latest_version}, is outside every report; earlier versions were "
        "reported malicious" + (f": {', '.join(affected[:10])}" if affected else ""),
        False,
        affected,
    )


# --------------------------------------------------------------------------------------------
# Typosquat suspicion.

ESTABLISHED_MONTHLY_DOWNLOADS: Final = 5_000
"""A name downloaded this often a month is an established package, not a suspect."""
ESTABLISHED_WEEKLY_DOWNLOADS: Final = 1_200
ESTABLISHED_RELEASES: Final = 10
ESTABLISHED_AGE_DAYS: Final = 365
POPULARITY_GAP: Final = 20
"""A target must be downloaded at least this many times as often as the suspect (when both are known):
a popular package is never a suspect of a less popular one."""


def established(
    *,
    monthly_downloads: int | None = None,
    popularity_rank: int | None = None,
    weekly_downloads: int | None = None,
    release_count: int | None = None,
    first_release_days: int | None = None,
) -> str | None:
    """
    Why a package is established (and so not a typosquat suspect), or None. Established: real
    downloads (≥ `ESTABLISHED_MONTHLY_DOWNLOADS` a month or `ESTABLISHED_WEEKLY_DOWNLOADS` a week),
    a place in the registry's popularity ranking, or a history (≥ `ESTABLISHED_RELEASES` releases over
    at least `ESTABLISHED_AGE_DAYS` days). Unknown facts never make a package established.
    """
    if monthly_downloads is not None and monthly_downloads >= ESTABLISHED_MONTHLY_DOWNLOADS:
        return f"{monthly_downloads:,} downloads a month"
    if weekly_downloads is not None and weekly_downloads >= ESTABLISHED_WEEKLY_DOWNLOADS:
        return f"{weekly_downloads:,} downloads a week"
    if popularity_rank is not None:
        return f"ranked {popularity_rank:,} by downloads on its registry"
    if (
        release_count is not None
        and first_release_days is not None
        and release_count >= ESTABLISHED_RELEASES
        and first_release_days >= ESTABLISHED_AGE_DAYS
    ):
        return f"{release_count} releases over {first_release_days // 365} years or more"
    return None


def far_more_popular(target_monthly: int | None, suspect_monthly: int | None) -> bool:
    """True unless both popularities are known and the target's is under `POPULARITY_GAP` times the
    suspect's."""
    if target_monthly is None or suspect_monthly is None:
        return True
    return target_monthly >= POPULARITY_GAP * max(1, suspect_monthly)


def scope_compatible(suspect: str, target: str, scope_distance: int) -> bool:
    """
    npm scopes are their own technique with their own threshold: two scoped names in *different*
    scopes are compared only when the package part is identical and the scopes differ by one edit
    (`@babel/core` vs `@babe1/core`), never by their whole strings (`@talkjs/core` vs `@tapjs/core`).
    """
    if not (suspect.startswith("@") and target.startswith("@")):
        return True
    s_scope, _, s_name = suspect.partition("/")
    t_scope, _, t_name = target.partition("/")
    if s_scope == t_scope:
        return True
    return s_name == t_name and scope_distance <= 1 and len(t_scope) > 4
