"""
Cron tasks and the first-start ingestion: the work behind each whitelisted cron slug.

`TASKS` maps a slug to the function that builds its handler. **A slug is registered by adding one
line here** (and a default schedule in `Settings.cron_schedules`); `services/cron.CRON_SLUGS` is the
whitelist it must belong to. `health-snapshots` records the daily health history (issue 16).

Ingestion runs (the first start, the `ingest-*` slugs and `ingest-retry`) record each feed's
outcome (`domain.operations.ingestion`: loaded, failed with why, skipped with why), say each failure at
WARNING, end `partial` or `failed` when feeds failed, and queue a retry of the failed feeds on a
backoff (`advisories.ingest_status`).

**Exclusivity** (`exclusive_group`): every kind here runs at most once at a time across every
process. The ingestion kinds (the `ingest-*` slugs, `initial-ingestion`, `ingest-retry`) share
one group, `ingestion`: the first start and the retry write every ingestion table (name index,
advisories, KEV/EPSS) and all of them read-modify-write the per-feed outcome state, so any two of
them would race; splitting names from advisories would save little at a few runs a day. Every
other slug is its own group (a manual run never overlaps the scheduled one). A run checks it
still holds its job (`JobContext.ensure_owner`; every log and progress line checks it too) before
it records feed outcomes, so a run whose lease lapsed cannot overwrite the new owner's.

`job-retention` deletes finished job rows (and their output) older than
`PKGINTEL_JOB_RETENTION_DAYS`, never a queued or running one (`storage/ops.SqlOpsStore.prune_jobs`).

A composition-level module like `runtime/bootstrap.py`: it joins sources (files, URLs) to services.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.operations.ingestion import IngestReport, RunOutcome
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.advisories.ingest_status import IngestionTracker
from pkgintel.services.names.service import NameService
from pkgintel.services.operations.jobs import Handler, JobContext, JobIncomplete
from pkgintel.services.packages.service import PackageService
from pkgintel.sources.fetch import SourceFetchError, is_url, local_path, locate
from pkgintel.sources.name_lists import parse_name_list
from pkgintel.sources.osv_export import (
    count_records,
    export_location,
    is_missing_locally,
    iter_records,
)
from pkgintel.storage.ops_base import OpsStore

PYPI_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
KEV = "kev"
EPSS = "epss"


@dataclass(frozen=True, slots=True)
class TaskDeps:
    client: httpx.AsyncClient
    ingestor: AdvisoryIngestor
    names: NameService
    packages: PackageService
    osv_export_url: str
    osv_ecosystems: tuple[str, ...]
    kev_url: str
    epss_url: str
    name_lists: dict[str, str]
    warm_top: int
    popular: Callable[[Ecosystem, int], Awaitable[list[str]]]
    invalidate: Callable[[], None]
    """Drops this process's cached advisory coverage after an ingestion."""
    knowledge: Any = None
    """`runtime.knowledge.Knowledge` (harvests, usage log), when wired."""
    harvest_top: int = 20
    contact: Any = None
    """`operations.contact.ContactService`, when wired."""
    history: Any = None
    """`signals.history.HistoryService` (daily health snapshots), when wired."""
    ingestion: IngestionTracker | None = None
    """Per-feed outcomes and the backoff retry of failed feeds, when wired."""
    jobs: OpsStore | None = None
    """The job table (`job-retention`), when wired."""
    job_retention_days: int = 30


def _feed(location: str) -> str:
    if is_url(location):
        return "osv"
    path = local_path(location)
    return path.resolve().name or "osv"


def osv_feed(osv_ecosystem: str) -> str:
    """The feed id of one OSV export (`domain.operations.ingestion`)."""
    return f"osv:{osv_ecosystem}"


def names_feed(ecosystem: str) -> str:
    """The feed id of one registry name list."""
    return f"names:{ecosystem}"


def configured_feeds(
    osv_ecosystems: Collection[str], name_lists: Collection[str]
) -> tuple[str, ...]:
    """Every feed an ingestion of this configuration tries: name lists, OSV exports, KEV, EPSS."""
    return (
        *(names_feed(e) for e in name_lists),
        *(osv_feed(e) for e in osv_ecosystems),
        KEV,
        EPSS,
    )


async def _failed(ctx: JobContext, report: IngestReport, feed: str, where: str, why: str) -> None:
    """Record a feed's failure and say it at WARNING: one line, no traceback."""
    report.failed(feed, where, why)
    await ctx.log(f"{feed}: failed: {why}", level=logging.WARNING)


async def _advisories(
    deps: TaskDeps, ctx: JobContext, report: IngestReport, only: Collection[str] | None = None
) -> None:
    """OSV exports of every configured ecosystem (of those in `only`, when given)."""
    location, feed = deps.osv_export_url, _feed(deps.osv_export_url)
    ecosystems = [e for e in deps.osv_ecosystems if only is None or osv_feed(e) in only]
    for i, eco in enumerate(ecosystems):
        await ctx.progress("advisories", i, len(ecosystems))
        where = export_location(location, eco)
        if is_missing_locally(where):
            report.skipped(osv_feed(eco), where, f"no export at {where}")
            await ctx.log(f"{osv_feed(eco)}: no export at {where}; skipped")
            continue
        try:
            async with locate(where, deps.client) as path:
                summary = await deps.ingestor.ingest_osv(
                    feed=feed,
                    osv_ecosystem=eco,
                    location=where,
                    entries=iter_records(path),
                    progress=None,
                )
                total = count_records(path)
        except PkgIntelError as exc:
            await _failed(ctx, report, osv_feed(eco), where, exc.message)
            continue
        line = (
            f"{total:,} records, added {summary.added:,}, updated {summary.updated:,}, "
            f"removed {summary.removed:,} ({summary.seconds:.1f} s)"
        )
        report.loaded(osv_feed(eco), where, records=summary.total, summary=line)
        await ctx.log(f"{feed}:{eco}: {line}")
    deps.invalidate()


async def _kev_epss(
    deps: TaskDeps, ctx: JobContext, report: IngestReport, only: Collection[str] | None = None
) -> None:
    """CISA KEV catalog and FIRST EPSS scores (each replaces the previous one)."""
    if only is None or KEV in only:
        try:
            async with locate(deps.kev_url, deps.client) as path:
                line = await deps.ingestor.ingest_kev(location=deps.kev_url, data=path.read_bytes())
            report.loaded(KEV, deps.kev_url, summary=line)
            await ctx.log(f"kev: {line}")
        except PkgIntelError as exc:
            await _failed(ctx, report, KEV, deps.kev_url, exc.message)
    epss = deps.epss_url
    if is_url(epss) and not epss.lower().endswith((".gz", ".csv")):
        epss = f"{epss.rstrip('/')}/epss_scores-current.csv.gz"
    if only is None or EPSS in only:
        try:
            async with locate(epss, deps.client) as path:
                with path.open("rb") as fh:
                    line = await deps.ingestor.ingest_epss(location=epss, stream=fh)
            report.loaded(EPSS, epss, summary=line)
            await ctx.log(f"epss: {line}")
        except PkgIntelError as exc:
            await _failed(ctx, report, EPSS, epss, exc.message)
    deps.invalidate()


async def _finish(deps: TaskDeps, ctx: JobContext, report: IngestReport) -> dict[str, Any]:
    """End a run: record each feed's outcome, queue a retry of the failed feeds on the backoff,
    and return the result (`domain.operations.ingestion.IngestReport.wire`) — or raise `JobIncomplete` so
    the job ends `partial` or `failed` with that result."""
    result = report.wire()
    if deps.ingestion is not None:
        await ctx.ensure_owner()  # a run that lost its job must not record over the new owner's
        await deps.ingestion.record(ctx.job, report)
        retry = await deps.ingestion.schedule_retry(ctx.job, report)
        if retry is not None:
            result["retry"] = retry
            await ctx.log(
                f"failed feeds retried at {retry['at']} (retry {retry['attempt']}, job "
                f"{retry['job_id']})"
            )
    outcome = report.outcome
    if outcome is RunOutcome.SUCCEEDED:
        return result
    raise JobIncomplete(report.summary(), result, partial=outcome is RunOutcome.PARTIAL)


async def ingest_advisories(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """OSV exports of every configured ecosystem (incremental)."""
    report = IngestReport()
    await _advisories(deps, ctx, report)
    return await _finish(deps, ctx, report)


async def ingest_kev_epss(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """CISA KEV catalog and FIRST EPSS scores (each replaces the previous one)."""
    report = IngestReport()
    await _kev_epss(deps, ctx, report)
    return await _finish(deps, ctx, report)


async def _name_list_bytes(deps: TaskDeps, location: str) -> bytes:
    if not is_url(location):
        path = local_path(location)
        if not path.is_file():
            raise SourceFetchError(location, "no such file")
        raw = await asyncio.to_thread(Path.read_bytes, path)
    else:
        try:
            resp = await deps.client.get(
                location, headers={"Accept": f"{PYPI_SIMPLE_JSON}, */*;q=0.1"}, timeout=300
            )
        except httpx.HTTPError as exc:
            raise SourceFetchError(location, f"download failed ({exc.__class__.__name__})") from exc
        if resp.status_code >= 400:
            raise SourceFetchError(location, f"HTTP {resp.status_code}")
        raw = resp.content
    import gzip

    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def _parse_all(ecosystem: Ecosystem, raw: bytes) -> list[Any]:
    return list(parse_name_list(ecosystem, raw))


async def _names(
    deps: TaskDeps, ctx: JobContext, report: IngestReport, only: Collection[str] | None = None
) -> None:
    """The configured registry name lists (`Settings.name_lists`; those in `only`, when given)."""
    lists = [
        (e, loc) for e, loc in deps.name_lists.items() if only is None or names_feed(e) in only
    ]
    for i, (eco_value, location) in enumerate(lists):
        await ctx.progress("names", i, len(lists))
        try:
            eco = Ecosystem(eco_value)
            raw = await _name_list_bytes(deps, location)
            # Parsing is CPU-bound: off the event loop, so the job's heartbeat keeps its lease.
            entries = await asyncio.to_thread(_parse_all, eco, raw)
            count = await deps.names.ingest(eco, entries, source=location)
        except (PkgIntelError, ValueError) as exc:
            why = getattr(exc, "message", str(exc))
            await _failed(ctx, report, names_feed(eco_value), location, why)
            continue
        report.loaded(names_feed(eco_value), location, records=count)
        await ctx.log(f"{eco_value}: {count:,} names from {location}")


async def ingest_names(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """The configured registry name lists (`Settings.name_lists`)."""
    report = IngestReport()
    await _names(deps, ctx, report)
    return await _finish(deps, ctx, report)


async def warm_cache(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Load the name pools, then refresh the package data of the `warm_top` most popular names
    of each ecosystem with a live adapter (into the shared cache and the snapshot table)."""
    warmed = await deps.names.warm()
    await ctx.log(f"name pools: {', '.join(e.value for e in warmed) or 'none loaded'}")
    fetched = failed = 0
    gate = asyncio.Semaphore(4)

    async def one(eco: Ecosystem, name: str) -> bool:
        async with gate:
            try:
                await deps.packages.get_snapshot(eco, name)
            except PkgIntelError:
                return False
            return True

    for eco in warmed:
        if not deps.packages.supports(eco) or deps.warm_top <= 0:
            continue
        names = await deps.popular(eco, deps.warm_top)
        results = await asyncio.gather(*(one(eco, n) for n in names))
        fetched += sum(results)
        failed += len(results) - sum(results)
        await ctx.log(f"{eco.value}: refreshed {sum(results)} of {len(results)} popular packages")
    return {"pools": [e.value for e in warmed], "refreshed": fetched, "failed": failed}


Step = Callable[[TaskDeps, JobContext, IngestReport, Collection[str] | None], Awaitable[None]]

STEPS: tuple[tuple[str, Step], ...] = (
    ("names", _names),
    ("advisories", _advisories),
    ("kev-epss", _kev_epss),
)
"""The ingestion steps in the order a first start runs them."""


async def _steps(deps: TaskDeps, ctx: JobContext, only: Collection[str] | None) -> IngestReport:
    report = IngestReport()
    for i, (step, fn) in enumerate(STEPS):
        await ctx.progress(step, i, len(STEPS))
        await ctx.log(f"ingestion step {i + 1}/{len(STEPS)}: {step}")
        await fn(deps, ctx, report, only)
    await ctx.progress("done", len(STEPS), len(STEPS))
    return report


async def initial_ingestion(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """First start on an empty database: name lists, OSV advisories (malicious reports included in
    the exports), KEV and EPSS, in that order; a failing feed is logged at WARNING and the next one
    runs. Ends `partial` or `failed` (with the failed feeds) when any feed failed; those are
    retried on the backoff."""
    return await _finish(deps, ctx, await _steps(deps, ctx, None))


async def ingest_retry(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Retry the feeds that failed in the latest run of each (`advisories.ingest_status`): only
    those; a feed loaded since is not fetched again. Queues the next retry while some still fail."""
    if deps.ingestion is None:
        raise PkgIntelError("ingestion tracking is not wired in this installation")
    failing = await deps.ingestion.failing()
    if not failing:
        await ctx.log("no failed feed left to retry")
        return IngestReport().wire()
    await ctx.log(f"retrying {len(failing)} failed feeds: {', '.join(failing)}")
    return await _finish(deps, ctx, await _steps(deps, ctx, set(failing)))


async def _harvest(deps: TaskDeps, ctx: JobContext, kind: str) -> dict[str, Any]:
    if deps.knowledge is None:
        raise PkgIntelError("package knowledge is not wired in this installation")
    results = await deps.knowledge.harvest.harvest_asked(
        limit=deps.harvest_top, days=7, kinds=(kind,)
    )
    done = 0
    for r in results:
        state = r.outcomes.get(kind)
        status = getattr(state, "status", None) or "unknown"
        done += status == "ok"
        await ctx.log(f"{r.ecosystem.value} {r.package}: {kind} {status}")
    await ctx.log(f"{kind}: {done} of {len(results)} most-asked packages harvested")
    return {"packages": len(results), "harvested": done}


async def harvest_changelogs(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Release notes (GitHub releases, changelog files) of the packages asked about most this week."""
    return await _harvest(deps, ctx, "releases")


async def harvest_bugs(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Bug reports (GitHub issues labelled as bugs) of the packages asked about most this week."""
    return await _harvest(deps, ctx, "bugs")


async def usage_retention(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Delete usage-log rows older than `PKGINTEL_USAGE_RETENTION_DAYS`."""
    if deps.knowledge is None:
        raise PkgIntelError("the usage log is not wired in this installation")
    removed = await deps.knowledge.usage.prune()
    await ctx.log(f"usage log: {removed} rows past retention removed")
    return {"removed": removed}


async def contact_retention(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Delete contact requests older than `PKGINTEL_CONTACT_RETENTION_DAYS`."""
    if deps.contact is None:
        raise PkgIntelError("contact requests are not wired in this installation")
    removed = await deps.contact.prune()
    await ctx.log(f"contact requests: {removed} past retention removed")
    return {"removed": removed}


async def health_snapshots(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Today's health snapshot of every package asked about recently or already tracked."""
    if deps.history is None:
        raise PkgIntelError("the health history is not wired in this installation")
    targets = await deps.history.targets()
    await ctx.log(f"health snapshots: {len(targets)} packages")

    async def progress(done: int, total: int) -> None:
        await ctx.progress("snapshots", done, total)

    run = await deps.history.run(targets, progress=progress)
    for key, why in list(run.failed.items())[:20]:
        await ctx.log(f"{key}: not recorded: {why}")
    await ctx.log(
        f"health snapshots: {run.recorded} of {run.packages} recorded in {run.seconds:.1f} s"
    )
    return {"packages": run.packages, "recorded": run.recorded, "failed": len(run.failed)}


async def job_retention(deps: TaskDeps, ctx: JobContext) -> dict[str, Any]:
    """Delete finished jobs older than `PKGINTEL_JOB_RETENTION_DAYS` with their output."""
    if deps.jobs is None:
        raise PkgIntelError("the job table is not wired in this installation")
    jobs, events = await deps.jobs.prune_jobs(older_than=timedelta(days=deps.job_retention_days))
    await ctx.log(
        f"jobs: {jobs} finished past {deps.job_retention_days} days removed ({events} output lines)"
    )
    return {"removed": jobs, "events": events}


TaskFn = Callable[[TaskDeps, JobContext], Any]

TASKS: dict[str, TaskFn] = {
    "ingest-advisories": ingest_advisories,
    "ingest-kev-epss": ingest_kev_epss,
    "ingest-names": ingest_names,
    "warm-cache": warm_cache,
    "harvest-changelogs": harvest_changelogs,
    "harvest-bugs": harvest_bugs,
    "usage-retention": usage_retention,
    "contact-retention": contact_retention,
    "health-snapshots": health_snapshots,
    "job-retention": job_retention,
}
"""Registered cron slugs → their work. One line per slug."""

INGESTION_GROUP = "ingestion"
EXCLUSIVE: dict[str, str] = dict.fromkeys(
    ("ingest-advisories", "ingest-kev-epss", "ingest-names", "initial-ingestion", "ingest-retry"),
    INGESTION_GROUP,
)
"""Kinds sharing an exclusivity group (see the module docstring); any other kind is its own."""


def exclusive_group(kind: str) -> str:
    """The exclusivity group of a task kind (`JobKind.exclusive`)."""
    return EXCLUSIVE.get(kind, kind)


DESCRIPTIONS = {
    "ingest-advisories": "OSV advisories (and malicious-package reports) of every configured ecosystem",
    "ingest-kev-epss": "CISA KEV catalog and FIRST EPSS scores",
    "ingest-names": "registry name lists (PKGINTEL_NAME_LISTS)",
    "warm-cache": "name pools and package data of the most popular names",
    "harvest-changelogs": "release notes of the packages asked about most this week",
    "harvest-bugs": "bug reports of the packages asked about most this week",
    "usage-retention": "usage-log rows past PKGINTEL_USAGE_RETENTION_DAYS removed",
    "contact-retention": "contact requests past PKGINTEL_CONTACT_RETENTION_DAYS removed",
    "health-snapshots": "daily health snapshot of each package asked about (health history)",
    "job-retention": "finished jobs past PKGINTEL_JOB_RETENTION_DAYS removed with their output",
}


def bind(fn: TaskFn, deps: TaskDeps) -> Handler:
    async def handler(ctx: JobContext) -> dict[str, Any] | None:
        result: dict[str, Any] | None = await fn(deps, ctx)
        return result

    return handler
