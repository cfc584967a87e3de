"""
Values of `pkgintel doctor` (and `GET /api/admin/doctor`): one `Finding` per check, the `DoctorReport`
that holds them, and the `Probe` of one upstream URL.

A finding's status says what it means for the installation:

- `ok`: works as configured.
- `info`: worth knowing, nothing to do (Redis not configured on a one-process install, a job kind
  that never ran).
- `warn`: something is degraded but answers stay truthful about it (an optional upstream such as
  GitHub unreachable, KEV/EPSS not loaded, an advisory feed whose newest record is old).
- `fail`: the installation cannot answer as configured (the database, a registry or an advisory
  feed unreachable or missing, data stale, jobs stuck). The report is healthy when nothing fails.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    OK = "ok"
    INFO = "info"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class Finding:
    """The outcome of one check."""

    area: str
    """`configuration`, `database`, `cache`, `upstream`, `data` or `jobs`."""
    check: str
    """What was checked: a setting (`PKGINTEL_UPSTREAM_PYPI_URL`), a feed (`advisories PyPI`), ..."""
    status: Status
    detail: str
    fix: str | None = None
    """What to do about a `warn` or `fail`; None when there is nothing to do."""
    elapsed_ms: float | None = None
    """How long the check's one request took (upstreams, database, cache)."""

    def wire(self) -> dict[str, Any]:
        return {
            "area": self.area,
            "check": self.check,
            "status": self.status.value,
            "detail": self.detail,
            "fix": self.fix,
            "elapsed_ms": self.elapsed_ms,
        }


@dataclass(frozen=True, slots=True)
class DoctorReport:
    """Every finding of one run, in check order."""

    findings: tuple[Finding, ...]
    checked_at: datetime
    version: str

    @property
    def healthy(self) -> bool:
        """True when no finding is `fail` (warnings do not make an installation unhealthy)."""
        return all(f.status is not Status.FAIL for f in self.findings)

    @property
    def exit_code(self) -> int:
        """`pkgintel doctor`'s exit code: 0 healthy, 1 otherwise."""
        return 0 if self.healthy else 1

    def wire(self) -> dict[str, Any]:
        """The JSON of `pkgintel doctor --format json` and `GET /api/admin/doctor`."""
        counts = Counter(f.status.value for f in self.findings)
        return {
            "healthy": self.healthy,
            "checked_at": self.checked_at.isoformat().replace("+00:00", "Z"),
            "version": self.version,
            "counts": {s.value: counts.get(s.value, 0) for s in Status},
            "checks": [f.wire() for f in self.findings],
        }


@dataclass(frozen=True, slots=True)
class Probe:
    """What one request to an upstream URL (or a look at a local path) found."""

    elapsed_ms: float
    status_code: int | None = None
    """The HTTP status of the answer; None when there was no answer (or for a local path)."""
    error: str | None = None
    """Why there was no answer (`ConnectError: ...`, `no such file`); None when there was one."""
    local: bool = False
    """The location is a file or folder on this machine, not a URL."""
