"""
The store-backed lookup against an independent reading of the OSV schema, over every PyPI record in
the shared export: for each package, at every version its records name (event bounds and listed
versions), the advisories the service reports equal those this test's own evaluator finds.

The oracle walks each range's events in version order (PEP 440 via `packaging`, written here, not
shared with `domain/matching.py`): `introduced` opens, `fixed` closes before itself, `last_affected`
closes after itself, `limit` caps; the `versions` list matches by PEP 440 equality; withdrawn
records and malicious reports never count as vulnerabilities.
"""

from __future__ import annotations

import json
import zipfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.sources.osv_export import iter_records
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import create_engine
from tests.shared import requires_shared, shared_path

pytestmark = requires_shared


def _v(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _range_hits(events: list[dict[str, str]], v: Version) -> bool:
    ordered: list[tuple[Version | None, str]] = []
    limits: list[Version] = []
    for ev in events:
        for kind, value in ev.items():
            if kind == "limit":
                lv = _v(value)
                if lv is not None:
                    limits.append(lv)
                continue
            parsed = None if (kind == "introduced" and value == "0") else _v(value)
            if parsed is None and not (kind == "introduced" and value == "0"):
                continue
            ordered.append((parsed, kind))
    if limits and not any(v < lim for lim in limits):
        return False
    ordered.sort(key=lambda item: (item[0] is not None, item[0] or Version("0")))
    affected = False
    for bound, kind in ordered:
        if kind == "introduced" and (bound is None or bound <= v):
            affected = True
        elif (kind == "fixed" and bound is not None and bound <= v) or (
            kind == "last_affected" and bound is not None and bound < v
        ):
            affected = False
    return affected


def _oracle(record: dict[str, Any], name: str, v: Version) -> bool:
    if record.get("withdrawn") or record["id"].startswith("MAL-"):
        return False
    for aff in record.get("affected", []):
        pkg = aff.get("package", {})
        if pkg.get("ecosystem") != "PyPI" or canonicalize_name(pkg.get("name", "")) != name:
            continue
        if any(_v(x) == v for x in aff.get("versions", []) if _v(x) is not None):
            return True
        for rng in aff.get("ranges", []):
            if rng.get("type") in ("ECOSYSTEM", "SEMVER") and _range_hits(rng.get("events", []), v):
                return True
    return False


PROBES_PER_PACKAGE = 12
"""Versions probed per package, spread evenly over the sorted bounds (keeps the test to seconds)."""


async def test_pypi_lookups_match_an_independent_reading(tmp_path: Path) -> None:
    # Logic, not storage, is under test: one SQLite database, outside the backend matrix.
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'oracle.db'}")
    await upgrade(engine)
    store = SqlAdvisoryStore(engine)
    service = AdvisoryService(store, clock=lambda: datetime.now(UTC), stale_after_s=86400)
    path = shared_path("osv", "PyPI", "all.zip")
    await AdvisoryIngestor(store, clock=lambda: datetime.now(UTC)).ingest_osv(
        feed="osv", osv_ecosystem="PyPI", location=str(path), entries=iter_records(path)
    )
    records: dict[str, list[dict[str, Any]]] = defaultdict(list)
    probes: dict[str, set[str]] = defaultdict(set)
    with zipfile.ZipFile(path) as zf:
        for member in zf.namelist():
            rec = json.loads(zf.read(member))
            for aff in rec.get("affected", []):
                pkg = aff.get("package", {})
                if pkg.get("ecosystem") != "PyPI":
                    continue
                name = canonicalize_name(pkg["name"])
                records[name].append(rec)
                probes[name].update(x for x in aff.get("versions", []) if _v(x))
                for rng in aff.get("ranges", []):
                    for ev in rng.get("events", []):
                        probes[name].update(x for x in ev.values() if x != "0" and _v(x))
    checked = mismatches = 0
    failures: list[str] = []
    for name, versions in sorted(records.items()):
        ordered = sorted(probes[name], key=Version)
        step = max(1, len(ordered) // PROBES_PER_PACKAGE)
        for version in ordered[::step]:
            v = Version(version)
            expected = {r["id"] for r in versions if _oracle(r, name, v)}
            report = await service.for_version(Ecosystem.PYPI, name, version)
            covered = {i for d in report.details for i in (d["id"], *d["aliases"])}
            reported = {d["id"] for d in report.details}
            checked += 1
            # Every record the oracle finds is reported (itself or through an alias), and every
            # reported advisory is one the oracle found.
            ok = expected <= covered and all(
                ({d["id"], *d["aliases"]} & expected) for d in report.details
            )
            if not ok:
                mismatches += 1
                if len(failures) < 10:
                    failures.append(
                        f"{name} {version}: expected {sorted(expected)}, got {sorted(reported)}"
                    )
    await engine.dispose()
    assert checked > 3000, checked
    assert mismatches == 0, "\n".join(failures)


async def test_django_3_0_0_known_advisories(runtime: Runtime) -> None:
    path = shared_path("osv", "PyPI", "all.zip")
    await runtime.ingestor.ingest_osv(
        feed="osv", osv_ecosystem="PyPI", location=str(path), entries=iter_records(path)
    )
    runtime.advisories.invalidate()
    report = await runtime.advisories.for_version(Ecosystem.PYPI, "Django", "3.0.0")
    ids = {d["id"] for d in report.details}
    # Read off the records: PYSEC-2020-35 is fixed in 3.0.3; PYSEC-2021-98 affects 3.0 up to 3.1.12.
    assert {"PYSEC-2020-35", "PYSEC-2021-98"} <= ids
    fixed = {d["id"]: d["fixed_in"] for d in report.details}
    assert fixed["PYSEC-2020-35"] == ["3.0.3"]
    assert all(d["severity"] in (None, "critical", "high", "medium", "low") for d in report.details)
    # 3.0.3 is past PYSEC-2020-35's fix.
    later = await runtime.advisories.for_version(Ecosystem.PYPI, "django", "3.0.3")
    assert "PYSEC-2020-35" not in {d["id"] for d in later.details}
