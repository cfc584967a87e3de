"""
`Doctor`: one look at an installation, for `pkgintel doctor` and `GET /api/admin/doctor`.

`Doctor.run()` returns a `DoctorReport` (statuses and their meaning: `domain/operations/doctor.py`) of:

1. **configuration**: the findings the caller made while loading the settings.
2. **database**: one round trip; a SQLite file that does not exist is reported without connecting
   (connecting would create it); then the migration revision against this version's head.
3. **cache**: Redis answers a ping, when configured.
4. **upstream**: one `GET` per configured upstream, all at once, each with its time (see
   `sources/runtime/reachability.py`). Any HTTP answer below 500 means reachable: the base URL is not an API
   path, so a 404 or 403 from it still proves the host answers; 429 is a warning; 5xx, a timeout or no
   connection is a failure for a required upstream (a registry, the OSV export) and a warning for an
   optional one (download counts, GitHub, Scorecard, deps.dev, KEV, EPSS, ...), whose absence only
   leaves a signal out of the answers, which say so.
5. **data**: the age of every advisory feed (each configured OSV ecosystem must be loaded and younger
   than `stale_after_s`), of KEV and EPSS (warnings: enrichment only) and of every name index (each
   configured name list must be loaded; older than `names_stale_after_s` is a warning).
6. **jobs**: queue counts, running jobs past their lease (stuck), jobs queued for longer than
   `QUEUE_WAIT_S` (no worker), jobs failed in the last day, and the last run of each ingestion kind.

Checks 2-4 run concurrently; 5 and 6 after them, when the database can be read. Nothing here raises:
a check that cannot run is itself a finding.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pkgintel import __version__
from pkgintel.cache.base import Cache
from pkgintel.domain.feeds import SourceRun
from pkgintel.domain.names.rules import NameIndexState
from pkgintel.domain.operations.doctor import DoctorReport, Finding, Probe, Status
from pkgintel.domain.operations.ops import Job
from pkgintel.services.advisories.ingest import EPSS_FEED, KEV_FEED
from pkgintel.storage.base import StoreHealth

QUEUE_WAIT_S = 600.0
"""A job queued (and due) for longer than this means no worker takes jobs."""
FAILED_WINDOW_S = 86400.0
"""Failed jobs are reported for this long after they failed."""
NAMES_STALE_AFTER_S = 14 * 86400
"""A name index older than two weekly `ingest-names` runs is stale."""
CHECK_TIMEOUT_S = 5.0
"""Longest wait for the database or the cache to answer one round trip."""
INGEST_HINT = (
    "run `pkgintel ingest all` (the daily `ingest-advisories` job does it when a worker runs)"
)


class RunLog(Protocol):
    async def runs(self) -> list[SourceRun]:
        """Every feed's last ingestion run (`AdvisoryStore.runs`)."""
        ...


class IndexStates(Protocol):
    async def list_index_states(self) -> list[NameIndexState]:
        """Every loaded name index (`NameStore.list_index_states`)."""
        ...


class JobLog(Protocol):
    async def list_jobs(
        self, *, status: str | None = None, kind: str | None = None, limit: int = 50
    ) -> list[Job]: ...

    async def job_counts(self) -> dict[str, int]: ...


@dataclass(frozen=True, slots=True)
class UpstreamTarget:
    """One configured upstream location."""

    setting: str
    """The variable that sets it (`PKGINTEL_UPSTREAM_PYPI_URL`, `PKGINTEL_NAME_LISTS[pypi]`)."""
    location: str | None
    """URL or path as configured; None when the setting is unset (nothing to check)."""
    shown: str
    """`location` without credentials, for output."""
    role: str
    required: bool
    unused_because: str | None = None
    """Set when the installation does not use it (e.g. the OSV API fallback is off): not asked."""


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    """How to reach the database and what revision it should be at."""

    shown: str
    health: StoreHealth
    current_revision: Callable[[], Awaitable[str | None]]
    head_revision: Callable[[], str | None]
    """The newest revision this version ships (read when the check runs: it parses the scripts)."""
    file_exists: Callable[[], bool] | None = None
    """For a SQLite file: whether it exists (asked before connecting, which would create it)."""


@dataclass(frozen=True, slots=True)
class DataExpectations:
    """What data the configuration asks for, and when it is old."""

    osv_ecosystems: tuple[str, ...]
    name_lists: Mapping[str, str]
    stale_after_s: float
    data_stale_after_s: float
    names_stale_after_s: float = NAMES_STALE_AFTER_S
    osv_api_fallback: bool = False


def age_text(seconds: float) -> str:
    """`"40 s"`, `"12 min"`, `"5.0 h"`, `"3.2 days"`."""
    if seconds < 60:
        return f"{max(seconds, 0):.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _iso(value: datetime | None) -> str:
    return value.isoformat(timespec="seconds").replace("+00:00", "Z") if value else "unknown"


def _error(exc: BaseException) -> str:
    cause = exc.__cause__
    text = f"{exc}" + (f" ({cause.__class__.__name__}: {cause})" if cause else "")
    return text.strip().splitlines()[0][:200] if text.strip() else exc.__class__.__name__


class Doctor:
    """See the module docstring."""

    def __init__(
        self,
        *,
        configuration: Sequence[Finding],
        database: DatabaseTarget,
        cache: Cache | None,
        cache_shown: str | None,
        upstreams: Sequence[UpstreamTarget],
        probe: Callable[[str], Awaitable[Probe]],
        feeds: RunLog,
        names: IndexStates,
        expected: DataExpectations,
        jobs: JobLog | None,
        ingestion_kinds: Sequence[str],
        clock: Callable[[], datetime],
        feed_outcomes: Callable[[], Awaitable[Mapping[str, Mapping[str, Any]]]] | None = None,
    ) -> None:
        self._configuration = tuple(configuration)
        self._db = database
        self._cache = cache
        self._cache_shown = cache_shown
        self._upstreams = tuple(upstreams)
        self._probe = probe
        self._feeds = feeds
        self._names = names
        self._expected = expected
        self._jobs = jobs
        self._ingestion_kinds = tuple(ingestion_kinds)
        self._clock = clock
        self._feed_outcomes = feed_outcomes

    async def run(self) -> DoctorReport:
        """Every check (see the module docstring); never raises."""
        (db, state), cache, upstream = await asyncio.gather(
            self._database(), self._cache_check(), self._upstream_checks()
        )
        if state == "unusable":
            skipped = "not checked: the database cannot be read"
            rest = [
                Finding("data", "data", Status.FAIL, skipped, "fix the database first"),
                Finding("jobs", "jobs", Status.FAIL, skipped, "fix the database first"),
            ]
        else:
            data, jobs = await asyncio.gather(
                self._data(empty=state == "empty"), self._job_checks(empty=state == "empty")
            )
            rest = [*data, *jobs]
        findings = (*self._configuration, *db, *cache, *upstream, *rest)
        return DoctorReport(findings, self._clock(), __version__)

    # -- database and cache -----------------------------------------------------------------
    async def _database(self) -> tuple[list[Finding], str]:
        """Findings and the database's state: `ready`, `empty` (no schema) or `unusable`."""
        try:
            return await self._database_checks()
        except Exception as exc:  # a check that cannot run is itself a finding
            return [
                Finding(
                    "database",
                    "PKGINTEL_DATABASE_URL",
                    Status.FAIL,
                    f"{self._db.shown}: cannot be checked: {_error(exc)}",
                    "fix PKGINTEL_DATABASE_URL",
                )
            ], "unusable"

    async def _database_checks(self) -> tuple[list[Finding], str]:
        db = self._db
        migrate = "run `pkgintel migrate` (`pkgintel serve` migrates at start)"
        if db.file_exists is not None and not await asyncio.to_thread(db.file_exists):
            return [
                Finding(
                    "database",
                    "PKGINTEL_DATABASE_URL",
                    Status.FAIL,
                    f"{db.shown}: the file does not exist; nothing was ever stored here",
                    f"{migrate}, or set PKGINTEL_DATABASE_URL to the database you meant",
                ),
                Finding("database", "migrations", Status.FAIL, "no schema", migrate),
            ], "empty"
        started = asyncio.get_running_loop().time()
        problem: str | None = None
        try:
            await asyncio.wait_for(db.health.ping(), CHECK_TIMEOUT_S)
        except TimeoutError:
            problem = f"no answer within {CHECK_TIMEOUT_S:g} s"
        except Exception as exc:  # any driver failure is the finding
            problem = _error(exc)
        elapsed = round((asyncio.get_running_loop().time() - started) * 1000, 1)
        if problem is not None:
            return [
                Finding(
                    "database",
                    "PKGINTEL_DATABASE_URL",
                    Status.FAIL,
                    f"{db.shown}: unreachable: {problem}",
                    "start the database, or fix PKGINTEL_DATABASE_URL",
                    elapsed,
                )
            ], "unusable"
        found = [
            Finding(
                "database", "PKGINTEL_DATABASE_URL", Status.OK, f"{db.shown} answers", None, elapsed
            )
        ]
        try:
            current = await db.current_revision()
        except Exception as exc:  # any driver failure is the finding
            found.append(
                Finding(
                    "database", "migrations", Status.FAIL, f"cannot read: {_error(exc)}", migrate
                )
            )
            return found, "unusable"
        if current is None:
            found.append(Finding("database", "migrations", Status.FAIL, "no schema", migrate))
            return found, "empty"
        head = await asyncio.to_thread(db.head_revision)
        if current != head:
            found.append(
                Finding(
                    "database",
                    "migrations",
                    Status.FAIL,
                    f"at revision {current}; this version needs {head}",
                    f"back up the database, then {migrate}",
                )
            )
            return found, "ready"
        found.append(
            Finding("database", "migrations", Status.OK, f"at the head revision {current}")
        )
        return found, "ready"

    async def _cache_check(self) -> list[Finding]:
        if self._cache is None:
            return [
                Finding(
                    "cache",
                    "PKGINTEL_REDIS_URL",
                    Status.INFO,
                    "unset: in-process memory cache (right for one process; several processes "
                    "or hosts share a cache and counters only through Redis)",
                )
            ]
        started = asyncio.get_running_loop().time()
        try:
            await asyncio.wait_for(self._cache.ping(), CHECK_TIMEOUT_S)
        except Exception as exc:  # any failure is the finding; TimeoutError included
            elapsed = round((asyncio.get_running_loop().time() - started) * 1000, 1)
            text = _error(exc) if not isinstance(exc, TimeoutError) else "no answer"
            return [
                Finding(
                    "cache",
                    "PKGINTEL_REDIS_URL",
                    Status.FAIL,
                    f"{self._cache_shown}: unreachable: {text}",
                    "start Redis, or fix or unset PKGINTEL_REDIS_URL",
                    elapsed,
                )
            ]
        elapsed = round((asyncio.get_running_loop().time() - started) * 1000, 1)
        return [
            Finding(
                "cache",
                "PKGINTEL_REDIS_URL",
                Status.OK,
                f"{self._cache_shown} answers",
                None,
                elapsed,
            )
        ]

    # -- upstreams --------------------------------------------------------------------------
    async def _upstream_checks(self) -> list[Finding]:
        asked = [t for t in self._upstreams if t.location is not None and not t.unused_because]
        # `return_exceptions`: every probe is awaited even if one broke its never-raise contract.
        results = await asyncio.gather(
            *(self._probe(t.location or "") for t in asked), return_exceptions=True
        )
        probes = [
            r if isinstance(r, Probe) else Probe(0.0, error=f"probe failed: {_error(r)}")
            for r in results
        ]
        by_setting = dict(zip((t.setting for t in asked), probes, strict=True))
        out = []
        for target in self._upstreams:
            probe = by_setting.get(target.setting)
            if probe is None:
                why = target.unused_because or "unset"
                out.append(
                    Finding("upstream", target.setting, Status.INFO, f"{why} — {target.role}")
                )
                continue
            out.append(upstream_finding(target, probe))
        return out

    # -- data -------------------------------------------------------------------------------
    async def _data(self, *, empty: bool) -> list[Finding]:
        try:
            runs = [] if empty else await self._feeds.runs()
            states = [] if empty else await self._names.list_index_states()
        except Exception as exc:  # an old schema or a failing database
            return [
                Finding(
                    "data",
                    "data",
                    Status.FAIL,
                    f"cannot read the data's ages: {_error(exc)}",
                    "run `pkgintel migrate`",
                )
            ]
        now = self._clock()
        return [
            *advisory_findings(runs, self._expected, now),
            *name_findings(states, self._expected, now),
        ]

    # -- jobs -------------------------------------------------------------------------------
    async def _job_checks(self, *, empty: bool) -> list[Finding]:
        if self._jobs is None:
            return []
        if empty:
            return [Finding("jobs", "queue", Status.INFO, "no jobs (the database has no schema)")]
        try:
            counts = await self._jobs.job_counts()
            running = await self._jobs.list_jobs(status="running", limit=500)
            queued = await self._jobs.list_jobs(status="queued", limit=500)
            failed = await self._jobs.list_jobs(status="failed", limit=200)
            last = {k: await self._jobs.list_jobs(kind=k, limit=1) for k in self._ingestion_kinds}
            outcomes = await self._feed_outcomes() if self._feed_outcomes else {}
        except Exception as exc:  # an old schema or a failing database
            return [
                Finding("jobs", "queue", Status.FAIL, f"cannot read the jobs: {_error(exc)}", None)
            ]
        now = self._clock()
        return [
            *job_findings(
                counts, running, queued, failed, last, now, ingestion_kinds=self._ingestion_kinds
            ),
            *failing_feed_findings(outcomes, now),
        ]


def upstream_finding(target: UpstreamTarget, probe: Probe) -> Finding:
    """Judge one probe: see the module docstring for what counts as reachable."""
    bad = Status.FAIL if target.required else Status.WARN
    optional = "" if target.required else " (optional: without it only this signal is missing)"
    mirror = f"set {target.setting} to a reachable mirror or a local copy"
    if probe.local:
        if probe.error:
            return Finding(
                "upstream",
                target.setting,
                bad,
                f"{target.shown}: {probe.error} — {target.role}",
                f"set {target.setting} to an existing path or a reachable URL{optional}",
            )
        return Finding(
            "upstream", target.setting, Status.OK, f"{target.shown}: local path exists", None
        )
    took = probe.elapsed_ms
    if probe.error is not None or probe.status_code is None:
        return Finding(
            "upstream",
            target.setting,
            bad,
            f"{target.shown}: unreachable: {probe.error} — {target.role}",
            f"let this machine reach it, or {mirror}{optional}",
            took,
        )
    code = probe.status_code
    if code >= 500:
        return Finding(
            "upstream",
            target.setting,
            bad,
            f"{target.shown}: answered HTTP {code}: the upstream is in trouble — {target.role}",
            f"try again later, or {mirror}{optional}",
            took,
        )
    if code == 429:
        return Finding(
            "upstream",
            target.setting,
            Status.WARN,
            f"{target.shown}: answered HTTP 429: this machine is rate limited",
            "ask less often (raise PKGINTEL_CACHE_TTL_S), or use a mirror",
            took,
        )
    return Finding(
        "upstream", target.setting, Status.OK, f"{target.shown}: HTTP {code}", None, took
    )


def advisory_findings(
    runs: Sequence[SourceRun], expected: DataExpectations, now: datetime
) -> list[Finding]:
    """One finding per OSV ecosystem (configured ones first), then KEV and EPSS."""
    by_scope: dict[str, list[SourceRun]] = {}
    for run in runs:
        if run.feed not in (KEV_FEED, EPSS_FEED):
            by_scope.setdefault(run.scope, []).append(run)
    scopes = [*expected.osv_ecosystems, *sorted(set(by_scope) - set(expected.osv_ecosystems))]
    out = [_advisories(scope, by_scope.get(scope, []), expected, now) for scope in scopes]
    for feed, command, missing in (
        (
            KEV_FEED,
            "pkgintel ingest kev",
            "answers carry `kev: null` (exploited-in-the-wild unknown)",
        ),
        (
            EPSS_FEED,
            "pkgintel ingest epss",
            "answers carry `epss: null` (exploit probability unknown)",
        ),
    ):
        loaded = next((r for r in runs if r.feed == feed), None)
        out.append(_enrichment(feed, loaded, command, missing, expected, now))
    return out


def _advisories(
    scope: str, runs: list[SourceRun], expected: DataExpectations, now: datetime
) -> Finding:
    check = f"advisories {scope}"
    required = scope in expected.osv_ecosystems
    fix = f"{INGEST_HINT}, or `pkgintel ingest osv --ecosystem {scope}`"
    if not runs:
        fallback = (
            "answers ask the OSV API one package at a time"
            if expected.osv_api_fallback
            else "vulnerability answers say `unavailable`"
        )
        return Finding("data", check, Status.FAIL, f"none loaded: {fallback}", fix)
    done = [r for r in runs if r.completed_at is not None]
    unfinished = [r for r in runs if r.completed_at is None]
    if not done:
        started = min(r.started_at for r in unfinished)
        return Finding(
            "data",
            check,
            Status.FAIL,
            f"a run started {_iso(started)} never finished: answers are `partial`",
            fix,
        )
    loaded = max(r.completed_at for r in done if r.completed_at is not None)
    age = (now - loaded).total_seconds()
    newest = max((r.data_updated_at for r in done if r.data_updated_at), default=None)
    records = sum(r.records for r in done)
    feeds = ", ".join(sorted({r.feed for r in runs}))
    facts = (
        f"{records:,} records ({feeds}), loaded {age_text(age)} ago, newest record {_iso(newest)}"
    )
    if age > expected.stale_after_s:
        status = Status.FAIL if required else Status.WARN
        limit = age_text(expected.stale_after_s)
        return Finding("data", check, status, f"stale (older than {limit}): {facts}", fix)
    if unfinished:
        return Finding(
            "data",
            check,
            Status.WARN,
            f"the last run did not finish (under way or interrupted): answers are `partial`; {facts}",
            fix,
        )
    if newest is not None and (now - newest).total_seconds() > expected.data_stale_after_s:
        return Finding(
            "data",
            check,
            Status.WARN,
            f"newest record older than {age_text(expected.data_stale_after_s)}: {facts}",
            "a quiet feed is normal for a small ecosystem; else check that "
            "PKGINTEL_UPSTREAM_OSV_EXPORT_URL names a current export",
        )
    return Finding("data", check, Status.OK, facts)


def _enrichment(
    feed: str,
    run: SourceRun | None,
    command: str,
    missing: str,
    expected: DataExpectations,
    now: datetime,
) -> Finding:
    if run is None:
        return Finding("data", feed, Status.WARN, f"not loaded: {missing}", f"run `{command}`")
    if run.completed_at is None:
        return Finding(
            "data",
            feed,
            Status.WARN,
            f"a run started {_iso(run.started_at)} did not finish",
            f"run `{command}`",
        )
    age = (now - run.completed_at).total_seconds()
    facts = (
        f"{run.records:,} records, loaded {age_text(age)} ago, as of {_iso(run.data_updated_at)}"
    )
    if age > expected.stale_after_s:
        return Finding(
            "data",
            feed,
            Status.WARN,
            f"stale (older than {age_text(expected.stale_after_s)}): {facts}",
            f"run `{command}` (the daily `ingest-kev-epss` job does it when a worker runs)",
        )
    return Finding("data", feed, Status.OK, facts)


def name_findings(
    states: Sequence[NameIndexState], expected: DataExpectations, now: datetime
) -> list[Finding]:
    """One finding per configured name list, then per other loaded index."""
    loaded = {s.ecosystem.value: s for s in states}
    ecosystems = [*expected.name_lists, *sorted(set(loaded) - set(expected.name_lists))]
    out = []
    for eco in ecosystems:
        source = expected.name_lists.get(eco, "<name list>")
        fix = f"run `pkgintel ingest names --ecosystem {eco} --from {source}`"
        state = loaded.get(eco)
        if state is None:
            out.append(
                Finding(
                    "data",
                    f"names {eco}",
                    Status.FAIL,
                    "no name index: /api/exists cannot tell real names from made-up ones and "
                    "did-you-mean is off",
                    f"{fix} (or `pkgintel jobs run ingest-names`)",
                )
            )
            continue
        age = (now - state.loaded_at).total_seconds()
        facts = f"{state.names_count:,} names from {state.source}, loaded {age_text(age)} ago"
        if age > expected.names_stale_after_s:
            out.append(
                Finding(
                    "data",
                    f"names {eco}",
                    Status.WARN,
                    f"older than {age_text(expected.names_stale_after_s)}: {facts}",
                    f"{fix} (the weekly `ingest-names` job does it when a worker runs)",
                )
            )
        else:
            out.append(Finding("data", f"names {eco}", Status.OK, facts))
    return out


def job_findings(
    counts: Mapping[str, int],
    running: Sequence[Job],
    queued: Sequence[Job],
    failed: Sequence[Job],
    last: Mapping[str, Sequence[Job]],
    now: datetime,
    *,
    ingestion_kinds: Sequence[str],
) -> list[Finding]:
    """Queue counts, stuck, waiting and failed jobs, and each ingestion kind's last run."""
    shown = ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "no jobs yet"
    out = [Finding("jobs", "queue", Status.INFO, shown)]
    stuck = [j for j in running if j.lease_until is not None and j.lease_until < now]
    if stuck:
        out.append(
            Finding(
                "jobs",
                "stuck jobs",
                Status.FAIL,
                f"{len(stuck)} running past their lease (their worker stopped): "
                + ", ".join(f"{j.kind} {j.id}" for j in stuck[:5]),
                "start a worker (`pkgintel worker`; it requeues them), or `pkgintel jobs kill <id>`",
            )
        )
    waiting = [
        j
        for j in queued
        if (now - (j.scheduled_for or j.created_at)).total_seconds() > QUEUE_WAIT_S
    ]
    if waiting:
        oldest = min(waiting, key=lambda j: j.scheduled_for or j.created_at)
        out.append(
            Finding(
                "jobs",
                "waiting jobs",
                Status.WARN,
                f"{len(waiting)} queued for more than {age_text(QUEUE_WAIT_S)} (oldest: "
                f"{oldest.kind} since {_iso(oldest.scheduled_for or oldest.created_at)}): "
                "no worker takes jobs",
                "start `pkgintel worker`, or keep PKGINTEL_WORKER_EMBEDDED=true for `pkgintel serve`",
            )
        )
    recent = [
        j
        for j in failed
        if j.kind not in ingestion_kinds
        and j.finished_at is not None
        and (now - j.finished_at).total_seconds() <= FAILED_WINDOW_S
    ]
    if recent:
        kinds = ", ".join(sorted({j.kind for j in recent}))
        out.append(
            Finding(
                "jobs",
                "failed jobs",
                Status.WARN,
                f"{len(recent)} failed in the last {age_text(FAILED_WINDOW_S)}: {kinds}",
                "`pkgintel jobs list --status failed` shows their errors",
            )
        )
    for kind in ingestion_kinds:
        jobs = last.get(kind) or ()
        out.append(_last_ingestion(kind, jobs[0] if jobs else None, now))
    return out


def _last_ingestion(kind: str, job: Job | None, now: datetime) -> Finding:
    rerun = f"`pkgintel jobs run {kind} --here` runs it here and prints its log"
    if job is None:
        return Finding("jobs", kind, Status.INFO, "never ran as a job here")
    when = job.finished_at or job.started_at or job.created_at
    ago = f"{age_text((now - when).total_seconds())} ago"
    status = job.status.value
    if status == "failed":
        return Finding(
            "jobs",
            kind,
            Status.FAIL,
            f"last run failed {ago}: {job.error or 'no error text'}",
            rerun,
        )
    if status == "partial":
        return Finding(
            "jobs",
            kind,
            Status.WARN,
            f"last run {ago} loaded some feeds; failed: "
            + ("; ".join(partial_failures(job.result)) or "see its log")[:300],
            rerun,
        )
    if status == "killed":
        return Finding("jobs", kind, Status.WARN, f"last run was killed {ago}", rerun)
    if status != "succeeded":
        return Finding("jobs", kind, Status.INFO, f"{status} (since {_iso(when)})")
    partial = partial_failures(job.result)
    if partial:
        return Finding(
            "jobs",
            kind,
            Status.WARN,
            f"last run {ago} succeeded in part; failed: " + "; ".join(partial)[:300],
            rerun,
        )
    took = "" if job.duration_s is None else f" in {job.duration_s:.0f} s"
    return Finding("jobs", kind, Status.OK, f"last run succeeded {ago}{took}")


def partial_failures(result: Mapping[str, Any] | None) -> list[str]:
    """What an ingestion job's result names as failed: `{"failed_feeds": [{feed, reason}]}`, and
    the older shapes `{"failed": {eco: why}}`, `{"kev_error": why}` and steps holding
    `{"error": why}` (nested)."""
    if not result:
        return []
    out: list[str] = []
    for key, value in result.items():
        if key == "failed_feeds" and isinstance(value, list):
            out.extend(
                f"{item.get('feed')}: {item.get('reason')}"
                for item in value
                if isinstance(item, Mapping)
            )
        elif key == "failed" and isinstance(value, Mapping):
            out.extend(f"{k}: {v}" for k, v in value.items())
        elif key.endswith("_error"):
            out.append(f"{key.removesuffix('_error')}: {value}")
        elif key == "error":
            out.append(str(value))
        elif isinstance(value, Mapping):
            out.extend(f"{key}: {line}" for line in partial_failures(value))
    return out


def failing_feed_findings(
    outcomes: Mapping[str, Mapping[str, Any]], now: datetime
) -> list[Finding]:
    """A `fail` per configured feed whose latest ingestion outcome is `failed` (the ingestion
    tracker's state, shared by every process): why, since when, and when it last loaded."""
    out = []
    for feed, state in outcomes.items():
        if state.get("status") != "failed":
            continue
        runs = int(state.get("failures") or 1)
        since = state.get("failing_since") or state.get("at")
        out.append(
            Finding(
                "jobs",
                f"feed {feed}",
                Status.FAIL,
                f"latest ingestion failed: {state.get('reason') or 'no reason given'} "
                f"({runs} run{'s' if runs != 1 else ''} in a row since {since}; last loaded "
                f"{state.get('last_loaded_at') or 'never'})",
                f"check {state.get('location') or 'its location'} is readable from here; "
                "failed feeds are retried by `ingest-retry` jobs while a worker runs",
            )
        )
    return out
