"""
One `Settings` object, read from the environment (prefix `PKGINTEL_`).

Only `bootstrap.py`, `app.py` and `cli.py` read settings; everything else receives plain values.
`python -m pkgintel.config --markdown` prints the README's configuration table.
"""

from __future__ import annotations

import sys

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Service configuration. Every upstream base URL is a setting, so mirrors and tests can point elsewhere."""

    model_config = SettingsConfigDict(env_prefix="PKGINTEL_", env_file=".env", extra="ignore")

    database_url: str = Field(
        "sqlite+aiosqlite:///./pkgintel.db",
        description="SQLAlchemy URL: `sqlite+aiosqlite:///path.db` or `postgresql+asyncpg://user:pw@host/db`.",
    )
    redis_url: str | None = Field(
        None,
        description="Redis URL for the shared cache and counters; unset = in-process memory cache.",
    )
    upstream_npm_url: str = Field(
        "https://registry.npmjs.org", description="npm registry (packuments)."
    )
    upstream_npm_downloads_url: str = Field(
        "https://api.npmjs.org", description="npm downloads API."
    )
    upstream_pypi_url: str = Field(
        "https://pypi.org", description="PyPI JSON API and simple index."
    )
    upstream_pypistats_url: str = Field(
        "https://pypistats.org", description="PyPI download statistics."
    )
    upstream_osv_export_url: str = Field(
        "https://osv-vulnerabilities.storage.googleapis.com",
        description="OSV bulk exports (`<ecosystem>/all.zip`): a URL, a folder or a `file://` URL.",
    )
    upstream_osv_api_url: str = Field(
        "https://api.osv.dev",
        description="OSV API, queried on demand for ecosystems with no ingested advisories.",
    )
    upstream_kev_url: str = Field(
        "https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json",
        description="CISA Known Exploited Vulnerabilities catalog (URL or path).",
    )
    upstream_epss_url: str = Field(
        "https://epss.empiricalsecurity.com",
        description="FIRST EPSS scores: a base URL (its `epss_scores-current.csv.gz`) or a csv(.gz) file.",
    )
    osv_ecosystems: list[str] = Field(
        default_factory=lambda: [
            "npm",
            "PyPI",
            "crates.io",
            "Go",
            "Maven",
            "NuGet",
            "RubyGems",
            "Packagist",
            "Pub",
            "Hex",
            "SwiftURL",
            "Hackage",
            "CRAN",
            "Julia",
        ],
        description="OSV ecosystems `pkgintel ingest all` loads (JSON list).",
    )
    osv_api_fallback: bool = Field(
        True,
        description="Ask the OSV API for ecosystems with no ingested advisories (answers cached like package data).",
    )
    advisory_stale_after_s: int = Field(
        172800,
        ge=60,
        description="Age after which ingested advisory data is reported `stale` in `_meta.sources` (2 days).",
    )
    feed_poll_s: float = Field(
        0.5,
        gt=0,
        description="How often each process checks the database for new live-feed events, seconds.",
    )
    max_lockfile_bytes: int = Field(
        5 * 1024 * 1024,
        ge=1024,
        description="Largest `/api/scan` body accepted, bytes (larger → 413).",
    )
    upstream_timeout_s: float = Field(
        10.0, gt=0, description="Timeout of one upstream request, seconds."
    )
    cache_ttl_s: int = Field(
        21600, ge=0, description="Server-side freshness of package data, seconds (6 h)."
    )
    cache_stale_s: int = Field(
        86400,
        ge=0,
        description="How long past freshness a cached copy is served while it is refreshed (stale-while-revalidate).",
    )
    not_found_ttl_s: int = Field(
        600, ge=0, description="How long an upstream 404 is remembered, seconds."
    )
    memory_cache_entries: int = Field(
        20000, ge=100, description="Entries kept by the in-process cache."
    )
    bulk_hint_threshold: int = Field(
        10,
        ge=1,
        description="Full checks by one client within 60 s after which `_meta.hint_bulk` appears.",
    )
    ip_hash_secret: str | None = Field(
        None,
        description="Secret for hashing client IPs (HMAC); unset = a random secret per process.",
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="Peer addresses whose `X-Forwarded-For` is believed (JSON list).",
    )
    public_url: str = Field(
        "http://127.0.0.1:8000", description="Public base URL, used in links and docs."
    )
    migrate_on_start: bool = Field(
        True, description="Apply database migrations when the service starts."
    )
    log_level: str = Field("info", description="Log level: debug, info, warning, error.")
    # -- upstream protection (issue 12) --
    upstream_breaker_failures: int = Field(
        5, ge=1, description="Consecutive failures of one upstream host that open its circuit."
    )
    upstream_breaker_backoff_s: float = Field(
        5.0,
        gt=0,
        description="First wait before a half-open probe, seconds (doubles per reopening, jittered).",
    )
    upstream_breaker_max_backoff_s: float = Field(
        300.0, gt=0, description="Longest wait of an open circuit before its probe, seconds."
    )
    upstream_max_concurrency: int = Field(
        16, ge=1, description="Requests in flight at once to one upstream host."
    )
    upstream_fanout_per_request: int = Field(
        50,
        ge=1,
        description="Packages one API request may look up upstream on demand; the rest are named as not looked up.",
    )

    @field_validator("database_url")
    @classmethod
    def _known_driver(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError("database_url must use sqlite+aiosqlite:// or postgresql+asyncpg://")
        return value


def settings_markdown() -> str:
    """The configuration table as Markdown (README section between the env markers)."""
    lines = ["| variable | default | meaning |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        shown = "unset" if default is None else f"`{default}`"
        lines.append(f"| `PKGINTEL_{name.upper()}` | {shown} | {field.description or ''} |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - tooling entry point
    if "--markdown" in sys.argv:
        sys.stdout.write(settings_markdown() + "\n")
