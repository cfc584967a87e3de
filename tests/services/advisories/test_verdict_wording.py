"""
Summaries agree with the counts (issue 27): the words of a recommendation name each advisory by its
stated severity — unrated ones as unrated, treated as medium — and say what exploit data raises,
never renaming 10 unrated advisories "1 high and 9 medium". Upgrade plans never claim that no
advisory affects a version when the advisory data is unavailable.
"""

from __future__ import annotations

from typing import Any

import pytest

from pkgintel.domain.packages import Ecosystem, PackageInfo, Release
from pkgintel.scoring import compute_health, compute_recommendation
from pkgintel.scoring.verdicts import UpgradePlan
from pkgintel.services.advisories.verdicts import VerdictService
from pkgintel.services.advisories.vulnerabilities import NoAdvisoryData, VulnerabilityReport
from pkgintel.services.reports.service import vulnerability_summary
from tests.scoring.factories import NOW, signals


def _detail(i: int, **extra: Any) -> dict[str, Any]:
    return {"id": f"PYSEC-2020-{i}", "severity": None, "fixed_in": ["3.2.25"], **extra}


def _django_30(plan: UpgradePlan | None) -> Any:
    """django 3.0 as measured: 10 advisories without a rating, one with an EPSS of 0.6."""
    details = (_detail(0, epss={"score": 0.6}), *(_detail(i) for i in range(1, 10)))
    report = VulnerabilityReport("complete", "3.0", details)
    assert (report.count("high"), report.count("medium"), report.count(None)) == (0, 0, 10)
    sig = signals(
        vulnerabilities=vulnerability_summary(report, plan),
        evaluated_version="3.0",
        latest_version="6.1",
    )
    return compute_recommendation(sig, compute_health(sig, now=NOW))


@pytest.mark.parametrize(
    ("plan", "action"),
    [
        (UpgradePlan("3.2.25", "critical", tuple(f"PYSEC-2020-{i}" for i in range(10))), None),
        (None, "find_alternative"),
    ],
)
def test_summary_names_unrated_advisories_as_unrated(
    plan: UpgradePlan | None, action: str | None
) -> None:
    rec = _django_30(plan)
    assert "10 unrated advisories (treated as medium)" in rec.summary
    assert "1 raised to high by exploit data (CISA KEV, EPSS)" in rec.summary
    assert "9 medium" not in rec.summary and "1 high advisory" not in rec.summary
    if action is None:
        assert rec.action == "update_required" and "upgrade to 3.2.25" in rec.summary
    else:
        assert rec.action == action
    assert "10 unrated advisories affect 3.0 (treated as medium)." in rec.issues


def test_stated_counts_are_kept_when_kev_raises_one() -> None:
    """A medium advisory in the KEV catalog blocks as critical but is still called medium."""
    details = ({"id": "GHSA-1", "severity": "medium", "kev": {"in_catalog": True}},)
    report = VulnerabilityReport("complete", "1.0", details, kev_count=1)
    sig = signals(vulnerabilities=vulnerability_summary(report), evaluated_version="1.0")
    rec = compute_recommendation(sig, compute_health(sig, now=NOW))
    assert rec.action == "do_not_use"
    assert "1.0 has 1 medium advisory, 1 raised to critical by exploit data" in rec.summary


def _info() -> PackageInfo:
    return PackageInfo(
        ecosystem=Ecosystem.PYPI,
        name="demo",
        latest_version="2.0",
        releases=(Release("1.0"), Release("2.0")),
    )


async def test_upgrade_plan_without_advisory_data_says_unknown() -> None:
    lookup = NoAdvisoryData()
    current = await lookup.for_version(Ecosystem.PYPI, "demo", "1.0")
    plan = await VerdictService(lookup).upgrade_plan(Ecosystem.PYPI, _info(), "1.0", current)
    assert plan.target is None and plan.gate is None and plan.examined == 0
    assert plan.reason is not None
    assert "no advisory" not in plan.reason
    assert plan.reason.startswith("vulnerability data is unavailable")


async def test_upgrade_plan_on_partial_data_says_it_may_be_incomplete() -> None:
    current = VulnerabilityReport("partial", "1.0")
    plan = await VerdictService(NoAdvisoryData()).upgrade_plan(
        Ecosystem.PYPI, _info(), "1.0", current
    )
    assert plan.target is None and plan.reason is not None
    assert "may be incomplete" in plan.reason
