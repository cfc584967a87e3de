"""
Table tests on real data (issue 11, symptom 3): every versions-only malicious-package report for npm
and PyPI in `../shared/data/osv-malicious`, evaluated against the registries' name lists.

The rule: `malicious` whenever no clean release is known to exist — the package is gone from the
name list (removed after the report), or its latest release is among the reported versions;
`historical_incident` only when the name list's latest release is outside every report. The
expectation is computed here independently of the service (plain set membership under each
ecosystem's equality: PEP 440 for PyPI, exact strings for npm).
"""

from __future__ import annotations

import gzip
import json
import random
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from pkgintel.domain.matching import affects
from pkgintel.domain.names.rules import NameEntry, normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.scoring.verdicts import malicious_status
from pkgintel.sources.osv_schema import parse_osv
from tests.osv_records import ingest_records
from tests.shared import requires_shared, shared_path

pytestmark = [requires_shared, pytest.mark.shared]

CASES = {Ecosystem.NPM: ("npm", "npm.tsv.gz"), Ecosystem.PYPI: ("PyPI", "pypi.tsv.gz")}


def _same(eco: Ecosystem, a: str, b: str) -> bool:
    if eco is Ecosystem.PYPI:
        try:
            return Version(a) == Version(b)
        except InvalidVersion:
            return a == b
    return a.strip() == b.strip()


def _key(eco: Ecosystem, name: str) -> str:
    return canonicalize_name(name) if eco is Ecosystem.PYPI else name.lower()


def versions_only_reports(eco: Ecosystem) -> dict[str, list[dict[str, Any]]]:
    """Normalised name → the versions-only reports naming it (every affected entry lists versions
    and no ranges)."""
    osv, _ = CASES[eco]
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with zipfile.ZipFile(shared_path("osv-malicious", osv, "all.zip")) as zf:
        for member in zf.namelist():
            rec = json.loads(zf.read(member))
            entries = [
                a for a in rec.get("affected", []) if a.get("package", {}).get("ecosystem") == osv
            ]
            if rec.get("withdrawn") or not entries:
                continue
            if all(a.get("versions") and not a.get("ranges") for a in entries):
                for a in entries:
                    out[_key(eco, a["package"]["name"])].append(rec)
    return out


def latest_versions(eco: Ecosystem, names: set[str]) -> dict[str, str]:
    _, file = CASES[eco]
    out: dict[str, str] = {}
    with gzip.open(shared_path("names", file), "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            key = _key(eco, parts[0])
            if key in names and len(parts) > 1 and parts[1]:
                out[key] = parts[1]
    return out


def expected(eco: Ecosystem, reports: list[dict[str, Any]], latest: str | None) -> str:
    if latest is None:
        return "malicious"
    listed = {v for r in reports for a in r["affected"] for v in a.get("versions", [])}
    return "malicious" if any(_same(eco, latest, v) for v in listed) else "historical_incident"


@pytest.fixture(scope="module")
def tables() -> dict[Ecosystem, tuple[dict[str, list[dict[str, Any]]], dict[str, str]]]:
    out = {}
    for eco in CASES:
        reports = versions_only_reports(eco)
        out[eco] = (reports, latest_versions(eco, set(reports)))
    return out


@pytest.mark.parametrize("eco", list(CASES), ids=lambda e: e.value)
def test_every_versions_only_report_follows_the_rule(
    eco: Ecosystem, tables: dict[Ecosystem, tuple[dict[str, list[dict[str, Any]]], dict[str, str]]]
) -> None:
    reports, latest = tables[eco]
    assert len(reports) > 100  # the real data set, not a handful
    counts: dict[str, int] = defaultdict(int)
    wrong = []
    for key, recs in reports.items():
        parsed = [parse_osv(r, source="test") for r in recs]
        top = latest.get(key)
        latest_affected = None if top is None else any(affects(a, eco, top, key) for a in parsed)
        got = malicious_status(
            loaded=True,
            reports=len(parsed),
            all_versions=False,
            asked_version=None,
            asked_affected=None,
            latest_version=top,
            latest_affected=latest_affected,
            package_gone=top is None,
        ).status
        want = expected(eco, recs, top)
        counts[want] += 1
        if got != want:
            wrong.append((key, top, got, want))
    assert not wrong, wrong[:20]
    assert counts["malicious"] > 100, dict(counts)
    if eco is Ecosystem.NPM:  # npm has names whose later releases left the reported ones behind
        assert counts["historical_incident"] > 0, dict(counts)


@pytest.mark.parametrize("eco", list(CASES), ids=lambda e: e.value)
async def test_check_bulk_agrees_on_a_sample_of_real_reports(
    eco: Ecosystem,
    tables: dict[Ecosystem, tuple[dict[str, list[dict[str, Any]]], dict[str, str]]],
    runtime: Runtime,
    tmp_path: Path,
) -> None:
    """The same rule through ingestion, the name index and `check_bulk`, on 100 real reports
    (half whose name is still listed, half gone), chosen with a fixed seed."""
    reports, latest = tables[eco]
    listed = sorted(k for k in reports if k in latest)
    gone = sorted(k for k in reports if k not in latest)
    rng = random.Random(11)
    sample = rng.sample(listed, min(50, len(listed))) + rng.sample(gone, min(50, len(gone)))
    records = {r["id"]: r for k in sample for r in reports[k]}
    await ingest_records(runtime, tmp_path, "osv-malicious", CASES[eco][0], list(records.values()))
    await runtime.names.ingest(
        eco,
        [
            NameEntry(eco, normalise_name(eco, k), k, latest_version=latest[k])
            for k in sample
            if k in latest
        ],
        source="test",
    )
    results = await runtime.bulk.check([(eco, k, None) for k in sample])
    got = {k: r["status"] for k, r in zip(sample, results, strict=True)}
    want = {k: expected(eco, reports[k], latest.get(k)) for k in sample}
    # A listed name may also be a typosquat suspect of a popular one; that status outranks
    # historical_incident by design (bulk precedence), never malicious.
    mismatched = {
        k: (got[k], want[k])
        for k in sample
        if got[k] != want[k]
        and not (want[k] == "historical_incident" and got[k] == "typosquat_suspect")
    }
    assert not mismatched, mismatched
