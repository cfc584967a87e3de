"""`parse_osv`: tolerant reading of OSV records, with small hand-written records."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from pkgintel.domain.advisories import GIT_RANGE_REASON, RangeType, Severity, severity_from_osv
from pkgintel.domain.packages import Ecosystem
from pkgintel.sources.osv_schema import InvalidOSVRecord, parse_osv, parse_osv_json, parse_time

FULL: dict[str, Any] = {
    "schema_version": "1.6.0",
    "id": "GHSA-xxxx-yyyy-zzzz",
    "modified": "2024-05-01T10:00:00Z",
    "published": "2024-04-30T09:00:00.123Z",
    "aliases": ["CVE-2024-0001", "GHSA-xxxx-yyyy-zzzz", "CVE-2024-0001"],
    "summary": "Bad thing",
    "details": "Longer text",
    "severity": [{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
    "affected": [
        {
            "package": {"ecosystem": "PyPI", "name": "Django_Rest.Framework", "purl": "pkg:pypi/x"},
            "ranges": [
                {"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "3.0"}]},
                {"type": "GIT", "repo": "https://example.com/r", "events": [{"introduced": "0"}]},
            ],
            "versions": ["1.0", "2.0", "", 7],
            "ecosystem_specific": {"severity": "HIGH"},
        }
    ],
    "references": [
        {"type": "WEB", "url": "https://example.com/web"},
        {"type": "ADVISORY", "url": "https://example.com/adv"},
        {"type": "WEB"},
    ],
    "database_specific": {"severity": "CRITICAL"},
}


def test_full_record() -> None:
    adv = parse_osv(FULL, source="test")
    assert adv.id == "GHSA-xxxx-yyyy-zzzz"
    assert adv.aliases == ("CVE-2024-0001",)  # own id and duplicates dropped
    assert adv.published == datetime(2024, 4, 30, 9, 0, 0, 123000, tzinfo=UTC)
    assert adv.modified == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert adv.withdrawn is None
    assert (adv.severity, adv.cvss_score) == (Severity.CRITICAL, 9.8)  # the vector wins
    assert adv.database_severity == "CRITICAL"
    assert adv.url == "https://example.com/adv"
    assert len(adv.references) == 2
    (affected,) = adv.affected
    assert affected.ecosystem is Ecosystem.PYPI
    assert affected.name == "django-rest-framework"
    assert affected.display_name == "Django_Rest.Framework"
    assert affected.versions == frozenset({"1.0", "2.0"})
    assert [r.type for r in affected.ranges] == [RangeType.ECOSYSTEM, RangeType.GIT]
    assert affected.ranges[0].events == (("introduced", "0"), ("fixed", "3.0"))
    assert affected.ranges[1].repo == "https://example.com/r"
    assert affected.unevaluable_reason == GIT_RANGE_REASON
    assert affected.ecosystem_specific_severity == "HIGH"
    assert not adv.is_malicious


@pytest.mark.parametrize("bad", [{}, {"id": ""}, {"id": "   "}, {"id": 5}, {"summary": "no id"}])
def test_records_without_id_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidOSVRecord, match="no id"):
        parse_osv(bad, source="test")


def test_non_objects_and_bad_json_are_refused() -> None:
    with pytest.raises(InvalidOSVRecord):
        parse_osv(["not", "a", "record"], source="test")  # type: ignore[arg-type]
    with pytest.raises(InvalidOSVRecord, match="not valid JSON"):
        parse_osv_json(b"{nope", source="test")
    assert issubclass(InvalidOSVRecord, ValueError)
    assert parse_osv_json('{"id": "X-1"}', source="test").id == "X-1"


def test_minimal_and_mistyped_fields_fall_back_to_defaults() -> None:
    adv = parse_osv(
        {
            "id": "X-1",
            "aliases": "CVE-1",
            "summary": 3,
            "affected": [
                None,
                {"package": "npm"},
                {"package": {"ecosystem": "npm", "name": "a"}, "ranges": "x"},
            ],
            "severity": [{"type": "CVSS_V3", "score": "garbage"}],
            "published": "yesterday",
            "references": [{"url": 1}],
        },
        source="test",
    )
    assert (adv.aliases, adv.summary, adv.published, adv.references) == ((), "", None, ())
    assert (adv.severity, adv.cvss_score) == (None, None)
    assert [a.name for a in adv.affected] == ["", "a"]
    assert adv.affected[0].ecosystem is None
    assert adv.affected[0].unevaluable_reason is not None
    assert adv.affected[1].ranges == ()


def test_unknown_ecosystems_range_types_and_odd_events() -> None:
    adv = parse_osv(
        {
            "id": "X-2",
            "affected": [
                {
                    "package": {"ecosystem": "GHC", "name": "ghc"},
                    "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}]}],
                },
                {
                    "package": {
                        "ecosystem": "Maven:https://maven.google.com",
                        "name": "androidx.a:b",
                    },
                    "ranges": [
                        {
                            "type": "SEMVER",
                            "events": [
                                {"introduced": "1.0.0", "fixed": "2.0.0"},
                                {"limit": "*"},
                                {"bogus": "1"},
                            ],
                        },
                        {"type": "WHATEVER", "events": [{"introduced": "0"}]},
                    ],
                },
            ],
        },
        source="test",
    )
    ghc, maven = adv.affected
    assert ghc.ecosystem is None
    assert "GHC" in (ghc.unevaluable_reason or "")
    assert maven.ecosystem is Ecosystem.MAVEN
    assert maven.osv_ecosystem == "Maven:https://maven.google.com"
    (semver,) = maven.ranges
    assert semver.events == (("introduced", "1.0.0"), ("fixed", "2.0.0"), ("limit", "*"))
    assert "WHATEVER" in (maven.unevaluable_reason or "")


def test_withdrawn_and_malicious_flags() -> None:
    gone = parse_osv({"id": "PYSEC-1", "withdrawn": "2023-01-01T00:00:00Z"}, source="t")
    assert gone.is_withdrawn
    assert parse_osv({"id": "MAL-2024-1"}, source="t").is_malicious
    assert parse_osv(
        {
            "id": "GHSA-m",
            "database_specific": {"malicious-packages-origins": [{"source": "ghsa-malware"}]},
        },
        source="t",
    ).is_malicious


def test_times() -> None:
    assert parse_time("2026-03-13T16:20:47.266Z") == datetime(
        2026, 3, 13, 16, 20, 47, 266000, tzinfo=UTC
    )
    assert parse_time("2021-05-14T13:15:00+02:00") == datetime(2021, 5, 14, 11, 15, tzinfo=UTC)
    assert parse_time("2021-05-14") == datetime(2021, 5, 14, tzinfo=UTC)
    assert parse_time("0001-01-01T00:00:00Z") is None  # Go vulndb placeholder
    assert parse_time("not a time") is None
    assert parse_time(None) is None


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        # v4 beats v3 when both are present; the highest score of a kind wins.
        (
            {
                "severity": [
                    {"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"},
                    {
                        "type": "CVSS_V4",
                        "score": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N",
                    },
                ]
            },
            Severity.MEDIUM,
        ),
        (
            {
                "severity": [
                    {"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N"}
                ]
            },
            Severity.LOW,
        ),
        # per-package severity (Hackage writes affected[].severity)
        (
            {
                "affected": [
                    {
                        "severity": [
                            {
                                "type": "CVSS_V3",
                                "score": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
                            }
                        ]
                    }
                ]
            },
            Severity.CRITICAL,
        ),
        ({"severity": [], "database_specific": {"severity": "MODERATE"}}, Severity.MEDIUM),
        (
            {
                "affected": [
                    {"ecosystem_specific": {"severity": "low"}},
                    {"ecosystem_specific": {"severity": "high"}},
                ]
            },
            Severity.HIGH,
        ),
        ({"database_specific": {"cvss_v3_base_score": 9.1}}, Severity.CRITICAL),
        (
            {"severity": [{"type": "CVSS_V2", "score": "AV:N/AC:L/Au:N/C:C/I:C/A:C"}]},
            Severity.HIGH,
        ),  # 10.0 is "high" in v2
        (
            {
                "severity": [{"type": "CVSS_V3", "score": "nonsense"}],
                "database_specific": {"severity": "unknown"},
            },
            None,
        ),
        ({}, None),
    ],
)
def test_severity_from_osv(record: dict[str, Any], expected: Severity | None) -> None:
    assert severity_from_osv(record)[0] is expected


def test_severity_vector_and_score_are_returned() -> None:
    bucket, score, vector = severity_from_osv(
        {
            "severity": [
                {"type": "CVSS_V3", "score": " CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H "}
            ]
        }
    )
    assert (bucket, score, vector) == (
        Severity.CRITICAL,
        9.8,
        "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
    )
    assert severity_from_osv({"database_specific": {"severity": "HIGH"}}) == (
        Severity.HIGH,
        None,
        None,
    )
