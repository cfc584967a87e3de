"""`Runtime`: the services the front doors use, built by `bootstrap.build_runtime`."""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.services.advisories import AdvisoryService
from pkgintel.services.advisory_ingest import AdvisoryIngestor
from pkgintel.services.audit import AuditService
from pkgintel.services.bulk import BulkCheckService
from pkgintel.services.knowledge import Knowledge
from pkgintel.services.live_feed import LiveFeed
from pkgintel.services.names import NameService
from pkgintel.services.packages import PackageService
from pkgintel.services.pin_safe import PinSafeService
from pkgintel.services.reports import ReportService
from pkgintel.services.status import StatusService


@dataclass(frozen=True, slots=True)
class Runtime:
    """Frozen bundle of services; `api/deps.py` reads it from `app.state.runtime`."""

    packages: PackageService
    reports: ReportService
    names: NameService
    status: StatusService
    advisories: AdvisoryService
    ingestor: AdvisoryIngestor
    feed: LiveFeed
    pins: PinSafeService
    audit: AuditService
    bulk: BulkCheckService
    max_lockfile_bytes: int = 5 * 1024 * 1024
    bulk_hint_threshold: int = 10
    public_url: str = "http://127.0.0.1:8000"
    knowledge: Knowledge | None = None
