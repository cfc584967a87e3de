"""
OSV range evaluation, explicit versions, withdrawal and de-duplication on small hand-built
advisories: each case is one rule of https://ossf.github.io/osv-schema/#evaluation.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pkgintel.domain.advisories import (
    GIT_RANGE_REASON,
    Advisory,
    Affected,
    AffectedRange,
    EventKind,
    RangeType,
    Severity,
)
from pkgintel.domain.matching import (
    affecting,
    affects,
    deduplicate,
    fixed_versions,
    group_by_alias,
    range_affects,
    representative,
)
from pkgintel.domain.packages import Ecosystem


def rng(*events: tuple[EventKind, str], kind: RangeType = RangeType.ECOSYSTEM) -> AffectedRange:
    return AffectedRange(type=kind, events=events)


def advisory(
    aid: str,
    *ranges: AffectedRange,
    ecosystem: Ecosystem = Ecosystem.PYPI,
    name: str = "pkg",
    versions: frozenset[str] = frozenset(),
    **extra: object,
) -> Advisory:
    affected = Affected(
        osv_ecosystem=ecosystem.value,
        ecosystem=ecosystem,
        name=name,
        display_name=name,
        ranges=ranges,
        versions=versions,
    )
    return Advisory(id=aid, source="test", affected=(affected,), **extra)  # type: ignore[arg-type]


def hits(r: AffectedRange, ecosystem: Ecosystem, versions: list[str]) -> list[str]:
    return [v for v in versions if range_affects(r, ecosystem, v)]


PYPI_PROBES = [
    "0.1",
    "0.9",
    "1.0",
    "1.0.1",
    "1.1",
    "1.5",
    "2.0",
    "2.0.1",
    "2.5",
    "3.0",
    "3.1",
    "10.0",
]


def test_introduced_zero_means_every_version() -> None:
    assert hits(rng(("introduced", "0")), Ecosystem.PYPI, PYPI_PROBES) == PYPI_PROBES


def test_fixed_is_exclusive_and_introduced_inclusive() -> None:
    r = rng(("introduced", "1.0"), ("fixed", "2.0"))
    assert hits(r, Ecosystem.PYPI, PYPI_PROBES) == ["1.0", "1.0.1", "1.1", "1.5"]


def test_last_affected_is_inclusive() -> None:
    r = rng(("introduced", "0"), ("last_affected", "2.0"))
    assert hits(r, Ecosystem.PYPI, PYPI_PROBES) == PYPI_PROBES[:7]


def test_several_intervals_in_one_range() -> None:
    r = rng(("introduced", "1.0"), ("fixed", "1.1"), ("introduced", "2.0"), ("fixed", "3.0"))
    assert hits(r, Ecosystem.PYPI, PYPI_PROBES) == ["1.0", "1.0.1", "2.0", "2.0.1", "2.5"]


def test_events_are_sorted_by_version_before_walking() -> None:
    written_backwards = rng(
        ("fixed", "3.0"), ("introduced", "2.0"), ("fixed", "1.1"), ("introduced", "1.0")
    )
    assert hits(written_backwards, Ecosystem.PYPI, PYPI_PROBES) == [
        "1.0",
        "1.0.1",
        "2.0",
        "2.0.1",
        "2.5",
    ]


def test_limit_bounds_the_range_and_star_is_infinity() -> None:
    r = rng(("introduced", "1.0"), ("limit", "2.0"))
    assert hits(r, Ecosystem.PYPI, PYPI_PROBES) == ["1.0", "1.0.1", "1.1", "1.5"]
    assert hits(rng(("introduced", "3.0"), ("limit", "*")), Ecosystem.PYPI, PYPI_PROBES) == [
        "3.0",
        "3.1",
        "10.0",
    ]
    two_limits = rng(("introduced", "0"), ("limit", "1.0"), ("limit", "2.0"))
    assert hits(two_limits, Ecosystem.PYPI, PYPI_PROBES) == PYPI_PROBES[:6]


def test_equal_versions_keep_record_order() -> None:
    single = rng(("introduced", "2.0"), ("last_affected", "2.0"))
    assert hits(single, Ecosystem.PYPI, PYPI_PROBES) == ["2.0"]
    reopened = rng(("introduced", "0"), ("fixed", "2.0"), ("introduced", "2.0"), ("fixed", "3.0"))
    assert hits(reopened, Ecosystem.PYPI, PYPI_PROBES) == PYPI_PROBES[:9]


def test_each_ecosystem_uses_its_own_ordering() -> None:
    # 1.10 > 1.9 everywhere numeric; a string comparison would say otherwise.
    assert range_affects(rng(("introduced", "1.9"), ("fixed", "1.10")), Ecosystem.PYPI, "1.9.5")
    # Maven: 1.0-sp1 is after 1.0; RubyGems: 1.0.a is before 1.0; Composer: -p1 is after.
    assert not range_affects(rng(("introduced", "0"), ("fixed", "1.0")), Ecosystem.MAVEN, "1.0-sp1")
    assert range_affects(rng(("introduced", "0"), ("fixed", "1.0")), Ecosystem.RUBYGEMS, "1.0.a")
    assert not range_affects(
        rng(("introduced", "0"), ("fixed", "2.3.2")), Ecosystem.COMPOSER, "2.3.2-p1"
    )
    # NuGet labels are case-insensitive: 1.0.0-BETA is the pre-release 1.0.0-beta.
    assert range_affects(
        rng(("introduced", "1.0.0-beta"), ("fixed", "1.0.0")), Ecosystem.NUGET, "1.0.0-BETA"
    )


def test_semver_ranges_use_semver_outside_npm() -> None:
    semver = rng(("introduced", "0"), ("fixed", "1.0.0"), kind=RangeType.SEMVER)
    ecosystem = rng(("introduced", "0"), ("fixed", "1.0.0"))
    # In SemVer 1.0.0-sp1 is a pre-release of 1.0.0; in Maven it is a service pack after it.
    assert range_affects(semver, Ecosystem.MAVEN, "1.0.0-sp1")
    assert not range_affects(ecosystem, Ecosystem.MAVEN, "1.0.0-sp1")
    # Go: OSV writes SEMVER bounds without "v"; module versions carry it.
    go = rng(("introduced", "0"), ("fixed", "1.2.3"), kind=RangeType.SEMVER)
    assert range_affects(go, Ecosystem.GO, "v1.2.3-0.20200101000000-abcdefabcdef")
    assert not range_affects(go, Ecosystem.GO, "v1.2.3")


def test_git_ranges_are_not_evaluated_and_say_why() -> None:
    git = rng(("introduced", "0"), ("fixed", "a" * 40), kind=RangeType.GIT)
    assert git.unevaluable_reason == GIT_RANGE_REASON
    assert not range_affects(git, Ecosystem.PYPI, "1.0")
    adv = advisory("X-1", git, versions=frozenset({"1.0"}))
    assert affects(adv, Ecosystem.PYPI, "1.0", "pkg")  # the versions list still counts
    assert not affects(adv, Ecosystem.PYPI, "1.1", "pkg")


def test_explicit_versions_match_by_the_ecosystems_spelling() -> None:
    pypi = advisory("X-2", versions=frozenset({"1.0a1", "2.0"}))
    assert affects(pypi, Ecosystem.PYPI, "1.0alpha1", "pkg")
    assert affects(pypi, Ecosystem.PYPI, "2.0", "pkg")
    assert not affects(pypi, Ecosystem.PYPI, "2.0.1", "pkg")
    go = advisory(
        "X-3", ecosystem=Ecosystem.GO, name="example.com/m", versions=frozenset({"1.2.3"})
    )
    assert affects(go, Ecosystem.GO, "v1.2.3", "example.com/m")
    nuget = advisory(
        "X-4", ecosystem=Ecosystem.NUGET, name="a.b", versions=frozenset({"1.0.0-Beta"})
    )
    assert affects(nuget, Ecosystem.NUGET, "1.0-beta", "A.B")
    npm = advisory("X-5", ecosystem=Ecosystem.NPM, name="left-pad", versions=frozenset({"1.0.0"}))
    # npm reads `v1.0.0` and `=1.0.0` as 1.0.0 (node-semver's loose reading), build metadata aside.
    assert affects(npm, Ecosystem.NPM, "v1.0.0", "left-pad")
    assert affects(npm, Ecosystem.NPM, "=1.0.0", "left-pad")
    assert not affects(npm, Ecosystem.NPM, "1.0.1", "left-pad")


def test_explicit_versions_use_pep440_equality_not_strings() -> None:
    # pendulum==2.0.0 is the release an advisory lists as `2.0` (pip treats them as one).
    listed = advisory("X-9", name="pendulum", versions=frozenset({"2.0", "1.0a1"}))
    assert affecting([listed], Ecosystem.PYPI, "pendulum", "2.0.0") == [listed]
    assert affects(listed, Ecosystem.PYPI, "1.0.0a1", "pendulum")
    assert affects(listed, Ecosystem.PYPI, "0!2.0.0", "pendulum")
    assert not affects(listed, Ecosystem.PYPI, "2.0.0.post1", "pendulum")
    assert not affects(listed, Ecosystem.PYPI, "2.0+local", "pendulum")
    reverse = advisory("X-10", name="siuba", versions=frozenset({"0.3.0"}))
    assert affects(reverse, Ecosystem.PYPI, "0.3", "siuba")


def test_oversized_versions_never_raise() -> None:
    huge = "1" * 5000
    adv = advisory("X-11", rng(("introduced", "0"), ("fixed", "2.0")), versions=frozenset({"1.0"}))
    for eco in Ecosystem:
        assert isinstance(affects(adv, eco, huge, "pkg"), bool)
        assert isinstance(affects(adv, eco, huge + ".0", "pkg"), bool)


def test_withdrawn_advisories_never_match() -> None:
    live = advisory("X-6", rng(("introduced", "0")))
    gone = advisory("X-7", rng(("introduced", "0")), withdrawn=datetime(2024, 1, 1, tzinfo=UTC))
    assert affecting([live, gone], Ecosystem.PYPI, "pkg", "1.0") == [live]
    assert not affects(gone, Ecosystem.PYPI, "1.0", "pkg")
    assert fixed_versions(gone, Ecosystem.PYPI, "pkg", "1.0") == []


def test_package_and_ecosystem_must_match_after_normalisation() -> None:
    adv = advisory("X-8", rng(("introduced", "0")), name="django-rest-framework")
    assert affecting([adv], Ecosystem.PYPI, "Django_Rest.Framework", "1.0") == [adv]
    assert affecting([adv], Ecosystem.PYPI, "django", "1.0") == []
    assert affecting([adv], Ecosystem.NPM, "django-rest-framework", "1.0.0") == []
    assert affects(adv.affected[0], Ecosystem.PYPI, "1.0")
    assert not affects(adv.affected[0], Ecosystem.NPM, "1.0.0")


def test_several_affected_entries_and_ranges_are_or_ed() -> None:
    one = Affected(
        "PyPI", Ecosystem.PYPI, "pkg", "pkg", ranges=(rng(("introduced", "1.0"), ("fixed", "1.1")),)
    )
    two = Affected(
        "PyPI",
        Ecosystem.PYPI,
        "pkg",
        "pkg",
        ranges=(rng(("introduced", "2.0"), ("fixed", "2.1")), rng(("introduced", "3.0"))),
    )
    adv = Advisory(id="X-9", source="test", affected=(one, two))
    assert [v for v in PYPI_PROBES if affects(adv, Ecosystem.PYPI, v, "pkg")] == [
        "1.0",
        "1.0.1",
        "2.0",
        "2.0.1",
        "3.0",
        "3.1",
        "10.0",
    ]


def test_unreadable_bounds_err_towards_affected() -> None:
    # An unparseable fixed bound is skipped; an unparseable introduced counts as "0".
    assert range_affects(
        rng(("introduced", "0"), ("fixed", "not a version")), Ecosystem.PYPI, "5.0"
    )
    assert range_affects(rng(("introduced", "???"), ("fixed", "2.0")), Ecosystem.PYPI, "0.1")
    assert not range_affects(rng(("introduced", "???"), ("fixed", "2.0")), Ecosystem.PYPI, "2.0")
    # An unparseable queried version sorts first: only ranges open at "0" include it.
    assert range_affects(rng(("introduced", "0"), ("fixed", "2.0")), Ecosystem.PYPI, "garbage")
    assert not range_affects(
        rng(("introduced", "1.0"), ("fixed", "2.0")), Ecosystem.PYPI, "garbage"
    )
    # Unreadable limits are skipped too: no readable limit means the implicit "*".
    assert range_affects(rng(("introduced", "1.0"), ("limit", "nope")), Ecosystem.PYPI, "5.0")
    # A range without any introduced event affects nothing (and says so).
    no_start = rng(("fixed", "2.0"))
    assert no_start.unevaluable_reason is not None
    assert not range_affects(no_start, Ecosystem.PYPI, "1.0")


def test_fixed_versions_are_the_nearest_fix_per_range() -> None:
    adv = advisory(
        "X-10",
        rng(("introduced", "1.0"), ("fixed", "1.1"), ("introduced", "2.0"), ("fixed", "2.5")),
        rng(("introduced", "0"), ("fixed", "3.0")),
        rng(("introduced", "0"), ("last_affected", "10.0")),
    )
    assert fixed_versions(adv, Ecosystem.PYPI, "pkg", "1.0.1") == ["1.1", "3.0"]
    assert fixed_versions(adv, Ecosystem.PYPI, "pkg", "2.0") == ["2.5", "3.0"]
    assert fixed_versions(adv, Ecosystem.PYPI, "pkg", "3.1") == []  # only last_affected covers it
    assert fixed_versions(adv, Ecosystem.PYPI, "pkg", "11.0") == []  # not affected


def test_group_by_alias_is_transitive() -> None:
    a = Advisory(id="PYSEC-1", source="t", aliases=("CVE-1",))
    b = Advisory(id="GHSA-aaaa", source="t", aliases=("CVE-1", "CVE-2"))
    c = Advisory(id="OSV-3", source="t", aliases=("CVE-2",))
    d = Advisory(id="PYSEC-9", source="t")
    assert group_by_alias([a, d, c, b]) == [[a, c, b], [d]]
    (rep, other) = deduplicate([a, d, c, b])
    assert rep.id == "GHSA-aaaa"
    assert set(rep.aliases) == {"CVE-1", "CVE-2", "PYSEC-1", "OSV-3"}
    assert other is d


def test_representative_preference_order() -> None:
    withdrawn_ghsa = Advisory(
        id="GHSA-w", source="t", aliases=("CVE-9",), withdrawn=datetime(2024, 1, 1, tzinfo=UTC)
    )
    pysec = Advisory(id="PYSEC-9", source="t", aliases=("CVE-9",))
    assert representative([withdrawn_ghsa, pysec]).id == "PYSEC-9"
    converted = Advisory(
        id="GHSA-x", source="conv", converted_from="rubysec", severity=Severity.HIGH
    )
    feed = Advisory(id="GHSA-x", source="feed")
    assert representative([converted, feed]).source == "feed"
    richer = Advisory(
        id="RUSTSEC-1",
        source="t",
        aliases=("X",),
        cvss_vector="CVSS:3.1/AV:N",
        severity=Severity.LOW,
    )
    poorer = Advisory(id="RUSTSEC-0", source="t", aliases=("X",))
    assert representative([poorer, richer]).id == "RUSTSEC-1"
    malicious = Advisory(id="MAL-1", source="t", aliases=("X",), is_malicious=True)
    merged = representative([richer, malicious])
    assert merged.id == "RUSTSEC-1"
    assert merged.is_malicious
    with pytest.raises(ValueError, match="empty"):
        representative([])
