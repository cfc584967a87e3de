"""SQLAlchemy Core tables. Migrations in `storage/migrations/` create exactly these."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    text,
)

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "pk": "pk_%(table_name)s",
    }
)

package_name = Table(
    "package_name",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("display_name", String(256), nullable=False),
    Column("latest_version", String(128)),
    Column("monthly_downloads", BigInteger),
    Column("popularity_rank", Integer),
    Column("summary", Text),
    Column("source", String(16), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
Index("ix_package_name_rank", package_name.c.ecosystem, package_name.c.popularity_rank)
Index("ix_package_name_downloads", package_name.c.ecosystem, package_name.c.monthly_downloads)
# Names live lookups added (a pool reload reads only these): few rows, so a partial index.
Index(
    "ix_package_name_live",
    package_name.c.ecosystem,
    sqlite_where=package_name.c.source == "live",
    postgresql_where=package_name.c.source == "live",
)

name_index = Table(
    "name_index",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("source", Text, nullable=False),
    Column("loaded_at", DateTime(timezone=True), nullable=False),
    Column("names_count", Integer, nullable=False),
)

package_snapshot = Table(
    "package_snapshot",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("version", String(128), primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    Column("fetched_at", DateTime(timezone=True), nullable=False),
)

# -- advisories (migration 0002) --------------------------------------------------------------

advisory_record = Table(
    "advisory_record",
    metadata,
    Column("feed", String(64), primary_key=True),
    Column("osv_ecosystem", String(64), primary_key=True),
    Column("id", String(128), primary_key=True),
    Column("modified", DateTime(timezone=True)),
    Column("published", DateTime(timezone=True)),
    Column("content_hash", String(64), nullable=False),
    Column("withdrawn", Boolean, nullable=False),
    Column("is_malicious", Boolean, nullable=False),
    Column("record", LargeBinary, nullable=False),
    Column("ingested_at", DateTime(timezone=True), nullable=False),
)
"""One OSV record as one export (`feed`, `osv_ecosystem`) holds it; `record` is the raw JSON,
zlib-compressed. The same id may come from several feeds; lookups de-duplicate by alias."""

advisory_package = Table(
    "advisory_package",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("feed", String(64), primary_key=True),
    Column("osv_ecosystem", String(64), primary_key=True),
    Column("advisory_id", String(128), primary_key=True),
)
"""Which (ecosystem, normalised name) each record names in `affected[]`: the lookup index."""
Index(
    "ix_advisory_package_record",
    advisory_package.c.feed,
    advisory_package.c.osv_ecosystem,
    advisory_package.c.advisory_id,
)

source_run = Table(
    "source_run",
    metadata,
    Column("feed", String(64), primary_key=True),
    Column("scope", String(64), primary_key=True),
    Column("location", Text, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("completed_at", DateTime(timezone=True)),
    Column("records", Integer, nullable=False),
    Column("data_updated_at", DateTime(timezone=True)),
    Column("detail", Text),
)
"""Last ingestion run per feed and scope (an OSV ecosystem, or "" for KEV/EPSS):
`completed_at` is null while a run is under way or after it was interrupted."""

kev_entry = Table(
    "kev_entry",
    metadata,
    Column("cve_id", String(32), primary_key=True),
    Column("date_added", Date, nullable=False),
    Column("due_date", Date),
    Column("ransomware", Boolean),
    Column("vendor", Text, nullable=False),
    Column("product", Text, nullable=False),
    Column("name", Text, nullable=False),
)

epss_score = Table(
    "epss_score",
    metadata,
    Column("cve_id", String(32), primary_key=True),
    Column("score", Float, nullable=False),
    Column("percentile", Float, nullable=False),
)

feed_event = Table(
    "feed_event",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("payload", Text, nullable=False),
)
"""Events of the live feed, in id order (`Last-Event-ID` resumes after an id)."""

# -- error-to-fix knowledge (migration 0004) --------------------------------------------------
error_entry = Table(
    "error_entry",
    metadata,
    Column("error_hash", String(64), primary_key=True),
    Column("pattern", Text, nullable=False),
    Column("form", String(16), nullable=False),
    Column("ecosystem", String(32), nullable=False),
    Column("tool", String(32), nullable=False),
    Column("title", Text, nullable=False),
    Column("cause", Text, nullable=False),
    Column("body", Text, nullable=False),  # JSON: fix steps, sources, packages
    Column("origin", String(16), nullable=False),
    Column("votes_up", Integer, nullable=False, server_default="0"),
    Column("votes_down", Integer, nullable=False, server_default="0"),
    Column("hits", Integer, nullable=False, server_default="0"),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_error_entry_tool", "tool"),
)
error_vote = Table(
    "error_vote",
    metadata,
    Column("error_hash", String(64), primary_key=True),
    Column("client", String(64), primary_key=True),  # keyed hash of the address, never the address
    Column("vote", Integer, nullable=False),
    Column("voted_at", DateTime(timezone=True), nullable=False),
)
error_miss = Table(
    "error_miss",
    metadata,
    Column("error_hash", String(64), primary_key=True),
    Column("pattern", Text, nullable=False),
    Column("tool", String(32)),
    Column("count", Integer, nullable=False),
    Column("first_seen", DateTime(timezone=True), nullable=False),
    Column("last_seen", DateTime(timezone=True), nullable=False),
)
# -- operations: jobs, missions, proposals, curator, audit (migration 0003) ---------------------

job = Table(
    "job",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("kind", String(64), nullable=False),
    Column("payload", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("max_attempts", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("heartbeat_at", DateTime(timezone=True)),
    Column("lease_until", DateTime(timezone=True)),
    Column("worker_id", String(128)),
    Column("kill_requested", Boolean, nullable=False),
    Column("result", Text),
    Column("error", Text),
    Column("cost_tokens", BigInteger, nullable=False),
    Column("cost_requests", Integer, nullable=False),
    Column("scheduled_for", DateTime(timezone=True)),
    Column("dedupe_key", String(200), unique=True),
    Column("exclusive_group", String(64)),
)
"""A unit of background work. `payload`/`result` are JSON; `lease_until` is pushed forward by the
running worker's heartbeats; `dedupe_key` makes a cron occurrence or the first-start ingestion
enqueue once across processes; `exclusive_group` (set when a job of an exclusive kind is claimed)
is unique among running rows, so two jobs of one group never run at once."""
Index("ix_job_status_created", job.c.status, job.c.created_at)
Index("ix_job_kind_created", job.c.kind, job.c.created_at)
Index(
    "ux_job_running_group",
    job.c.exclusive_group,
    unique=True,
    sqlite_where=text("status = 'running'"),
    postgresql_where=text("status = 'running'"),
)
Index("ix_job_status_finished", job.c.status, job.c.finished_at)

job_event = Table(
    "job_event",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("job_id", String(36), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("data", Text, nullable=False),
)
"""Output of a job (`log`) and mission events (`status`, `log`, `proposal`, `done`), in id order."""
Index("ix_job_event_job", job_event.c.job_id, job_event.c.id)

mission = Table(
    "mission",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("profile", String(64), nullable=False),
    Column("params", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("error", Text),
    Column("summary", Text),
)
Index("ix_mission_status_created", mission.c.status, mission.c.created_at)

proposal = Table(
    "proposal",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("key", String(512), nullable=False),
    Column("payload", Text, nullable=False),
    Column("evidence", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("mission_id", String(36)),
    Column("decided_at", DateTime(timezone=True)),
    Column("decided_by", String(64)),
    Column("reason", Text),
    Column("applied_at", DateTime(timezone=True)),
    Column("revision_id", Integer),
)
Index("ix_proposal_status_created", proposal.c.status, proposal.c.created_at)
Index("ix_proposal_kind_key", proposal.c.kind, proposal.c.key)

knowledge_revision = Table(
    "knowledge_revision",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(32), nullable=False),
    Column("key", String(512), nullable=False),
    Column("version", Integer, nullable=False),
    Column("payload", Text),
    Column("proposal_id", String(36)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("reverted_at", DateTime(timezone=True)),
)
"""Versioned curated entries written by applied proposals: the current entry of (kind, key) is its
highest version not reverted; reverting a version brings the previous one back."""
Index("ix_knowledge_revision_key", knowledge_revision.c.kind, knowledge_revision.c.key)

curator_decision = Table(
    "curator_decision",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("proposal_id", String(36), nullable=False),
    Column("decision", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

admin_audit = Table(
    "admin_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("actor", String(64), nullable=False),
    Column("method", String(8), nullable=False),
    Column("path", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("detail", Text),
)
"""Every admin request (who, what, when, outcome); the token itself is never stored."""

ops_setting = Table(
    "ops_setting",
    metadata,
    Column("key", String(128), primary_key=True),
    Column("value", Text, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
"""Runtime switches changed through the admin API (curator on/off and interval, mission flags)."""
# -- package knowledge (migration 0005) --------------------------------------------------------

knowledge_entry = Table(
    "knowledge_entry",
    metadata,
    Column("kind", String(16), primary_key=True),
    Column("ecosystem", String(16), primary_key=True),
    Column("package", String(256), primary_key=True),
    Column("target", String(256), primary_key=True),
    Column("payload", Text, nullable=False),
    Column("source", Text, nullable=False),
    Column("origin", String(16), nullable=False),
    Column("loaded_at", DateTime(timezone=True), nullable=False),
)
"""Curated entries (`kind` alternatives | migration | breaking), `package` normalised, `target` the
migration's destination or the breaking version ("" for alternatives); `payload` is JSON."""

release_section = Table(
    "release_section",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("package", String(256), primary_key=True),
    Column("origin", String(16), primary_key=True),
    Column("version", String(128), primary_key=True),
    Column("title", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("published_at", DateTime(timezone=True)),
    Column("prerelease", Boolean, nullable=False),
    Column("entries", Text, nullable=False),
    Column("breaking", Text, nullable=False),
    Column("harvested_at", DateTime(timezone=True), nullable=False),
)
"""Harvested release notes per version and origin (github-release | changelog); JSON lists."""
Index("ix_release_section_published", release_section.c.published_at)

known_bug = Table(
    "known_bug",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("ecosystem", String(16), nullable=False),
    Column("package", String(256), nullable=False),
    Column("number", Integer, nullable=False),
    Column("title", Text, nullable=False),
    Column("state", String(8), nullable=False),
    Column("severity", String(16), nullable=False),
    Column("labels", Text, nullable=False),
    Column("versions", Text, nullable=False),
    Column("fixed_in", String(128)),
    Column("url", Text, nullable=False),
    Column("created_at", DateTime(timezone=True)),
    Column("closed_at", DateTime(timezone=True)),
    Column("excerpt", Text, nullable=False),
    Column("comments", Integer, nullable=False),
    Column("harvested_at", DateTime(timezone=True), nullable=False),
)
"""Bugs from issue trackers; full-text indexed (SQLite FTS5 `known_bug_fts`, PostgreSQL GIN)."""
Index(
    "ix_known_bug_package",
    known_bug.c.ecosystem,
    known_bug.c.package,
    known_bug.c.number,
    unique=True,
)

harvest_state = Table(
    "harvest_state",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("package", String(256), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("repository", Text),
    Column("status", String(16), nullable=False),
    Column("detail", Text),
    Column("items", Integer, nullable=False),
    Column("harvested_at", DateTime(timezone=True), nullable=False),
)
"""Last harvest per package and kind (releases | bugs): tells "no data found" from "never looked"."""

package_repository = Table(
    "package_repository",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("name", String(256), primary_key=True),
    Column("display_name", String(256), nullable=False),
    Column("repository", String(512), nullable=False),
    Column("seen_at", DateTime(timezone=True), nullable=False),
)
"""Normalised source-repository URL of each package a live report has seen (same-as lookups)."""
Index("ix_package_repository_repo", package_repository.c.repository)

usage_event = Table(
    "usage_event",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("source", String(128), nullable=False),
    Column("ecosystem", String(16)),
    Column("package", String(256)),
    Column("ua_class", String(16), nullable=False),
    Column("client", String(32), nullable=False),
    Column("status", Integer),
    Column("found", Boolean),
    Column("latency_ms", Integer),
    Column("cache", String(16)),
    Column("account_id", Integer),
    Column("key_id", Integer),
)
"""Our own query log: one row per API call / MCP tool call (client = keyed hash, never an IP)."""
Index("ix_usage_event_at", usage_event.c.at)
Index("ix_usage_event_package", usage_event.c.ecosystem, usage_event.c.package, usage_event.c.at)
Index("ix_usage_event_client", usage_event.c.client)
Index("ix_usage_event_found", usage_event.c.found, usage_event.c.ecosystem, usage_event.c.package)

contact_request = Table(
    "contact_request",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("received_at", DateTime(timezone=True), nullable=False),
    Column("type", String(32), nullable=False),
    Column("message", Text, nullable=False),
    Column("email", String(254)),
    Column("ecosystem", String(16)),
    Column("package", String(256)),
    Column("client", String(32), nullable=False),
    Column("source", String(8), nullable=False),
)
"""Contact requests (`POST /api/contact`, MCP `contact`); the sender is a keyed hash, never an IP."""
Index("ix_contact_request_received_at", contact_request.c.received_at)
Index("ix_contact_request_client", contact_request.c.client)
health_snapshot = Table(
    "health_snapshot",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("package", String(256), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("display_name", String(256), nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    Column("score", Integer, nullable=False),
    Column("risk", String(16), nullable=False),
    Column("breakdown", Text, nullable=False),
    Column("vulnerabilities", Text, nullable=False),
    Column("latest_version", String(128), nullable=False),
)
"""One health snapshot per package per day (issue 16's history; `services/reports/history.py`).
`breakdown` and `vulnerabilities` are JSON objects; `package` is the normalised name."""
Index("ix_health_snapshot_day", health_snapshot.c.day)

anomaly_report = Table(
    "anomaly_report",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("received_at", DateTime(timezone=True), nullable=False),
    Column("ecosystem", String(16), nullable=False),
    Column("package", String(256), nullable=False),
    Column("version", String(128)),
    Column("observed", Text, nullable=False),
    Column("expected", Text, nullable=False),
    Column("evidence_url", String(2048)),
    Column("client", String(32), nullable=False),
    Column("source", String(8), nullable=False),
)
"""Wrong-verdict reports (`POST /api/anomaly`); the sender is a keyed hash, never an IP."""
Index("ix_anomaly_report_received_at", anomaly_report.c.received_at)
Index("ix_anomaly_report_client", anomaly_report.c.client)

page_view = Table(
    "page_view",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("path", String(512), nullable=False),
    Column("referrer_host", String(253)),
    Column("client", String(32), nullable=False),
)
"""Page views (`POST /api/track`): the path and the referrer's host only, the client as a keyed hash."""
Index("ix_page_view_at", page_view.c.at)
Index("ix_page_view_client", page_view.c.client)

benchmark_result = Table(
    "benchmark_result",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run", String(128), nullable=False),
    Column("run_date", Date),
    Column("loaded_at", DateTime(timezone=True), nullable=False),
    Column("model", String(128), nullable=False),
    Column("condition", String(128), nullable=False),
    Column("ecosystem", String(16)),
    Column("trials", Integer, nullable=False),
    Column("hallucinated", Integer, nullable=False),
)
"""Hallucination-benchmark results loaded by `pkgintel benchmark load` (one row per model,
condition and ecosystem of a run; loading a run again replaces its rows)."""
Index("ix_benchmark_result_run", benchmark_result.c.run)
# -- accounts, sessions, API keys (issue 30; `storage/accounts.py`) --
account = Table(
    "account",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("email", String(254), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_login_at", DateTime(timezone=True)),
)
"""One account per verified e-mail address (created when a magic link is first verified)."""
Index("ux_account_email", account.c.email, unique=True)

auth_token = Table(
    "auth_token",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("digest", String(64), nullable=False),
    Column("email", String(254), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True)),
)
"""Magic-link tokens: only their SHA-256 (`digest`); single use (`used_at`), 15 minutes."""
Index("ux_auth_token_digest", auth_token.c.digest, unique=True)
Index("ix_auth_token_expires_at", auth_token.c.expires_at)

session = Table(
    "session",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("digest", String(64), nullable=False),
    Column("account_id", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
)
"""Signed-in sessions: the SHA-256 of the cookie's random id, never the id; revocable."""
Index("ux_session_digest", session.c.digest, unique=True)
Index("ix_session_account", session.c.account_id)

api_key = Table(
    "api_key",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("prefix", String(16), nullable=False),
    Column("name", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
    Column("last_used_at", DateTime(timezone=True)),
    Column("month", String(7)),
    Column("month_count", Integer, nullable=False),
)
"""API keys: SHA-256 of the key and its display prefix; last use and this month's call count
(`month` is `YYYY-MM`), written in batches off the request path."""
Index("ux_api_key_digest", api_key.c.digest, unique=True)
Index("ix_api_key_account", api_key.c.account_id)

outbox = Table(
    "outbox",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("recipient", String(254), nullable=False),
    Column("subject", String(200), nullable=False),
    Column("body", Text, nullable=False),
)
"""Mail waiting to be read with `pkgintel outbox` when no SMTP server is configured; a message is
removed when read and pruned once its sign-in link has expired."""
Index("ix_outbox_created_at", outbox.c.created_at)
package_gone = Table(
    "package_gone",
    metadata,
    Column("ecosystem", String(16), primary_key=True),
    Column("package", String(256), primary_key=True),
    Column("gone_since", Date, nullable=False),
    Column("last_checked", Date, nullable=False),
    Column("reason", Text, nullable=False),
)
"""A tracked package its registry no longer has (issue 34): first and last day it was seen gone.
Its `health_snapshot` rows are kept; the row is deleted when the package answers again."""
