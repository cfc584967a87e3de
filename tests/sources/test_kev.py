"""`parse_kev`: the CISA KEV catalog, hand-written entries and the real catalog read in place."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest

from pkgintel.domain.errors import PkgIntelError
from pkgintel.sources.errors import InvalidSourceData
from pkgintel.sources.kev import KevEntry, parse_kev, ransomware_flag
from tests.shared import read_shared_bytes, requires_shared

LOG4SHELL: dict[str, Any] = {
    "cveID": "CVE-2021-44228",
    "vendorProject": "Apache",
    "product": "Log4j2",
    "vulnerabilityName": "Apache Log4j2 Remote Code Execution Vulnerability",
    "dateAdded": "2021-12-10",
    "shortDescription": "JNDI features do not protect against attacker-controlled endpoints.",
    "requiredAction": "Apply updates.",
    "dueDate": "2021-12-24",
    "knownRansomwareCampaignUse": "Known",
    "notes": "https://nvd.nist.gov/vuln/detail/CVE-2021-44228",
    "cwes": ["CWE-20", "CWE-400", "CWE-502"],
}


def catalog(*vulnerabilities: object, **top: object) -> str:
    document: dict[str, object] = {
        "title": "CISA Catalog of Known Exploited Vulnerabilities",
        "catalogVersion": "2024.01.02",
        "dateReleased": "2024-01-02T15:30:00.1234Z",
        "count": len(vulnerabilities),
        "vulnerabilities": list(vulnerabilities),
    }
    document.update(top)
    return json.dumps(document)


def test_full_entry_and_catalog_header() -> None:
    parsed = parse_kev(catalog(LOG4SHELL).encode())
    assert parsed.catalog_version == "2024.01.02"
    assert parsed.date_released == datetime(2024, 1, 2, 15, 30, 0, 123400, tzinfo=UTC)
    assert parsed.skipped == ()
    assert parsed.entries == (
        KevEntry(
            cve_id="CVE-2021-44228",
            vendor="Apache",
            product="Log4j2",
            name="Apache Log4j2 Remote Code Execution Vulnerability",
            date_added=date(2021, 12, 10),
            due_date=date(2021, 12, 24),
            ransomware=True,
            notes="https://nvd.nist.gov/vuln/detail/CVE-2021-44228",
            description="JNDI features do not protect against attacker-controlled endpoints.",
            required_action="Apply updates.",
            cwes=("CWE-20", "CWE-400", "CWE-502"),
        ),
    )
    assert parsed.by_cve()["CVE-2021-44228"].product == "Log4j2"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Known", True),
        (" known ", True),
        ("Unknown", False),
        ("Suspected", False),
        ("", None),
        (None, None),
        (True, None),
    ],
)
def test_ransomware_flag(value: object, expected: bool | None) -> None:
    assert ransomware_flag(value) is expected


def test_missing_ransomware_field_is_none() -> None:
    entry = {k: v for k, v in LOG4SHELL.items() if k != "knownRansomwareCampaignUse"}
    (parsed,) = parse_kev(catalog(entry)).entries
    assert parsed.ransomware is None


def test_tolerant_fields() -> None:
    entry = {
        "cveID": " cve-2024-123456 ",
        "dateAdded": "2024-03-01",
        "dueDate": "soon",
        "vendorProject": 7,
        "cwes": ["CWE-79", 3, ""],
    }
    (parsed,) = parse_kev(catalog(entry)).entries
    assert parsed.cve_id == "CVE-2024-123456"
    assert parsed.due_date is None
    assert (parsed.vendor, parsed.product, parsed.name, parsed.notes) == ("", "", "", "")
    assert parsed.cwes == ("CWE-79",)


def test_bad_entries_are_skipped_with_reasons() -> None:
    good = {"cveID": "CVE-2023-0001", "dateAdded": "2023-01-01"}
    parsed = parse_kev(
        catalog(
            good,
            "CVE-2023-0002",
            {"cveID": "CVE-23-0003", "dateAdded": "2023-01-01"},
            {"cveID": "CVE-2023-123", "dateAdded": "2023-01-01"},
            {"dateAdded": "2023-01-01"},
            {"cveID": "CVE-2023-0004", "dateAdded": "01/02/2023"},
            {"cveID": "CVE-2023-0005"},
            {"cveID": "cve-2023-0001", "dateAdded": "2024-01-01"},
        )
    )
    assert [e.cve_id for e in parsed.entries] == ["CVE-2023-0001"]
    assert parsed.entries[0].date_added == date(2023, 1, 1)  # the first of a duplicate pair wins
    assert len(parsed.skipped) == 7
    assert parsed.skipped[0] == "vulnerabilities[1]: not an object (str)"
    assert parsed.skipped[2].startswith("vulnerabilities[3]: invalid cveID")
    assert parsed.skipped[4] == "vulnerabilities[5]: CVE-2023-0004: invalid dateAdded '01/02/2023'"
    assert parsed.skipped[6] == "vulnerabilities[7]: duplicate CVE-2023-0001"


def test_optional_header_fields() -> None:
    parsed = parse_kev(json.dumps({"vulnerabilities": []}))
    assert (parsed.catalog_version, parsed.date_released, parsed.entries) == (None, None, ())


@pytest.mark.parametrize(
    "data",
    [
        b"<html>not json</html>",
        b"",
        b"[]",
        catalog(vulnerabilities={"CVE-2021-44228": LOG4SHELL}),
        json.dumps({"catalogVersion": "2024.01.02"}),
    ],
)
def test_malformed_catalog_raises(data: bytes | str) -> None:
    with pytest.raises(InvalidSourceData) as caught:
        parse_kev(data, source="kev-test")
    assert caught.value.source == "kev-test"
    assert caught.value.message.startswith("kev-test: ")
    assert isinstance(caught.value, PkgIntelError)
    assert caught.value.reason == "invalid_source_data"


# --- the real catalog (../shared/data/kev, CISA's file byte for byte) ------------------------


@requires_shared
@pytest.mark.shared
def test_real_catalog() -> None:
    parsed = parse_kev(read_shared_bytes("kev", "known_exploited_vulnerabilities.json"))
    assert parsed.catalog_version == "2025.08.25"
    assert parsed.date_released == datetime(2025, 8, 25, 17, 4, 19, 979600, tzinfo=UTC)
    assert len(parsed.entries) == 1404
    assert parsed.skipped == ()

    by_cve = parsed.by_cve()
    log4shell = by_cve["CVE-2021-44228"]
    assert (log4shell.vendor, log4shell.product) == ("Apache", "Log4j2")
    assert log4shell.date_added == date(2021, 12, 10)
    assert log4shell.due_date == date(2021, 12, 24)
    assert log4shell.ransomware is True

    newest = parsed.entries[0]
    assert newest.cve_id == "CVE-2025-48384"
    assert (newest.vendor, newest.date_added, newest.due_date) == (
        "Git",
        date(2025, 8, 25),
        date(2025, 9, 15),
    )
    assert newest.ransomware is False
    assert newest.cwes[0] == "CWE-59"

    assert sum(e.ransomware is True for e in parsed.entries) == 293
    assert sum(e.ransomware is False for e in parsed.entries) == 1111
