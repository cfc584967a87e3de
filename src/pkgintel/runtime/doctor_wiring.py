"""
Composition of `operations.doctor.Doctor` from `Settings`: which upstreams there are (every
`upstream_*_url` setting and every name list), which are optional, what the configuration findings
are, and how the database is reached. `bootstrap.assemble` (for `GET /api/admin/doctor`) and
`bootstrap.open_doctor` (for `pkgintel doctor`) both build the doctor here, so the two doors answer the
same checks.

Required upstreams (unreachable = `fail`): the registries each ecosystem's reports come from, the
crates.io sparse index (yanked flags), the OSV export, the OSV API when the fallback is on, and the name
lists. Optional ones (unreachable = `warn`) only add a signal to the answers, which then say it is
missing: `OPTIONAL_UPSTREAMS`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import ValidationError
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.cache.base import Cache
from pkgintel.config import Settings
from pkgintel.domain.operations.doctor import Finding, Probe, Status
from pkgintel.services.operations.doctor import (
    DatabaseTarget,
    DataExpectations,
    Doctor,
    IndexStates,
    JobLog,
    RunLog,
    UpstreamTarget,
)
from pkgintel.sources.reachability import probe_location
from pkgintel.storage.base import StoreHealth
from pkgintel.storage.migrate import current_revision, head_revision

INGESTION_KINDS = ("initial-ingestion", "ingest-advisories", "ingest-kev-epss", "ingest-names")
"""Job kinds that load data; the doctor reports the last run of each."""
OPTIONAL_UPSTREAMS = frozenset(
    {
        "upstream_npm_downloads_url",
        "upstream_pypistats_url",
        "upstream_pkgsite_url",
        "upstream_depsdev_url",
        "upstream_nuget_search_url",
        "upstream_packagist_url",
        "upstream_cran_url",
        "upstream_cranlogs_url",
        "upstream_juliahub_url",
        "upstream_jsr_api_url",
        "upstream_github_api_url",
        "upstream_scorecard_url",
        "upstream_kev_url",
        "upstream_epss_url",
        "upstream_llm_url",
    }
)
"""Upstreams that only enrich answers (download counts, GitHub, Scorecard, deps.dev, search services,
KEV, EPSS, the mission model): unreachable is a warning."""
DEFAULT_PROBE_TIMEOUT_S = 5.0


def redact(location: str) -> str:
    """`location` without user name or password (URLs of mirrors may carry credentials)."""
    parts = urlsplit(location)
    if not parts.scheme or "@" not in parts.netloc:
        return location
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def first_clause(description: str) -> str:
    """A setting's description up to its first `; ` outside parentheses, without the final dot."""
    depth = 0
    for i, char in enumerate(description):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == ";" and depth == 0:
            return description[:i]
    return description.rstrip(".")


def upstream_targets(settings: Settings) -> list[UpstreamTarget]:
    """Every `upstream_*_url` setting, in declaration order, then each name list."""
    out = []
    for name, field in Settings.model_fields.items():
        if not (name.startswith("upstream_") and name.endswith("_url")):
            continue
        value = getattr(settings, name)
        unused = None
        if name == "upstream_osv_api_url" and not settings.osv_api_fallback:
            unused = "not used (PKGINTEL_OSV_API_FALLBACK=false)"
        out.append(
            UpstreamTarget(
                setting=f"PKGINTEL_{name.upper()}",
                location=value,
                shown=redact(value) if value else "unset",
                role=first_clause(field.description or name),
                required=name not in OPTIONAL_UPSTREAMS,
                unused_because=unused,
            )
        )
    for eco, source in settings.name_lists.items():
        out.append(
            UpstreamTarget(
                setting=f"PKGINTEL_NAME_LISTS[{eco}]",
                location=source,
                shown=redact(source),
                role=f"{eco} name list (the `ingest-names` job)",
                required=True,
            )
        )
    return out


def configuration_findings(settings: Settings) -> list[Finding]:
    """The settings loaded; what is worth knowing about them (never a secret's value)."""
    known = {f"PKGINTEL_{name.upper()}" for name in Settings.model_fields}
    given = sorted(k for k in os.environ if k.upper() in known)
    env_file = " and .env" if Path(".env").is_file() else ""
    out = [
        Finding(
            "configuration",
            "settings",
            Status.OK,
            f"load: {len(given)} PKGINTEL_ variable{'' if len(given) == 1 else 's'} set in the "
            f"environment{env_file}, "
            "the rest at their defaults",
        )
    ]
    if not settings.admin_token:
        out.append(
            Finding(
                "configuration",
                "PKGINTEL_ADMIN_TOKEN",
                Status.INFO,
                "unset: the admin API (/api/admin/*, this report included) answers 404",
            )
        )
    if not settings.ip_hash_secret:
        out.append(
            Finding(
                "configuration",
                "PKGINTEL_IP_HASH_SECRET",
                Status.INFO,
                "unset: client hashes change at each start and differ between processes",
            )
        )
    if not settings.github_token:
        out.append(
            Finding(
                "configuration",
                "PKGINTEL_GITHUB_TOKEN",
                Status.INFO,
                "unset: GitHub allows 60 requests an hour (repository stats, release notes, Swift tags)",
            )
        )
    return out


def _example(field_name: str) -> str | None:
    field = Settings.model_fields.get(field_name)
    if field is None:
        return None
    default = field.get_default(call_default_factory=True)
    if default is None:
        return None
    return json.dumps(default) if isinstance(default, list | dict) else str(default)


def _shown_value(variable: str, value: Any) -> str:
    if any(word in variable for word in ("TOKEN", "SECRET", "KEY")):
        return "<hidden>"
    return redact(str(value))


def settings_error_findings(exc: Exception) -> list[Finding]:
    """One `fail` per bad setting of a `Settings()` that did not load, with an example of a right
    value (the default); `SettingsError` (a JSON setting that is not JSON) names its variable."""
    out = []
    if isinstance(exc, ValidationError):
        for error in exc.errors(include_url=False):
            field = str(error["loc"][0]) if error["loc"] else "settings"
            variable = f"PKGINTEL_{field.upper()}"
            given = _shown_value(variable, os.environ.get(variable, error.get("input")))
            example = _example(field)
            out.append(
                Finding(
                    "configuration",
                    variable,
                    Status.FAIL,
                    f"{given}: {str(error['msg']).removeprefix('Value error, ')}",
                    f"set {variable} to a valid value"
                    + (f", e.g. {variable}={example} (the default)" if example else ""),
                )
            )
        return out
    text = str(exc)
    start = text.find('field "')
    field = text[start + 7 : text.find('"', start + 7)] if start >= 0 else ""
    variable = f"PKGINTEL_{field.upper()}" if field else "a PKGINTEL_ variable"
    example = _example(field)
    return [
        Finding(
            "configuration",
            variable,
            Status.FAIL,
            "not valid JSON (this setting is a JSON list or object)",
            f"set {variable} to JSON" + (f", e.g. {variable}='{example}'" if example else ""),
        )
    ]


def database_target(settings: Settings, engine: AsyncEngine, health: StoreHealth) -> DatabaseTarget:
    """How the doctor reaches the database; a SQLite file is looked for before connecting."""
    url = make_url(settings.database_url)
    exists: Callable[[], bool] | None = None
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        in_memory = database in ("", ":memory:") or database.startswith("file:")
        path = Path(database).expanduser()
        shown = "SQLite in memory" if in_memory else f"SQLite file {path.resolve()}"
        if not in_memory:
            exists = path.is_file
    else:
        shown = f"PostgreSQL {url.render_as_string(hide_password=True)}"

    async def current() -> str | None:
        return await current_revision(engine)

    return DatabaseTarget(shown, health, current, head_revision, file_exists=exists)


def build_doctor(
    settings: Settings,
    *,
    engine: AsyncEngine,
    health: StoreHealth,
    cache: Cache | None,
    client: httpx.AsyncClient,
    feeds: RunLog,
    names: IndexStates,
    jobs: JobLog | None,
    clock: Callable[[], datetime],
    timeout_s: float | None = None,
    feed_outcomes: Callable[[], Awaitable[Mapping[str, Mapping[str, Any]]]] | None = None,
) -> Doctor:
    """The doctor on open resources; `cache` is None when Redis is not configured."""
    timeout = timeout_s or min(settings.upstream_timeout_s, DEFAULT_PROBE_TIMEOUT_S)

    async def probe(location: str) -> Probe:
        return await probe_location(client, location, timeout=timeout)

    return Doctor(
        configuration=configuration_findings(settings),
        database=database_target(settings, engine, health),
        cache=cache,
        cache_shown=redact(settings.redis_url) if settings.redis_url else None,
        upstreams=upstream_targets(settings),
        probe=probe,
        feeds=feeds,
        names=names,
        expected=DataExpectations(
            osv_ecosystems=tuple(settings.osv_ecosystems),
            name_lists=dict(settings.name_lists),
            stale_after_s=settings.advisory_stale_after_s,
            data_stale_after_s=settings.advisory_data_stale_after_s,
            osv_api_fallback=settings.osv_api_fallback,
        ),
        jobs=jobs,
        ingestion_kinds=INGESTION_KINDS,
        clock=clock,
        feed_outcomes=feed_outcomes,
    )
