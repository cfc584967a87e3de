"""`Runtime`: the services the front doors use, built by `bootstrap.build_runtime`."""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.accounts.service import Accounts
from pkgintel.services.advisories import AdvisoryService
from pkgintel.services.advisory_ingest import AdvisoryIngestor
from pkgintel.services.audit import AuditService
from pkgintel.services.bulk import BulkCheckService
from pkgintel.services.compat import CompatService
from pkgintel.services.contact import ContactService
from pkgintel.services.doctor import Doctor
from pkgintel.services.errors import ErrorService
from pkgintel.services.graph import Graph
from pkgintel.services.knowledge import Knowledge
from pkgintel.services.live_feed import LiveFeed
from pkgintel.services.malicious import MaliciousService
from pkgintel.services.names import NameService
from pkgintel.services.ops import Ops
from pkgintel.services.packages import PackageService
from pkgintel.services.pin_safe import PinSafeService
from pkgintel.services.provenance import ProvenanceService
from pkgintel.services.reports import ReportService
from pkgintel.services.scorecard import ScorecardService
from pkgintel.services.shipped import ShippedKnowledge
from pkgintel.services.stack import StackService
from pkgintel.services.status import StatusService
from pkgintel.services.trust_signals import TrustSignals
from pkgintel.services.verdicts import VerdictService, VulnerabilityAnswers


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
    accounts: Accounts | None = None
    """Accounts, sign-in, API keys and the rate limiter (issue 30; set by `bootstrap.assemble`)."""
