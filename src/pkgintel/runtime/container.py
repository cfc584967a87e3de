"""`Runtime`: the services the front doors use, built by `bootstrap.build_runtime`."""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.advisories.ingest import AdvisoryIngestor
from pkgintel.advisories.live_feed import LiveFeed
from pkgintel.advisories.malicious import MaliciousService
from pkgintel.advisories.pin_safe import PinSafeService
from pkgintel.advisories.service import AdvisoryService
from pkgintel.audit.bulk import BulkCheckService
from pkgintel.audit.scan import AuditService
from pkgintel.audit.stack import StackService
from pkgintel.knowledge.compatibility import CompatService
from pkgintel.knowledge.error_resolver import ErrorService
from pkgintel.knowledge.services import Knowledge
from pkgintel.knowledge.shipped import ShippedKnowledge
from pkgintel.names.service import NameService
from pkgintel.operations.contact import ContactService
from pkgintel.operations.doctor import Doctor
from pkgintel.operations.ops import Ops
from pkgintel.operations.status import StatusService
from pkgintel.packages.reports import ReportService
from pkgintel.packages.service import PackageService
from pkgintel.packages.verdicts import VerdictService, VulnerabilityAnswers
from pkgintel.signals.provenance import ProvenanceService
from pkgintel.signals.scorecard import ScorecardService
from pkgintel.signals.trust import TrustSignals
from pkgintel.trees.graph import Graph


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
    verdicts: VerdictService
    malicious: MaliciousService
    stack: StackService
    vulns: VulnerabilityAnswers
    max_lockfile_bytes: int = 5 * 1024 * 1024
    bulk_hint_threshold: int = 10
    public_url: str = "http://127.0.0.1:8000"
    errors: ErrorService | None = None
    """Error-to-fix database (set by `bootstrap.assemble`)."""
    compat: CompatService | None = None
    """Stack compatibility (set by `bootstrap.assemble`)."""
    ops: Ops | None = None
    """Jobs, cron, missions, proposals, curator (None when not wired)."""
    knowledge: Knowledge | None = None
    """Package knowledge and the usage log (None when not wired)."""
    contact: ContactService | None = None
    """Contact requests (set by `bootstrap.assemble`)."""
    graph: Graph | None = None
    """Dependency tree, tree licences and health history (issue 16; set by `bootstrap.assemble`)."""
    trust: TrustSignals | None = None
    """Maintainers, GitHub stats and trust, quality (set by `bootstrap.assemble`)."""
    # -- supply-chain signals of artifacts (issue 16: scorecard, provenance) --
    scorecard: ScorecardService | None = None
    """OpenSSF Scorecard of a package's repository (set by `bootstrap.assemble`)."""
    provenance: ProvenanceService | None = None
    """Release attestations and the lost-provenance flag (set by `bootstrap.assemble`)."""
    doctor: Doctor | None = None
    """Installation checks for `GET /api/admin/doctor` (set by `bootstrap.assemble`)."""
    shipped: ShippedKnowledge | None = None
    """Loads the curated knowledge and popularity snapshot shipped in the package (set by
    `bootstrap.assemble`; run at start by `app.py` and by the CLI commands that answer)."""
