"""
The recommendation: what an agent should do about a package version, derived from its signals and health.

`compute_recommendation` applies a fixed precedence of rules (the first that matches wins; the list is in its
docstring and in `docs/scoring.md`). A wrong "safe" is the worst answer this service can give, so `safe_to_use`
needs complete vulnerability data and a negative malicious-package check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from pkgintel.scoring.health import HealthScore, maintenance_points
from pkgintel.scoring.signals import HealthSignals, VulnerabilitySummary
from pkgintel.scoring.weights import EPSS_CAPS, GO_THRESHOLD, LEGACY_AFTER_DAYS

ACTIONS: Final = (
    "safe_to_use",
    "update_required",
    "use_with_caution",
    "find_alternative",
    "do_not_use",
    "legacy_but_working",
    "insufficient_data",
)
"""Every value `Recommendation.action` can take (the specification's list)."""

NO_VERSION: Final = "none"
"""`use_version` when we cannot name any version that is safe to install."""

VERDICTS: Final = {
    "safe_to_use": "Safe to use",
    "update_required": "Update required",
    "use_with_caution": "Use with caution",
    "find_alternative": "Find an alternative",
    "do_not_use": "Do not use",
    "legacy_but_working": "Legacy but working",
    "insufficient_data": "Insufficient data",
}
"""The words each `summary` starts with, per action."""

_MAX_MESSAGE = 200


@dataclass(frozen=True, slots=True)
class Recommendation:
    """What to do about the evaluated version, with the reasons."""

    action: str
    """One of `ACTIONS`."""
    issues: tuple[str, ...]
    """Short sentences, most severe first; may be non-empty even for `safe_to_use` (e.g. a low advisory)."""
    use_version: str
    """The version to install: the evaluated one when it is acceptable, the fixed one for `update_required`,
    `NO_VERSION` ("none") when no version can be recommended."""
    version_hint: str | None
    summary: str
    """One sentence starting with the verdict (`VERDICTS[action]`)."""


def compute_recommendation(signals: HealthSignals, health: HealthScore) -> Recommendation:
    """
    Recommend an action for `signals.evaluated_version`, given its `health` (from `compute_health`).

    Advisories count by their *effective* severity (`scoring.verdicts.effective_severity`: unrated
    as medium, KEV-listed as critical, raised by EPSS), and only when the vulnerability status is not
    `unavailable`. An advisory at or above the verdict gate (medium) *blocks*. The first rule that
    matches wins:

    1. flagged malicious → `do_not_use` (use_version "none");
    2. blocking advisories and a published upgrade target (`vulnerabilities.fixed_version`, chosen
       gate by gate among published, non-yanked releases) → `update_required` to it, naming what
       remains unfixed in it;
    3. blocking advisories, no target: a critical one → `do_not_use`; a high one → `find_alternative`;
       medium ones only → `find_alternative` when the package is unmaintained (deprecated, or no
       release for two years), else `use_with_caution`;
    4. deprecated → `find_alternative`;
    5. health has insufficient data → `insufficient_data`;
    6. no release for more than two years, vulnerability data known → `legacy_but_working`;
    7. score ≥ 70, vulnerability data `complete` (not `stale`, `partial` or `unavailable`), checked
       and not flagged malicious, nothing blocking → `safe_to_use`;
    8. otherwise `use_with_caution`.

    Never raises for a valid `HealthSignals` and `HealthScore`.
    """
    vulns = signals.vulnerabilities
    known = vulns.known
    critical, high, medium = (
        vulns.effective_count(s) if known else 0 for s in ("critical", "high", "medium")
    )
    blocking = critical + high + medium
    version = signals.evaluated_version
    issues = _issues(signals, health)
    latest_hint = (
        f"the latest version is {signals.latest_version}"
        if signals.latest_version != version and not signals.latest_is_prerelease
        else None
    )
    unmaintained = signals.deprecated or (known and _no_release_for_two_years(health))

    def verdict(action: str, detail: str, use: str, hint: str | None) -> Recommendation:
        return Recommendation(action, issues, use, hint, f"{VERDICTS[action]}: {detail}.")

    if signals.malicious is True:
        return verdict("do_not_use", "the package is flagged as malicious", NO_VERSION, None)
    if blocking:
        found = _blocking_text(vulns, blocking)
        target = vulns.fixed_version if vulns.fix_available else None
        if target:
            hint = f"upgrade to {target}"
            detail = f"{version} has {found}; {hint}"
            left = vulns.upgrade.remaining if vulns.upgrade else ()
            if left:
                detail += (
                    f" ({_plural(len(left), 'advisory', 'advisories')} without a published fix "
                    f"{'remains' if len(left) == 1 else 'remain'})"
                )
            return verdict("update_required", detail, target, hint)
        detail = f"{version} has {found} and no published release fixes {'it' if blocking == 1 else 'them'}"
        if critical:
            return verdict("do_not_use", detail, NO_VERSION, None)
        if high or unmaintained:
            if not high:
                detail += " on a package that is no longer maintained"
            return verdict("find_alternative", detail, NO_VERSION, None)
        return verdict("use_with_caution", detail, version, latest_hint)
    if signals.deprecated:
        return verdict("find_alternative", "the package is deprecated", version, latest_hint)
    if health.insufficient_data:
        detail = f"too little is known to score it ({', '.join(health.unscored)} not scored)"
        return verdict("insufficient_data", detail, version, latest_hint)
    if known and _no_release_for_two_years(health):
        detail = f"no release in over two years, but no medium or worse advisory affects {version}"
        return verdict("legacy_but_working", detail, version, latest_hint)

    cautions: list[str] = []
    if (
        health.score < GO_THRESHOLD and not health.partial
    ):  # partial: "security not verified" says why
        cautions.append(f"health score {health.score} is below {GO_THRESHOLD}")
    if not known:
        cautions.append("security not verified")
    elif vulns.status == "partial":
        cautions.append("vulnerability data is incomplete")
    elif vulns.status == "stale" or vulns.stale:
        cautions.append(
            f"the advisory data is stale{_as_of(vulns.data_as_of)}, so recent advisories may be missing"
        )
    if signals.malicious is None:
        cautions.append("not checked for malicious-package reports")
    if not cautions:
        detail = f"health {health.score}/100 and no medium or worse advisory affects {version}"
        return verdict("safe_to_use", detail, version, latest_hint)
    return verdict("use_with_caution", "; ".join(cautions), version, latest_hint)


def _blocking_text(vulns: VulnerabilitySummary, blocking: int) -> str:
    """
    The `blocking` advisories in words that agree with the stated counts of `vulns`: each by its
    stated severity, unrated ones as unrated (treated as medium, the scoring rule), low ones only
    when exploit data raises them to blocking; then how many exploit data (CISA KEV, EPSS) raises
    and to what, so the verdict's severity is explained without renaming any count.
    """
    parts = [
        _plural(n, f"{sev} advisory", f"{sev} advisories")
        for sev, n in (("critical", vulns.critical), ("high", vulns.high), ("medium", vulns.medium))
        if n
    ]
    if vulns.unrated:
        parts.append(
            _plural(vulns.unrated, "unrated advisory", "unrated advisories")
            + " (treated as medium)"
        )
    low = blocking - (vulns.critical + vulns.high + vulns.medium + vulns.unrated)
    if low > 0:
        parts.append(_plural(low, "low advisory", "low advisories"))
    text = _join(parts)
    raised = [(n, sev) for sev in ("critical", "high", "medium") if (n := vulns.raised_to(sev)) > 0]
    if raised:
        moves = [
            f"{n} raised to {sev}" if i == 0 else f"{n} to {sev}"
            for i, (n, sev) in enumerate(raised)
        ]
        text += f", {_join(moves)} by exploit data (CISA KEV, EPSS)"
    return text


def _join(parts: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + f" and {parts[-1]}"


def _no_release_for_two_years(health: HealthScore) -> bool:
    """True when the maintenance points say the last release is older than `LEGACY_AFTER_DAYS`."""
    if "maintenance" in health.unscored or health.deprecated:
        return False
    return health.breakdown.get("maintenance", 0) < maintenance_points(LEGACY_AFTER_DAYS)


def _issues(signals: HealthSignals, health: HealthScore) -> tuple[str, ...]:
    """Every problem worth telling the caller, most severe first."""
    vulns = signals.vulnerabilities
    version = signals.evaluated_version
    issues: list[str] = []
    if signals.malicious is True:
        issues.append("Flagged as malicious: do not install any version.")
    if vulns.known:
        if vulns.kev_count:
            n = _plural(vulns.kev_count, "advisory", "advisories")
            issues.append(
                f"{n} affecting {version} {_be(vulns.kev_count)} in the CISA KEV catalog (exploited in the wild)."
            )
        for severity, count in (("critical", vulns.critical), ("high", vulns.high)):
            if count:
                n = _plural(count, f"{severity} advisory", f"{severity} advisories")
                issues.append(f"{n} {_affect(count)} {version}.")
        if vulns.unrated:
            n = _plural(vulns.unrated, "unrated advisory", "unrated advisories")
            issues.append(f"{n} {_affect(vulns.unrated)} {version} (treated as medium).")
        blocking = sum(vulns.effective_count(s) for s in ("critical", "high", "medium"))
        if blocking:
            plan = vulns.upgrade
            if vulns.fix_available and vulns.fixed_version:
                issues.append(f"Fixed in the published release {vulns.fixed_version}.")
                if plan is not None and plan.remaining:
                    ids = ", ".join(f"{i} ({sev})" for i, sev in plan.remaining[:5])
                    issues.append(
                        f"Still affecting {vulns.fixed_version}, with no published fix: {ids}."
                    )
            else:
                issues.append("No published release fixes them.")
    if signals.deprecated:
        message = _clean(signals.deprecated_message)
        issues.append(f"Deprecated: {message}" if message else "Deprecated by its maintainers.")
    if vulns.known:
        epss = vulns.max_epss
        if not vulns.kev_count and epss is not None and epss >= EPSS_CAPS[-1][0]:
            issues.append(f"An advisory has a {epss:.0%} exploit probability (EPSS).")
        for severity, count in (("medium", vulns.medium), ("low", vulns.low)):
            if count:
                n = _plural(count, f"{severity} advisory", f"{severity} advisories")
                issues.append(f"{n} {_affect(count)} {version}.")
        if vulns.status == "partial":
            issues.append("Vulnerability data is partial: some advisory sources did not answer.")
        elif vulns.status == "stale" or vulns.stale:
            issues.append(
                f"Advisory data is stale{_as_of(vulns.data_as_of)}: recent advisories may be missing."
            )
    elif signals.malicious is not True:
        issues.append("Vulnerability data unavailable: security not verified.")
    if signals.malicious is None:
        issues.append("Not checked against malicious-package reports.")
    if health.insufficient_data:
        issues.append(f"Not enough data to score: {', '.join(health.unscored)} not scored.")
    elif health.unscored:
        issues.append(f"Not scored for lack of data: {', '.join(health.unscored)}.")
    if _no_release_for_two_years(health):
        issues.append("No release in more than two years.")
    if not health.insufficient_data and not health.partial and health.score < GO_THRESHOLD:
        issues.append(f"Health score {health.score} is below {GO_THRESHOLD}.")
    return tuple(issues)


def _as_of(when: datetime | None) -> str:
    """` (as of 2024-10-10)`, or nothing when the date of the data is not known."""
    return f" (as of {when:%Y-%m-%d})" if when is not None else ""


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _affect(n: int) -> str:
    return "affects" if n == 1 else "affect"


def _be(n: int) -> str:
    return "is" if n == 1 else "are"


def _clean(message: str | None) -> str:
    """A deprecation message as one sentence on one line, at most `_MAX_MESSAGE` characters."""
    if not message:
        return ""
    text = re.sub(r"\s+", " ", message).strip()
    if len(text) > _MAX_MESSAGE:
        return text[: _MAX_MESSAGE - 1].rstrip() + "…"
    return text if not text or text[-1] in ".!?…" else text + "."
