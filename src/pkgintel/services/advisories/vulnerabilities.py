"""
Vulnerability and malicious-package answers for one package version, behind `AdvisoryLookup`.

Until an advisory source is wired for an ecosystem, `NoAdvisoryData` answers `status: "unavailable"`
with the reason — never an empty list that reads as "safe".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus

SEVERITIES = ("critical", "high", "medium", "low")


@dataclass(frozen=True, slots=True)
class VulnerabilityReport:
    """Advisories affecting one version. `details` are wire-ready dicts (see docs/api.md)."""

    status: str
    """`complete`, `stale`, `partial` or `unavailable` (`domain/freshness.py`)."""
    version: str | None
    details: tuple[dict[str, Any], ...] = ()
    sources: tuple[SourceStatus, ...] = ()
    reason: str | None = None
    kev_count: int = 0
    max_epss: float | None = None
    fixed_version: str | None = None
    """The lowest version the advisories name as fixing all of them (the advisories' own word; the
    published upgrade target is `VerdictService.upgrade_plan`)."""
    fix_available: bool = False
    data_as_of: datetime | None = None
    """Newest record among the feeds used (None for the OSV API or when unknown)."""
    stale: bool = False
    """True when a feed used was loaded, or its newest record written, longer ago than the
    staleness windows: the answer may miss recent advisories."""

    def count(self, severity: str | None) -> int:
        """Details of this severity bucket; `None` counts those without a rating."""
        return sum(1 for d in self.details if d.get("severity") == severity)


@dataclass(frozen=True, slots=True)
class MaliciousAnswer:
    """Whether a package (or some of its versions) is reported malicious."""

    status: str
    """`complete` when malicious-package data is loaded for the ecosystem (`stale` when it is old,
    `partial` when a run did not finish), else `unavailable`."""
    is_malicious: bool | None
    """None when we do not know."""
    advisories: tuple[dict[str, Any], ...] = ()
    sources: tuple[SourceStatus, ...] = ()
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class AdvisoryLookup(Protocol):
    """Per-version advisory evaluation (the vulnerability issue fills this in with OSV data)."""

    async def for_version(
        self, ecosystem: Ecosystem, name: str, version: str
    ) -> VulnerabilityReport:
        """Advisories affecting exactly `version`; `status` says how complete the answer is."""
        ...

    async def malicious(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> MaliciousAnswer:
        """Malicious-package reports for `name`; with `version`, `is_malicious` is for that version."""
        ...


class NoAdvisoryData:
    """The lookup used when no advisory source is configured: every answer is `unavailable`."""

    SOURCE = "osv"

    async def for_version(
        self, ecosystem: Ecosystem, name: str, version: str
    ) -> VulnerabilityReport:
        reason = (
            f"no vulnerability data is loaded for {ecosystem.value}; "
            "known vulnerabilities could not be checked"
        )
        return VulnerabilityReport(
            status="unavailable",
            version=version,
            sources=(
                SourceStatus(self.SOURCE, "vulnerabilities", SourceState.UNAVAILABLE, None, reason),
            ),
            reason=reason,
        )

    async def malicious(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> MaliciousAnswer:
        reason = f"no malicious-package data is loaded for {ecosystem.value}"
        return MaliciousAnswer(
            status="unavailable",
            is_malicious=None,
            sources=(
                SourceStatus("osv-malicious", "malicious", SourceState.UNAVAILABLE, None, reason),
            ),
            reason=reason,
        )
