"""`domain/suppressions.py`: the `.pkgintel.toml` form and the matching rules (pure)."""

from __future__ import annotations

from datetime import date

import pytest

from pkgintel.domain.suppressions import (
    Suppression,
    SuppressionError,
    apply,
    expired_note,
    parse_toml,
)

TODAY = date(2026, 11, 27)


def _pkg(*vulns: tuple[str, list[str]], **extra: object) -> dict[str, object]:
    return {
        "name": "demo",
        "version": "1.0.0",
        "status": "vulnerable",
        "deprecated": False,
        "vulnerability_status": "complete",
        "malicious": False,
        "vulnerabilities": [
            {"id": vid, "aliases": aliases, "severity": "high"} for vid, aliases in vulns
        ],
        **extra,
    }


def test_parse_reads_dates_and_names_lines() -> None:
    entries = parse_toml(
        '# header\n[[ignore]]\nid = "GHSA-1"\nreason = "r"\nuntil = 2027-01-31\n\n'
        '[[ignore]]\nid = "CVE-2"\nreason = "s"\nuntil = "2027-02-01"\n',
        source=".pkgintel.toml",
    )
    assert entries == (
        Suppression("GHSA-1", "r", date(2027, 1, 31), ".pkgintel.toml"),
        Suppression("CVE-2", "s", date(2027, 2, 1), ".pkgintel.toml"),
    )
    assert parse_toml("", source="x") == ()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[[ignore]]\nid = "A"\n', "entry 1 (line 1) (A): reason is required"),
        ('[[ignore]]\nreason = "r"\n', "entry 1 (line 1): id is required"),
        ('[[ignore]]\nid = "A"\nreason = "r"\nuntil = "soon"\n', "until must be a date"),
        ('[[ignore]]\nid = "A"\nreason = "r"\nuntil = 2027-01-01T10:00:00\n', "must be a date"),
        ('[[ignore]]\nid = "A"\nreson = "r"\n', "unknown key reson"),
        ("ignores = []\n", "unknown key ignores"),
        ("[[ignore]\n", "not valid TOML"),
        ('ignore = "A"\n', "must be a list"),
    ],
)
def test_parse_errors_name_the_entry(text: str, says: str) -> None:
    with pytest.raises(SuppressionError, match=r"^f\.toml") as caught:
        parse_toml(text, source="f.toml")
    assert says in str(caught.value)


def test_matches_id_or_alias_case_insensitively_until_the_date() -> None:
    pkg = _pkg(("PYSEC-1", ["CVE-2099-1"]), ("PYSEC-2", []))
    entries = [
        Suppression("cve-2099-1", "why", date(2026, 11, 27)),  # the last day still applies
        Suppression("PYSEC-2", "old", date(2026, 11, 26)),  # expired yesterday
    ]
    applied = apply([pkg], entries, TODAY)
    (item,) = applied.packages
    first, second = item["vulnerabilities"]
    assert first["suppressed"] is True and first["suppression"]["reason"] == "why"
    assert second["suppressed"] is False
    assert item["status"] == "vulnerable" and item["suppressed"] == ["PYSEC-1"]
    assert applied.suppressed == 1 and applied.expired == (entries[1],)
    assert "PYSEC-2" in expired_note(entries[1]) and "2026-11-26" in expired_note(entries[1])
    assert pkg["vulnerabilities"][0].get("suppressed") is None  # the input is not changed


def test_a_fully_suppressed_package_takes_its_other_status() -> None:
    deprecated = _pkg(("A", []), deprecated=True)
    malicious = _pkg(malicious=True, malicious_advisories=["MAL-1", "MAL-2"], status="malicious")
    entries = [Suppression("A", "r"), Suppression("MAL-1", "r")]
    done = apply([deprecated, malicious], entries, TODAY).packages
    assert done[0]["status"] == "deprecated"
    assert done[1]["status"] == "malicious"  # MAL-2 is not suppressed
    both = apply([malicious], [*entries, Suppression("mal-2", "r")], TODAY).packages[0]
    assert both["status"] == "ok" and both["malicious_suppressed"] is True
    assert both["malicious"] is True  # the fact stays
