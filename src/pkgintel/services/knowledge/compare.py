"""
`CompareService`: 2 to 10 packages of one ecosystem side by side, from their reports (fetched
concurrently, so a cold compare costs the slowest registry, a warm one a few milliseconds), with a
verdict naming the best fit and the caveats of each.

Best fit: among packages that are found, not malicious, not deprecated and whose action is not
`do_not_use`/`find_alternative`, the highest health score (ties: more weekly downloads, then fewer
critical/high vulnerabilities). When none qualifies, the verdict says so instead of picking one.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pkgintel.domain.errors import InvalidInput, PackageNotFound, PkgIntelError
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.reports.service import PackageReport, ReportService
from pkgintel.transport.memo import one_answer

MIN_PACKAGES = 2
MAX_PACKAGES = 10
_BAD_ACTIONS = frozenset({"do_not_use", "find_alternative"})


@dataclass(frozen=True, slots=True)
class CompareRow:
    name: str
    status: str
    """`ok`, `not_found` or `unavailable`."""
    report: PackageReport | None
    caveats: tuple[str, ...]
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    ecosystem: Ecosystem
    rows: tuple[CompareRow, ...]
    best: str | None
    verdict: str


def parse_package_list(ecosystem: Ecosystem, packages_csv: str) -> list[str]:
    """Names from a comma-separated list (blanks dropped, duplicates by normalised name dropped).
    Raises `InvalidInput` unless 2 to 10 distinct valid names remain."""
    names: list[str] = []
    seen: set[str] = set()
    for raw in packages_csv.split(","):
        raw = raw.strip()
        if not raw:
            continue
        name = validate_name(ecosystem, raw)
        key = normalise_name(ecosystem, name)
        if key not in seen:
            seen.add(key)
            names.append(name)
    if not MIN_PACKAGES <= len(names) <= MAX_PACKAGES:
        raise InvalidInput(
            "packages_csv",
            f"give {MIN_PACKAGES} to {MAX_PACKAGES} distinct comma-separated package names (got {len(names)})",
        )
    return names


def caveats_of(report: PackageReport) -> tuple[str, ...]:
    """Short caveats a reader should know before choosing this package."""
    out: list[str] = []
    info = report.info
    if report.malicious.is_malicious:
        out.append("reported as malicious")
    if report.health.deprecated or report.deprecated:
        message = report.deprecated_message
        out.append("deprecated" + (f": {message}" if message else ""))
    vulns = report.vulnerabilities
    if vulns.status == "unavailable":
        out.append("vulnerability data unavailable")
    else:
        severe = vulns.count("critical") + vulns.count("high")
        if severe:
            out.append(f"{severe} critical/high known vulnerabilities in {vulns.version}")
        if vulns.kev_count:
            out.append(f"{vulns.kev_count} known-exploited vulnerabilities")
    days = report.history.last_release_days_ago
    if days is not None and days > 730:
        out.append(f"no release for {days // 365} years")
    if report.license.license_risk in (
        "strong_copyleft",
        "network_copyleft",
        "proprietary",
        "unknown",
    ):
        out.append(
            f"licence {report.license.license or 'not stated'} ({report.license.license_risk})"
        )
    if len(info.maintainers) == 1:
        out.append("a single maintainer")
    if report.typosquat.is_suspected:
        out.append("name resembles a more popular package")
    if report.health.insufficient_data:
        out.append("too little data for a confident score")
    return tuple(out)


class CompareService:
    """See the module docstring."""

    def __init__(self, reports: ReportService) -> None:
        self._reports = reports

    async def _row(self, ecosystem: Ecosystem, name: str) -> CompareRow:
        try:
            report = await self._reports.get_report(ecosystem, name)
        except PackageNotFound as exc:
            return CompareRow(name, "not_found", None, ("not found in the registry",), exc.message)
        except PkgIntelError as exc:
            return CompareRow(name, "unavailable", None, ("report unavailable now",), exc.message)
        return CompareRow(report.info.name, "ok", report, caveats_of(report))

    async def compare(self, ecosystem: Ecosystem, packages_csv: str) -> Comparison:
        """Rows in the order asked. Raises `InvalidInput` for a bad list (see `parse_package_list`).
        Every upstream document is asked for once per comparison (`upstream_memo.one_answer`)."""
        names = parse_package_list(ecosystem, packages_csv)
        with one_answer():
            rows = await asyncio.gather(*(self._row(ecosystem, n) for n in names))
        eligible = [
            r
            for r in rows
            if r.report is not None
            and not r.report.malicious.is_malicious
            and not (r.report.health.deprecated or r.report.deprecated)
            and r.report.recommendation.action not in _BAD_ACTIONS
        ]

        def rank(r: CompareRow) -> tuple[int, int, int]:
            assert r.report is not None
            v = r.report.vulnerabilities
            return (
                r.report.health.score,
                r.report.snapshot.weekly_downloads or 0,
                -(v.count("critical") + v.count("high")),
            )

        if not eligible:
            verdict = "none of these is a safe pick: each is unknown, unavailable, deprecated, malicious or flagged"
            return Comparison(ecosystem, tuple(rows), None, verdict)
        best = max(eligible, key=rank)
        assert best.report is not None
        others = [r for r in rows if r is not best]
        parts = [f"{best.name} is the best fit (health {best.report.health.score}/100"]
        parts[0] += f", {best.report.recommendation.action})"
        if best.caveats:
            parts.append(f"caveats: {'; '.join(best.caveats)}")
        for r in others:
            if r.report is None:
                parts.append(f"{r.name}: {r.status}")
            else:
                note = f"{r.name}: health {r.report.health.score}/100"
                if r.caveats:
                    note += f" ({'; '.join(r.caveats[:3])})"
                parts.append(note)
        return Comparison(ecosystem, tuple(rows), best.name, ". ".join(parts))
