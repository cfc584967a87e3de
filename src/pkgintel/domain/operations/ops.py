"""
Operations values: jobs, missions, proposals and their status machines (pure).

```
job       queued → running → succeeded | partial | failed | killed   (running → queued when a lease expires)
mission   draft → queued → running → succeeded | failed | killed (draft|queued → killed too)
proposal  pending → approved | rejected;  approved → applied;  applied → reverted
```

A job ends `partial` when its handler did some of its work and not the rest (an ingestion where
some feeds loaded and others failed: `operations.jobs.JobIncomplete`). An illegal move raises
`IllegalTransition` (HTTP 409).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from pkgintel.domain.errors import PkgIntelError


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    PARTIAL = "partial"
    FAILED = "failed"
    KILLED = "killed"


class MissionStatus(StrEnum):
    DRAFT = "draft"
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    KILLED = "killed"


class ProposalStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    APPLIED = "applied"
    REVERTED = "reverted"


TERMINAL_JOB = frozenset(
    {JobStatus.SUCCEEDED, JobStatus.PARTIAL, JobStatus.FAILED, JobStatus.KILLED}
)

MISSION_MOVES: dict[MissionStatus, frozenset[MissionStatus]] = {
    MissionStatus.DRAFT: frozenset({MissionStatus.QUEUED, MissionStatus.KILLED}),
    MissionStatus.QUEUED: frozenset({MissionStatus.RUNNING, MissionStatus.KILLED}),
    MissionStatus.RUNNING: frozenset(
        {MissionStatus.SUCCEEDED, MissionStatus.FAILED, MissionStatus.KILLED}
    ),
    MissionStatus.SUCCEEDED: frozenset(),
    MissionStatus.FAILED: frozenset(),
    MissionStatus.KILLED: frozenset(),
}

PROPOSAL_MOVES: dict[ProposalStatus, frozenset[ProposalStatus]] = {
    ProposalStatus.PENDING: frozenset({ProposalStatus.APPROVED, ProposalStatus.REJECTED}),
    ProposalStatus.APPROVED: frozenset({ProposalStatus.APPLIED}),
    ProposalStatus.REJECTED: frozenset(),
    ProposalStatus.APPLIED: frozenset({ProposalStatus.REVERTED}),
    ProposalStatus.REVERTED: frozenset(),
}


class IllegalTransition(PkgIntelError):
    """A status move the state machine does not allow (→ 409)."""

    reason = "illegal_transition"

    def __init__(self, what: str, ident: str, current: str, wanted: str) -> None:
        super().__init__(f"{what} {ident} is {current}; it cannot become {wanted}")
        self.what = what
        self.ident = ident
        self.current = current
        self.wanted = wanted


class OpsNotFound(PkgIntelError):
    """An unknown job, mission, proposal, cron slug, profile or prompt (→ 404)."""

    reason = "not_found"

    def __init__(self, what: str, ident: str) -> None:
        super().__init__(f"no {what} {ident!r}")
        self.what = what
        self.ident = ident


class OpsUnavailable(PkgIntelError):
    """A capability that cannot run in this installation, with the reason (→ 503)."""

    reason = "unavailable"


class JobAlreadyRunning(OpsUnavailable):
    """A manual run of a job kind that is already running, or queued and due (→ 409)."""

    reason = "already_running"

    def __init__(self, kind: str, job: Job) -> None:
        state = "running" if job.status is JobStatus.RUNNING else "queued to run next"
        super().__init__(f"{kind} is already {state} as job {job.id}")
        self.kind = kind
        self.job_id = job.id
        self.status = job.status.value


def check_mission_move(ident: str, current: MissionStatus, wanted: MissionStatus) -> None:
    """Raise `IllegalTransition` unless `current → wanted` is a documented mission move."""
    if wanted not in MISSION_MOVES[current]:
        raise IllegalTransition("mission", ident, current.value, wanted.value)


def check_proposal_move(ident: str, current: ProposalStatus, wanted: ProposalStatus) -> None:
    """Raise `IllegalTransition` unless `current → wanted` is a documented proposal move."""
    if wanted not in PROPOSAL_MOVES[current]:
        raise IllegalTransition("proposal", ident, current.value, wanted.value)


@dataclass(frozen=True, slots=True)
class Job:
    """One row of the job table."""

    id: str
    kind: str
    payload: dict[str, Any]
    status: JobStatus
    attempts: int
    max_attempts: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    heartbeat_at: datetime | None = None
    lease_until: datetime | None = None
    worker_id: str | None = None
    kill_requested: bool = False
    result: dict[str, Any] | None = None
    error: str | None = None
    cost_tokens: int = 0
    cost_requests: int = 0
    scheduled_for: datetime | None = None

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return round((self.finished_at - self.started_at).total_seconds(), 3)


@dataclass(frozen=True, slots=True)
class JobEvent:
    """One line of a job's output or one mission event; `id` is monotonic (SSE `id`)."""

    id: int
    job_id: str
    kind: str
    created_at: datetime
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Mission:
    id: str
    profile: str
    params: dict[str, Any]
    status: MissionStatus
    created_at: datetime
    updated_at: datetime
    error: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Proposal:
    """A proposed change to curated knowledge with its evidence (source links)."""

    id: str
    kind: str
    key: str
    payload: dict[str, Any]
    evidence: list[dict[str, Any]]
    status: ProposalStatus
    created_at: datetime
    mission_id: str | None = None
    decided_at: datetime | None = None
    decided_by: str | None = None
    reason: str | None = None
    applied_at: datetime | None = None
    revision_id: int | None = None


@dataclass(frozen=True, slots=True)
class CuratorDecision:
    id: int
    proposal_id: str
    decision: str
    reason: str
    created_at: datetime


# -- user-agent classes (agents-by-range) ---------------------------------------------------

AGENT_CLASSES = ("ai_agent", "ci", "browser", "crawler", "other")

_AI_MARKERS = (
    "claude",
    "anthropic",
    "openai",
    "chatgpt",
    "gptbot",
    "copilot",
    "cursor",
    "codex",
    "gemini",
    "aider",
    "windsurf",
    "cline",
    "continue",
    "mcp",
    "perplexity",
    "devin",
)
_CI_MARKERS = (
    "github-actions",
    "gitlab-ci",
    "gitlab-runner",
    "jenkins",
    "circleci",
    "buildkite",
    "travis",
    "azure-pipelines",
    "teamcity",
    "dependabot",
    "renovate",
)
_CRAWLER_MARKERS = ("bot", "crawler", "spider", "slurp", "crawl")
_BROWSER_MARKERS = ("mozilla/", "chrome/", "safari/", "firefox/", "edg/")


def classify_user_agent(user_agent: str | None) -> str:
    """
    The class of a User-Agent string: `ai_agent`, `ci`, `browser`, `crawler` or `other`.

    AI markers are checked first (an agent's UA often contains `bot` or `Mozilla`), then CI, then
    crawlers (before browsers: crawlers pose as `Mozilla/5.0 (compatible; ...bot)`).
    """
    ua = (user_agent or "").lower()
    if not ua:
        return "other"
    if any(m in ua for m in _AI_MARKERS):
        return "ai_agent"
    if any(m in ua for m in _CI_MARKERS):
        return "ci"
    if any(m in ua for m in _CRAWLER_MARKERS):
        return "crawler"
    if any(m in ua for m in _BROWSER_MARKERS):
        return "browser"
    return "other"


class AdminAccessDenied(PkgIntelError):
    """Admin surface: closed (404: no admin credential configured), no credential (401) or a
    wrong one (403)."""

    reason = "admin_access_denied"

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
