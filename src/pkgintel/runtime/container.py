"""`Runtime`: the services the front doors use, built by `bootstrap.build_runtime`."""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.runtime.knowledge import Knowledge
from pkgintel.runtime.usage import UsageServices
from pkgintel.services.accounts.service import Accounts
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.advisories.live_feed import LiveFeed
from pkgintel.services.advisories.malicious import MaliciousService
from pkgintel.services.advisories.pin_safe import PinSafeService
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.services.advisories.verdicts import VerdictService, VulnerabilityAnswers
from pkgintel.services.audit.bulk import BulkCheckService
from pkgintel.services.audit.scan import AuditService
from pkgintel.services.audit.stack import StackService
from pkgintel.services.knowledge.compatibility import CompatService
from pkgintel.services.knowledge.error_resolver import ErrorService
from pkgintel.services.knowledge.shipped import ShippedKnowledge
from pkgintel.services.names.service import NameService
from pkgintel.services.operations.contact import ContactService
from pkgintel.services.operations.doctor import Doctor
from pkgintel.services.operations.ops import Ops
from pkgintel.services.operations.status import StatusService
from pkgintel.services.packages.service import PackageService
from pkgintel.services.reports.service import ReportService
from pkgintel.services.signals.provenance import ProvenanceService
from pkgintel.services.signals.scorecard import ScorecardService
from pkgintel.services.signals.trust import TrustSignals
from pkgintel.services.trees.graph import Graph


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
    usage_services: UsageServices | None = None
    """Stats, savings, GDPR, hallucination benchmark, anomaly reports, page views, translation
    (issue 30; set by `bootstrap.assemble`)."""
    accounts: Accounts | None = None
    """Accounts, sign-in, API keys and the rate limiter (issue 30; set by `bootstrap.assemble`)."""
