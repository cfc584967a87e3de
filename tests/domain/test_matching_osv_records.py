"""
Matching over real OSV records, read in place from `../shared/data` (skipped when absent).

Each case names records by id, a package and, for each probe version, the exact set of ids that
a careful reading of those records under the OSV schema gives. The expectations were derived by
hand from the records' `ranges`, `versions` and `withdrawn` fields (the comment on each case says
what the records contain), not by running the matcher.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from functools import cache

import pytest

from pkgintel.domain.advisories import Advisory, Severity
from pkgintel.domain.matching import affecting, deduplicate, fixed_versions, group_by_alias
from pkgintel.domain.packages import Ecosystem
from pkgintel.sources.osv_schema import parse_osv
from tests.shared import requires_shared, shared_path

pytestmark = [requires_shared, pytest.mark.shared]


@cache
def _record(location: str, rid: str) -> Advisory:
    if location.endswith(".zip"):
        with zipfile.ZipFile(shared_path(location)) as zf:
            raw = json.loads(zf.read(f"{rid}.json"))
    else:
        raw = json.loads(shared_path(location, f"{rid}.json").read_text())
    return parse_osv(raw, source=location)


def records(location: str, *ids: str) -> list[Advisory]:
    return [_record(location, rid) for rid in ids]


@dataclass(frozen=True)
class Case:
    name: str
    records: tuple[tuple[str, str], ...]
    ecosystem: Ecosystem
    package: str
    expected: dict[str, set[str]]
    fixed: dict[str, list[str]] = field(default_factory=dict)
    """version → fixed_versions of the (single) first record."""


PYPI = "osv/PyPI/all.zip"
CRATES = "osv/crates.io/all.zip"
GO = "osv/Go/all.zip"
JULIA = "osv/Julia/all.zip"
HACKAGE = "osv/Hackage/all.zip"
CRAN = "osv/CRAN/all.zip"
NSWG = "osv-converted/npm/all.zip"
RUBYSEC = "osv-converted/RubyGems/all.zip"
FOP = "osv-converted/Packagist/all.zip"
GHSA = "osv-ghsa-samples"

CASES = [
    # PYSEC-2014-1: [0, 1.4.11) [1.5, 1.5.6) [1.6, 1.6.3); PYSEC-2014-19: [1.4, 1.4.13)
    # [1.5, 1.5.8) [1.6, 1.6.5) [1.7a0, 1.7b4) — several intervals in one ECOSYSTEM range, a
    # pre-release interval, GIT ranges beside them.
    Case(
        "django-multiple-intervals",
        ((PYPI, "PYSEC-2014-1"), (PYPI, "PYSEC-2014-19")),
        Ecosystem.PYPI,
        "Django",
        {
            "1.3": {"PYSEC-2014-1"},
            "1.4": {"PYSEC-2014-1", "PYSEC-2014-19"},
            "1.4.10": {"PYSEC-2014-1", "PYSEC-2014-19"},
            "1.4.11": {"PYSEC-2014-19"},
            "1.4.13": set(),
            "1.5.5": {"PYSEC-2014-1", "PYSEC-2014-19"},
            "1.5.7": {"PYSEC-2014-19"},
            "1.6": {"PYSEC-2014-1", "PYSEC-2014-19"},
            "1.6.4": {"PYSEC-2014-19"},
            "1.6.5": set(),
            "1.7a1": {"PYSEC-2014-19"},
            "1.7b3": {"PYSEC-2014-19"},
            "1.7b4": set(),
            "1.7": set(),
        },
        fixed={"1.4.10": ["1.4.11"], "1.5.5": ["1.5.6"], "1.4.11": []},
    ),
    # PYSEC-2022-42969 (py): [0, last_affected 1.11.0]; its versions list spells 0.8.0-alpha2.
    Case(
        "pypi-last-affected",
        ((PYPI, "PYSEC-2022-42969"),),
        Ecosystem.PYPI,
        "py",
        {
            "1.10.0": {"PYSEC-2022-42969"},
            "1.11.0": {"PYSEC-2022-42969"},
            "1.11.1": set(),
            "0.8.0a2": {"PYSEC-2022-42969"},
        },
        fixed={"1.11.0": []},
    ),
    # PYSEC-2009-10 (ZODB3): [3.8, 3.8.3) [3.9a0, 3.9.0c2) — PEP 440 pre-release bounds.
    Case(
        "pypi-prerelease-bounds",
        ((PYPI, "PYSEC-2009-10"),),
        Ecosystem.PYPI,
        "ZODB3",
        {
            "3.7.0": set(),
            "3.8": {"PYSEC-2009-10"},
            "3.8.1b1": {"PYSEC-2009-10"},
            "3.8.3": set(),
            "3.9.0a1": {"PYSEC-2009-10"},
            "3.9.0c1": {"PYSEC-2009-10"},
            "3.9.0rc1": {"PYSEC-2009-10"},
            "3.9.0c2": set(),
            "3.9.0": set(),
        },
        fixed={"3.9.0c1": ["3.9.0c2"]},
    ),
    # PYSEC-2021-13 (flask-caching, introduced 1.0.0, no fix) is withdrawn: it never matches.
    Case(
        "pypi-withdrawn",
        ((PYPI, "PYSEC-2021-13"),),
        Ecosystem.PYPI,
        "Flask-Caching",
        {"1.10.0": set(), "1.0.0": set()},
    ),
    # RUSTSEC-2020-0069 (lettre): [0.7.0, 0.7.1) [0.8.0, 0.8.4) [0.9.0, 0.9.5)
    # [0.10.0-alpha.1, 0.10.0-alpha.4) in one SEMVER range.
    Case(
        "rustsec-several-intervals-prerelease",
        ((CRATES, "RUSTSEC-2020-0069"),),
        Ecosystem.CARGO,
        "lettre",
        {
            "0.6.9": set(),
            "0.7.0": {"RUSTSEC-2020-0069"},
            "0.7.1": set(),
            "0.8.3": {"RUSTSEC-2020-0069"},
            "0.8.4": set(),
            "0.9.4": {"RUSTSEC-2020-0069"},
            "0.9.5": set(),
            "0.10.0-alpha": set(),
            "0.10.0-alpha.1": {"RUSTSEC-2020-0069"},
            "0.10.0-alpha.3": {"RUSTSEC-2020-0069"},
            "0.10.0-alpha.4": set(),
            "0.10.0-alpha.10": set(),
            "0.10.0": set(),
        },
        fixed={"0.8.3": ["0.8.4"], "0.10.0-alpha.3": ["0.10.0-alpha.4"]},
    ),
    # RUSTSEC-2018-0003 (smallvec): [0.3.2, 0.3.4) [0.4.0-0, 0.4.5) [0.5.0-0, 0.5.1)
    # [0.6.0-0, 0.6.3): "-0" takes in every pre-release of the minor.
    Case(
        "rustsec-dash-zero",
        ((CRATES, "RUSTSEC-2018-0003"),),
        Ecosystem.CARGO,
        "smallvec",
        {
            "0.3.1": set(),
            "0.3.2": {"RUSTSEC-2018-0003"},
            "0.3.4": set(),
            "0.4.0-alpha": {"RUSTSEC-2018-0003"},
            "0.4.4": {"RUSTSEC-2018-0003"},
            "0.4.5": set(),
            "0.6.2": {"RUSTSEC-2018-0003"},
            "0.6.3": set(),
            "1.0.0": set(),
        },
    ),
    # GO-2021-0076 (json-patch): [0, 0.5.2) [3.0.0+incompatible,
    # 3.0.1-0.20180525145409-4c9aadca8f89+incompatible): a pseudo-version as fix.
    Case(
        "go-pseudo-version-fix",
        ((GO, "GO-2021-0076"),),
        Ecosystem.GO,
        "github.com/evanphx/json-patch",
        {
            "v0.5.1": {"GO-2021-0076"},
            "v0.5.2": set(),
            "v1.0.0": set(),
            "v3.0.0+incompatible": {"GO-2021-0076"},
            "v3.0.1-0.20180101000000-aaaaaaaaaaaa+incompatible": {"GO-2021-0076"},
            "v3.0.1-0.20180525145409-4c9aadca8f89+incompatible": set(),
            "v4.0.0+incompatible": set(),
        },
    ),
    # GO-2023-1987 (stdlib): [0, 1.19.12) [1.20.0-0, 1.20.7) [1.21.0-0, 1.21.0-rc.4).
    Case(
        "go-stdlib-release-candidates",
        ((GO, "GO-2023-1987"),),
        Ecosystem.GO,
        "stdlib",
        {
            "1.19.11": {"GO-2023-1987"},
            "v1.19.12": set(),
            "1.20.0-rc.1": {"GO-2023-1987"},
            "v1.20.6": {"GO-2023-1987"},
            "1.20.7": set(),
            "1.21.0-rc.3": {"GO-2023-1987"},
            "1.21.0-rc.4": set(),
            "1.21.0": set(),
        },
        fixed={"v1.20.6": ["1.20.7"]},
    ),
    # GO-2022-0357 / -0358: argo-cd (v1 path) open from 1.3.0 / 1.5.0; argo-cd/v2 [0, 2.1.11)
    # [2.2.0, 2.2.6) [2.3.0-rc1, 2.3.0) in both — two affected entries, two module paths.
    Case(
        "go-two-modules-v1",
        ((GO, "GO-2022-0357"), (GO, "GO-2022-0358")),
        Ecosystem.GO,
        "github.com/argoproj/argo-cd",
        {"v1.2.0": set(), "v1.4.0": {"GO-2022-0357"}, "v1.5.0": {"GO-2022-0357", "GO-2022-0358"}},
    ),
    Case(
        "go-two-modules-v2",
        ((GO, "GO-2022-0357"), (GO, "GO-2022-0358")),
        Ecosystem.GO,
        "github.com/argoproj/argo-cd/v2",
        {
            "v2.1.10": {"GO-2022-0357", "GO-2022-0358"},
            "v2.1.11": set(),
            "v2.2.6": set(),
            "v2.3.0-rc1": {"GO-2022-0357", "GO-2022-0358"},
            "v2.3.0-rc5": {"GO-2022-0357", "GO-2022-0358"},
            "v2.3.0": set(),
        },
    ),
    # GO-2024-2730 (gorilla/sessions) is withdrawn.
    Case(
        "go-withdrawn",
        ((GO, "GO-2024-2730"),),
        Ecosystem.GO,
        "github.com/gorilla/sessions",
        {"v1.2.1": set()},
    ),
    # JLSEC-2025-109 [4.3.1+0, 4.3.1+2); -110 [4.3.1+2, 4.4.0+0); -117 [0, 4.3.1+0)
    # [4.3.1+2, 4.4.0+0): JLL rebuilds differ only in build metadata.
    Case(
        "julia-build-numbers",
        ((JULIA, "JLSEC-2025-109"), (JULIA, "JLSEC-2025-110"), (JULIA, "JLSEC-2025-117")),
        Ecosystem.JULIA,
        "FFMPEG_jll",
        {
            "4.2.2+0": {"JLSEC-2025-117"},
            "4.3.1+0": {"JLSEC-2025-109"},
            "4.3.1+1": {"JLSEC-2025-109"},
            "4.3.1+2": {"JLSEC-2025-110", "JLSEC-2025-117"},
            "4.3.2+0": {"JLSEC-2025-110", "JLSEC-2025-117"},
            "4.4.0+0": set(),
        },
        fixed={"4.3.1+1": ["4.3.1+2"]},
    ),
    # JLSEC-2025-82 [0, 2.12.0+0) is withdrawn; JLSEC-2025-86 [0, 2.13.6+1) is not.
    Case(
        "julia-withdrawn",
        ((JULIA, "JLSEC-2025-82"), (JULIA, "JLSEC-2025-86")),
        Ecosystem.JULIA,
        "XML2_jll",
        {"2.11.0+0": {"JLSEC-2025-86"}, "2.13.6+1": set()},
    ),
    # HSEC-2023-0009 [0, 6.20170818); -0010 [0, 6.20180626); -0011 [0.20110417, 6.20180626);
    # -0012 [0.20110417, 6.20160419); -0013 [0.20110401, 5.20140919): git-annex, PVP order.
    Case(
        "hackage-git-annex",
        tuple((HACKAGE, f"HSEC-2023-00{n}") for n in ("09", "10", "11", "12", "13")),
        Ecosystem.HACKAGE,
        "git-annex",
        {
            "0.20110101": {"HSEC-2023-0009", "HSEC-2023-0010"},
            "5.20140918": {
                "HSEC-2023-0009",
                "HSEC-2023-0010",
                "HSEC-2023-0011",
                "HSEC-2023-0012",
                "HSEC-2023-0013",
            },
            "5.20140919": {"HSEC-2023-0009", "HSEC-2023-0010", "HSEC-2023-0011", "HSEC-2023-0012"},
            "6.20170101": {"HSEC-2023-0009", "HSEC-2023-0010", "HSEC-2023-0011"},
            "6.20180101": {"HSEC-2023-0010", "HSEC-2023-0011"},
            "6.20180626": set(),
        },
    ),
    # HSEC-2024-0007 concerns the GHC compiler (OSV ecosystem "GHC"), not Hackage's ghc package.
    Case(
        "hackage-ghc-ecosystem-is-not-hackage",
        ((HACKAGE, "HSEC-2024-0007"),),
        Ecosystem.HACKAGE,
        "ghc",
        {"9.2.4": set()},
    ),
    # RSEC-2023-0 [0.1.0, 1.1.0); RSEC-2023-1 [0.1.0, 1.3.0) (readxl), with versions lists.
    Case(
        "cran-readxl",
        ((CRAN, "RSEC-2023-0"), (CRAN, "RSEC-2023-1")),
        Ecosystem.CRAN,
        "readxl",
        {
            "0.1.0": {"RSEC-2023-0", "RSEC-2023-1"},
            "1.0.0": {"RSEC-2023-0", "RSEC-2023-1"},
            "1.2.0": {"RSEC-2023-1"},
            "1.3.0": set(),
        },
    ),
    # NSWG-332 (yui): [3.0.0, last_affected 3.9.1] plus the explicit version 3.10.2.
    Case(
        "npm-last-affected-and-versions-list",
        ((NSWG, "NSWG-332"),),
        Ecosystem.NPM,
        "yui",
        {
            "2.9.0": set(),
            "3.0.0-beta1": set(),
            "3.0.0": {"NSWG-332"},
            "3.9.1": {"NSWG-332"},
            "3.10.0": set(),
            "3.10.2": {"NSWG-332"},
        },
        fixed={"3.9.1": []},
    ),
    # NSWG-8 (express): two SEMVER ranges [0, 3.11.0-0) and [4.0.0, 4.5.0-0).
    Case(
        "npm-two-ranges-dash-zero-fix",
        ((NSWG, "NSWG-8"),),
        Ecosystem.NPM,
        "express",
        {
            "3.10.5": {"NSWG-8"},
            "3.11.0-alpha": set(),
            "3.11.0": set(),
            "4.0.0-rc1": set(),
            "4.4.9": {"NSWG-8"},
            "4.5.0-beta": set(),
        },
        fixed={"3.10.5": ["3.11.0-0"], "4.4.9": ["4.5.0-0"]},
    ),
    # MAL-2023-1086: a malicious scoped package, versions list only (100.0.0 - 100.0.3).
    Case(
        "npm-malicious-versions-only",
        (("osv-malicious/npm/all.zip", "MAL-2023-1086"),),
        Ecosystem.NPM,
        "@mendeley-internal/react-ui",
        {
            "1.0.0": set(),
            "100.0.1": {"MAL-2023-1086"},
            "100.0.3": {"MAL-2023-1086"},
            "100.0.4": set(),
        },
    ),
    # MAL-2023-1359 (bytedtrace): versions 0.1.0 - 0.1.9 only.
    Case(
        "pypi-malicious-versions-only",
        (("osv-malicious/PyPI/all.zip", "MAL-2023-1359"),),
        Ecosystem.PYPI,
        "bytedtrace",
        {"0.1.5": {"MAL-2023-1359"}, "0.2.0": set()},
    ),
    # GHSA-78rc-8c29-p45g (actionpack, rubysec): [0, 3.2.22.2) [3.2.23, 4.1.14.2)
    # [4.2.0, 4.2.5.2) [4.3.0, 5.0.0.beta1): Gem::Version four-part and pre-release bounds.
    Case(
        "rubygems-prerelease-bounds",
        ((RUBYSEC, "GHSA-78rc-8c29-p45g"),),
        Ecosystem.RUBYGEMS,
        "actionpack",
        {
            "3.2.22.1": {"GHSA-78rc-8c29-p45g"},
            "3.2.22.2": set(),
            "3.2.22.5": set(),
            "4.1.14.1": {"GHSA-78rc-8c29-p45g"},
            "4.2.0.rc1": set(),
            "4.2.5.1": {"GHSA-78rc-8c29-p45g"},
            "4.2.6": set(),
            "5.0.0.alpha": {"GHSA-78rc-8c29-p45g"},
            "5.0.0.beta1": set(),
            "5.0.0": set(),
        },
        fixed={"5.0.0.alpha": ["5.0.0.beta1"]},
    ),
    # FOP (Magento CVE-2019-8090): [2.2, 2.2.10) [2.3, 2.3.2-p2): Composer "-pN" patches.
    Case(
        "composer-patch-versions",
        ((FOP, "FOP-magento-product-community-edition-CVE-2019-8090"),),
        Ecosystem.COMPOSER,
        "Magento/Product-Community-Edition",
        {
            "2.1.18": set(),
            "2.2.9": {"FOP-magento-product-community-edition-CVE-2019-8090"},
            "2.2.10": set(),
            "2.3.2": {"FOP-magento-product-community-edition-CVE-2019-8090"},
            "2.3.2-p1": {"FOP-magento-product-community-edition-CVE-2019-8090"},
            "2.3.2-p2": set(),
            "2.3.3": set(),
        },
    ),
    # GitHub's GHSA-229r-pqp6-8w6g (sprout) says [0, last_affected 0.7.246]; the rubysec
    # conversion of the same id says [0.7.246, ∞): the same id, two opinions, both evaluated.
    Case(
        "rubygems-same-id-two-sources",
        ((GHSA, "GHSA-229r-pqp6-8w6g"), (RUBYSEC, "GHSA-229r-pqp6-8w6g")),
        Ecosystem.RUBYGEMS,
        "sprout",
        {
            "0.7.245": {"GHSA-229r-pqp6-8w6g"},
            "0.7.246": {"GHSA-229r-pqp6-8w6g"},
            "0.8.0": {"GHSA-229r-pqp6-8w6g"},
        },
    ),
    # GHSA samples: PyPI name PaddlePaddle (normalised), Maven group:artifact, npm plotly.js.
    Case(
        "ghsa-pypi-name-casing",
        ((GHSA, "GHSA-275c-w5mq-v5m2"),),
        Ecosystem.PYPI,
        "paddlepaddle",
        {"2.5.2": {"GHSA-275c-w5mq-v5m2"}, "2.6.0rc0": {"GHSA-275c-w5mq-v5m2"}, "2.6.0": set()},
    ),
    Case(
        "ghsa-maven",
        ((GHSA, "GHSA-23rx-79r7-6cpx"),),
        Ecosystem.MAVEN,
        "de.tum.in.ase:artemis-java-test-sandbox",
        {
            "1.7.5": {"GHSA-23rx-79r7-6cpx"},
            "1.7.6-SNAPSHOT": {"GHSA-23rx-79r7-6cpx"},
            "1.7.6": set(),
            "1.7.6.1": set(),
        },
    ),
    Case(
        "ghsa-npm",
        ((GHSA, "GHSA-2fqv-h3r5-m4vf"),),
        Ecosystem.NPM,
        "plotly.js",
        {
            "1.15.9": {"GHSA-2fqv-h3r5-m4vf"},
            "1.16.0-rc.1": {"GHSA-2fqv-h3r5-m4vf"},
            "1.16.0": set(),
        },
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_affecting_ids_match_a_reading_of_the_records(case: Case) -> None:
    advisories = [_record(loc, rid) for loc, rid in case.records]
    for version, expected in case.expected.items():
        got = {a.id for a in affecting(advisories, case.ecosystem, case.package, version)}
        assert got == expected, (case.name, version)
    for version, fixes in case.fixed.items():
        assert fixed_versions(advisories[0], case.ecosystem, case.package, version) == fixes, (
            version
        )


def test_sprout_fixture_really_holds_two_different_records() -> None:
    feed, converted = _record(GHSA, "GHSA-229r-pqp6-8w6g"), _record(RUBYSEC, "GHSA-229r-pqp6-8w6g")
    assert {a.id for a in affecting([feed], Ecosystem.RUBYGEMS, "sprout", "0.8.0")} == set()
    assert {a.id for a in affecting([converted], Ecosystem.RUBYGEMS, "sprout", "0.7.245")} == set()


def test_aliases_deduplicate_across_databases() -> None:
    rustdecimal = [
        _record(CRATES, "RUSTSEC-2022-0042"),
        _record("osv-malicious/crates.io/all.zip", "MAL-2022-1"),
    ]
    sprout = [_record(RUBYSEC, "GHSA-229r-pqp6-8w6g"), _record(GHSA, "GHSA-229r-pqp6-8w6g")]
    distributed = records(PYPI, "PYSEC-2021-871", "PYSEC-2021-872")
    unrelated = records(PYPI, "PYSEC-2014-1")
    groups = group_by_alias([*rustdecimal, *sprout, *distributed, *unrelated])
    assert [[a.id for a in g] for g in groups] == [
        ["RUSTSEC-2022-0042", "MAL-2022-1"],
        ["GHSA-229r-pqp6-8w6g", "GHSA-229r-pqp6-8w6g"],
        ["PYSEC-2021-871", "PYSEC-2021-872"],
        ["PYSEC-2014-1"],
    ]
    reps = deduplicate([*rustdecimal, *sprout, *distributed, *unrelated])
    assert len(reps) == 4
    # The malicious-package report keeps its flag whichever record stands for the group.
    assert reps[0].is_malicious
    assert {"RUSTSEC-2022-0042", "MAL-2022-1", "GHSA-7pwq-f4pq-78gm"} <= {
        reps[0].id,
        *reps[0].aliases,
    }
    # GitHub's own record wins over the third-party conversion of the same GHSA id.
    assert reps[1].converted_from is None
    assert reps[1].source == GHSA
    # PYSEC-2021-872 has the extra alias GHSA-j8fq-86c5-5v2r; the representative carries all.
    assert {"CVE-2021-42343", "GHSA-hwqr-f3v9-hwxr", "GHSA-j8fq-86c5-5v2r"} <= set(reps[2].aliases)


def test_severity_of_real_records() -> None:
    plotly = _record(GHSA, "GHSA-2fqv-h3r5-m4vf")
    assert (plotly.severity, plotly.cvss_score) == (Severity.MEDIUM, 6.1)
    assert plotly.cvss_vector == "CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N"
    maven = _record(GHSA, "GHSA-23rx-79r7-6cpx")  # severity: [], database_specific MODERATE
    assert (maven.severity, maven.cvss_score, maven.database_severity) == (
        Severity.MEDIUM,
        None,
        "MODERATE",
    )
    sprout = _record(GHSA, "GHSA-229r-pqp6-8w6g")  # database_specific HIGH
    assert sprout.severity is Severity.HIGH
    converted = _record(RUBYSEC, "GHSA-229r-pqp6-8w6g")  # only cvss_v2_base_score 7.5
    assert (converted.severity, converted.cvss_score, converted.cvss_vector) == (
        Severity.HIGH,
        7.5,
        None,
    )
    go = _record(GO, "GO-2021-0076")  # the Go database states no severity
    assert (go.severity, go.cvss_score) == (None, None)
    julia = _record(JULIA, "JLSEC-2025-109")  # CVSS_V2 and CVSS_V3: v3 wins
    assert julia.cvss_vector is not None
    assert julia.cvss_vector.startswith("CVSS:3")
