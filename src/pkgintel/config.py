"""
One `Settings` object, read from the environment (prefix `PKGINTEL_`).

Only `runtime/bootstrap.py`, `app.py` and `cli/main.py` read settings; everything else receives plain values.
`python -m pkgintel.config --markdown` prints the README's configuration table.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

APP_NAME = "pkgintel"
DEFAULT_DATABASE_SHOWN = "`sqlite+aiosqlite:///<user data dir>/pkgintel.db`"
"""How the configuration table shows the default database (the path differs per user and OS)."""


def user_data_dir() -> Path:
    """The user's data folder for pkgintel (platformdirs: `$XDG_DATA_HOME/pkgintel`, by default
    `~/.local/share/pkgintel` on Linux, `~/Library/Application Support/pkgintel` on macOS,
    `%LOCALAPPDATA%\\pkgintel` on Windows). Not created here."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def default_database_url() -> str:
    """The default database: `pkgintel.db` in `user_data_dir()`, never the current folder, so
    every command (serve, mcp, scan, ingest...) of one user finds the same data wherever it runs.
    Creates the folder when it is missing (only for this default; an explicit
    `PKGINTEL_DATABASE_URL` is used as given)."""
    folder = user_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'pkgintel.db'}"


class Settings(BaseSettings):
    """Service configuration. Every upstream base URL is a setting, so mirrors and tests can point elsewhere."""

    model_config = SettingsConfigDict(env_prefix="PKGINTEL_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default_factory=default_database_url,
        description="SQLAlchemy URL: `sqlite+aiosqlite:///path.db` or `postgresql+asyncpg://user:pw@host/db`. Default: `pkgintel.db` in the user's data folder (platformdirs: `$XDG_DATA_HOME/pkgintel`, `~/.local/share/pkgintel` on Linux), created when needed; never the current folder.",
    )
    redis_url: str | None = Field(
        None,
        description="Redis URL for the shared cache and counters; unset = in-process memory cache.",
        examples=["redis://127.0.0.1:6379/0"],
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
    upstream_pypi_files_url: str = Field(
        "https://files.pythonhosted.org",
        description="PyPI files host: core metadata files (PEP 658) of a release whose own JSON is missing. File links on files.pythonhosted.org are moved here; links a mirror rewrote are followed as given.",
    )
    # --- cargo, go, maven, nuget registries ---
    upstream_crates_url: str = Field(
        "https://crates.io", description="crates.io API (crates, versions, owners)."
    )
    upstream_crates_index_url: str = Field(
        "https://index.crates.io",
        description="crates.io sparse index (yanked flags and dependencies per version).",
    )
    upstream_goproxy_url: str = Field(
        "https://proxy.golang.org",
        description="Go module proxy (`@v/list`, `.info`, `.mod`, `@latest`).",
    )
    upstream_pkgsite_url: str = Field(
        "https://pkg.go.dev",
        description="pkg.go.dev API (`/v1beta`: versions with dates, licences, synopsis).",
    )
    upstream_maven_url: str = Field(
        "https://repo.maven.apache.org/maven2",
        description="Maven repository root (`maven-metadata.xml`, POMs).",
    )
    upstream_depsdev_url: str = Field(
        "https://api.deps.dev",
        description="deps.dev API (Maven publish dates; dependents counts for `/api/quality`).",
    )
    upstream_nuget_url: str = Field(
        "https://api.nuget.org",
        description="NuGet V3 (registration index and pages, flat container nuspecs).",
    )
    upstream_nuget_search_url: str = Field(
        "https://azuresearch-usnc.nuget.org",
        description="NuGet search service (total downloads, owners).",
    )
    upstream_rubygems_url: str = Field(
        "https://rubygems.org", description="RubyGems API (gems, versions, owners)."
    )
    upstream_packagist_repo_url: str = Field(
        "https://repo.packagist.org", description="Packagist Composer v2 metadata (`p2/`)."
    )
    upstream_packagist_url: str = Field(
        "https://packagist.org",
        description="packagist.org API (downloads, maintainers, abandoned; `packages/list.json`).",
    )
    upstream_pub_url: str = Field(
        "https://pub.dev", description="pub.dev API (packages, score, publisher, package-names)."
    )
    upstream_hex_url: str = Field(
        "https://hex.pm", description="hex.pm API (packages, releases, owners, downloads)."
    )
    # --- Swift, CocoaPods, CPAN ---
    upstream_swift_url: str = Field(
        "https://raw.githubusercontent.com/SwiftPackageIndex/PackageList/main",
        description="Swift Package Index package list (`packages.json`); versions come from "
        "the code host (`PKGINTEL_UPSTREAM_GITHUB_API_URL`, `PKGINTEL_GITHUB_TOKEN`).",
    )
    upstream_cocoapods_url: str = Field(
        "https://cdn.cocoapods.org",
        description="CocoaPods CDN (`all_pods_versions_a_b_c.txt` shards, podspec JSON, `all_pods.txt`).",
    )
    upstream_cpan_url: str = Field(
        "https://fastapi.metacpan.org",
        description="MetaCPAN API (`/v1/release/<dist>`, release search, `/v1/module/<Module>`).",
    )
    # --- Hackage, CRAN, Conda registries ---
    upstream_hackage_url: str = Field(
        "https://hackage.haskell.org",
        description="Hackage (version statuses, package pages, deprecations).",
    )
    upstream_cran_ppm_url: str = Field(
        "https://packagemanager.posit.co/__api__/repos/2",
        description="Posit Package Manager API of its CRAN repository (versions, archive, DESCRIPTION fields).",
    )
    upstream_cran_url: str = Field(
        "https://cran.r-project.org",
        description="CRAN (package pages with the archival notice, `src/contrib/Archive`).",
    )
    upstream_cranlogs_url: str = Field(
        "https://cranlogs.r-pkg.org", description="cranlogs (CRAN download counts)."
    )
    upstream_conda_url: str = Field(
        "https://api.anaconda.org", description="anaconda.org API (conda packages by channel)."
    )
    # --- Homebrew, Julia, JSR ---
    upstream_homebrew_url: str = Field(
        "https://formulae.brew.sh",
        description="Homebrew JSON API (`api/formula/<name>.json`, `api/cask/<token>.json`, `formula.json`).",
    )
    upstream_julia_url: str = Field(
        "https://raw.githubusercontent.com/JuliaRegistries/General/master",
        description="Raw files of the Julia General registry (`Registry.toml`, `<L>/<Name>/Versions.toml`, `Deps.toml`, `Compat.toml`).",
    )
    upstream_juliahub_url: str = Field(
        "https://juliahub.com",
        description="JuliaHub package documents (`docs/General/<Name>/<version>/pkg.json`: licence, description, owner).",
    )
    upstream_jsr_url: str = Field(
        "https://jsr.io",
        description="JSR registry files (`@scope/name/meta.json`, `<version>_meta.json`).",
    )
    upstream_jsr_api_url: str = Field(
        "https://api.jsr.io",
        description="JSR API (package description, repository, JSR score, runtime compatibility).",
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
        examples=[["npm", "PyPI"]],
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
    advisory_data_stale_after_s: int = Field(
        2592000,
        ge=60,
        description="Age of a feed's newest record after which its data is reported `stale` (30 days): old data loaded today is still old.",
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
    report_signal_wait_s: float = Field(
        2.0,
        ge=0,
        description="How long a full report waits, once the registry has answered, for the signals "
        "that need its answer (GitHub statistics, owner trust, deps.dev, download windows, "
        "Scorecard, DefinitelyTyped); past it they are answered as still being fetched and "
        "completed in the background for the next ask. 0: never wait for them.",
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
        examples=["a-long-random-string"],
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description="Peer addresses whose `X-Forwarded-For` is believed (JSON list).",
        examples=[["10.0.0.1"]],
    )
    public_url: str = Field(
        "http://127.0.0.1:8000", description="Public base URL, used in links and docs."
    )
    mcp_url: str | None = Field(
        None,
        description="Base URL of the MCP endpoint (`<url>/mcp`) when it differs from the public URL; unset = `PKGINTEL_PUBLIC_URL`.",
        examples=["https://mcp.example.org"],
    )
    mcp_allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Extra `Host` names `/mcp` accepts besides loopback and the public/MCP URL hosts (DNS-rebinding protection; JSON list).",
        examples=[["pkgintel.internal"]],
    )
    migrate_on_start: bool = Field(
        True, description="Apply database migrations when the service starts."
    )
    log_level: Literal["debug", "info", "warning", "error", "critical"] = Field(
        "info", description="Log level: debug, info, warning, error or critical (any case)."
    )
    log_format: Literal["text", "json"] = Field(
        "text",
        description="Log lines on stderr: `text` (time, level, logger, message on one line) or `json` (one object per line: `ts`, `level`, `logger`, `msg`, extra fields) for log collectors.",
    )
    # -- error-to-fix database and stack compatibility (issue #17) --
    error_vote_limit: str = Field(
        "10/minute",
        description="Votes one client may cast on error entries (a `limits` rate string).",
    )
    error_min_confidence: float = Field(
        0.6, ge=0, le=1, description="Matches below this confidence count as no match (a miss)."
    )
    compat_default_python: str = Field(
        "3.13",
        description="Python version PEP 508 markers and `requires_python` are checked against when a stack names none.",
    )
    compat_max_packages: int = Field(
        25, ge=2, le=100, description="Most packages one compatibility check accepts."
    )

    # -- operations: admin surface, jobs, cron, missions, curator ----------------------------
    admin_token: str | None = Field(
        None,
        description="Bearer token of the admin API (`/api/admin/*`); unset = every admin path answers 404.",
        examples=["a-long-random-token"],
    )
    worker_embedded: bool = Field(
        True, description="Run a job worker inside `pkgintel serve` (each server process)."
    )
    worker_concurrency: int = Field(2, ge=1, le=64, description="Jobs one worker runs at once.")
    job_poll_s: float = Field(
        1.0, gt=0, description="How often an idle worker looks for jobs, seconds."
    )
    job_heartbeat_s: float = Field(
        1.0,
        gt=0,
        description="How often a running job's lease is renewed (and kills noticed), seconds.",
    )
    job_lease_s: float = Field(
        30.0,
        gt=0,
        description="Lease of a running job: past it without a heartbeat, the job is retried or failed.",
    )
    job_max_attempts: int = Field(
        3, ge=1, le=20, description="Attempts of a job whose worker dies."
    )
    job_retention_days: int = Field(
        30,
        ge=1,
        description="Days finished jobs and their output are kept before the `job-retention` "
        "cron job removes them (never a queued or running job).",
    )
    cron_schedules: dict[str, str] = Field(
        default_factory=lambda: {
            "ingest-advisories": "17 3 * * *",
            "ingest-kev-epss": "47 4 * * *",
            "ingest-names": "23 2 * * 0",
            "warm-cache": "*/30 * * * *",
            "harvest-changelogs": "37 5 * * *",
            "harvest-bugs": "7 6 * * *",
            "usage-retention": "53 1 * * *",
            "contact-retention": "13 1 * * *",
            "health-snapshots": "41 0 * * *",
            "job-retention": "29 2 * * *",
        },
        description="Cron expression per registered cron slug (JSON object; `off` disables one).",
        examples=[{"warm-cache": "*/30 * * * *", "harvest-bugs": "off"}],
    )
    initial_ingest: bool = Field(
        True,
        description="On first start with an empty database, load names, advisories, KEV and EPSS in the background (off for air-gapped installs).",
    )
    ingest_retry_base_s: float = Field(
        60.0,
        gt=0,
        description="Wait before the first retry of the feeds an ingestion could not load, seconds (doubles per retry).",
    )
    ingest_retry_max_s: float = Field(
        3600.0, gt=0, description="Longest wait between two retries of failed feeds, seconds."
    )
    ingest_retry_limit: int = Field(
        48,
        ge=0,
        description="Retries of failed feeds after one ingestion before the next scheduled run takes over (0 = no retries).",
    )
    shipped_popularity: bool = Field(
        True,
        description="At start, load the npm and PyPI popularity snapshot shipped in the package into a name index that is still empty (typosquat checks from the first start, no network; replaced by the `ingest-names` lists).",
    )
    name_lists: dict[str, str] = Field(
        default_factory=lambda: {"pypi": "https://pypi.org/simple/"},
        description="Name list per ecosystem loaded by the `ingest-names` job: a URL or a file (JSON object).",
        examples=[{"pypi": "https://pypi.org/simple/"}],
    )
    warm_cache_top: int = Field(
        50, ge=0, description="Popular packages per ecosystem refreshed by the `warm-cache` job."
    )
    upstream_llm_url: str | None = Field(
        None,
        description="OpenAI-compatible API base (e.g. `http://127.0.0.1:11434/v1`) for LLM mission profiles; unset = only rule profiles run.",
        examples=["http://127.0.0.1:11434/v1"],
    )
    llm_model: str | None = Field(
        None, description="Model name sent to the LLM API.", examples=["llama3.1"]
    )
    llm_api_key: str | None = Field(
        None, description="Bearer key of the LLM API, if it needs one.", examples=["sk-..."]
    )
    mission_tokens_per_day: int = Field(
        200000, ge=0, description="Model tokens missions may spend per UTC day (0 = no cap)."
    )
    mission_tokens_per_month: int = Field(
        3000000, ge=0, description="Model tokens per UTC month (0 = no cap)."
    )
    mission_requests_per_day: int = Field(
        500, ge=0, description="Model requests per UTC day (0 = no cap)."
    )
    mission_requests_per_month: int = Field(
        10000, ge=0, description="Model requests per UTC month (0 = no cap)."
    )
    curator_enabled: bool = Field(
        True, description="Curator on at first start (then switched by the admin API)."
    )
    curator_interval_s: int = Field(
        900, ge=10, description="Curator interval at first start, seconds."
    )
    curator_min_health: int = Field(
        60, ge=0, le=100, description="Lowest health score of an alternative the curator approves."
    )

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _lower_case(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("cron_schedules")
    @classmethod
    def _cron_expressions(cls, value: dict[str, str]) -> dict[str, str]:
        from croniter import croniter

        bad = {k: v for k, v in value.items() if v != "off" and not croniter.is_valid(v)}
        if bad:
            raise ValueError(f"invalid cron expressions: {bad}")
        return value

    # -- package knowledge (issue 18) ------------------------------------------------------
    upstream_github_api_url: str = Field(
        "https://api.github.com",
        description="GitHub REST API: release notes, changelog files and bug issues for `pkgintel harvest`; repository stats and maintainer trust; Swift package tags, releases and repository facts.",
    )
    github_token: str | None = Field(
        None,
        description="GitHub token sent as `Authorization: Bearer` by harvests, `github_stats`, maintainer trust and Swift reports (unset: 60 requests/hour).",
        examples=["ghp_..."],
    )
    usage_log_enabled: bool = Field(
        True,
        description="Record each API call (source, ecosystem, package, user-agent class, client hash) for trending.",
    )
    usage_retention_days: int = Field(
        90, ge=1, description="Days usage-log rows are kept before they are pruned."
    )
    usage_flush_interval_s: float = Field(
        2.0,
        gt=0,
        description="Longest time usage-log rows wait in memory before one batched write, seconds.",
    )
    usage_buffer_max: int = Field(
        50_000,
        ge=100,
        description="Usage-log rows kept in memory while the database cannot be written (an outage); past it the oldest are dropped, counted and logged.",
    )
    # -- upstream protection (issue 12) --
    upstream_breaker_failures: int = Field(
        5,
        ge=1,
        description="Consecutive failures of one configured upstream (or unconfigured host) that open its circuit.",
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
    # -- contact requests --
    contact_limit: str = Field(
        "5/hour",
        description="Contact requests one client may send (a `limits` rate string).",
    )
    contact_retention_days: int = Field(
        365,
        ge=1,
        description="Days contact requests are kept before the `contact-retention` job removes them.",
    )
    # -- rate limits, accounts and sign-in mail (issue 30) --
    rate_limit_anonymous: str = Field(
        "100/minute",
        description="Requests one anonymous client (keyed IP hash) may send (a `limits` rate string; moving window, shared through Redis when configured).",
    )
    rate_limit_key: str = Field(
        "1000/minute", description="Requests one API key may send (a `limits` rate string)."
    )
    rate_limit_ai_agent: str = Field(
        "200/minute",
        description="Requests one client whose User-Agent is a recognised AI agent may send without a key (a `limits` rate string).",
    )
    rate_limit_gdpr: str = Field(
        "10/hour",
        description="Requests to `/api/gdpr/*` per client IP hash, with or without a key (a `limits` rate string).",
    )
    rate_limit_magic_link_address: str = Field(
        "5/hour",
        description="Sign-in links one e-mail address may be sent (a `limits` rate string).",
    )
    rate_limit_magic_link_client: str = Field(
        "10/hour",
        description="Sign-in link requests one client IP hash may send (a `limits` rate string).",
    )
    credential_cache_ttl_s: float = Field(
        5.0,
        gt=0,
        le=5.0,
        description="Seconds a worker keeps what an API key or session cookie resolved to; a revoked key is refused by every worker within this time.",
    )
    smtp_host: str | None = Field(
        None,
        description="SMTP server for sign-in links; unset = links go to the outbox table, read with `pkgintel outbox`.",
        examples=["smtp.example.org"],
    )
    smtp_port: int = Field(587, ge=1, le=65535, description="SMTP server port.")
    smtp_user: str | None = Field(
        None, description="SMTP user name; unset = no login.", examples=["pkgintel"]
    )
    smtp_password: str | None = Field(
        None, description="SMTP password.", examples=["an-app-password"]
    )
    smtp_from: str = Field(
        "pkgintel <noreply@localhost>", description="Sender address of sign-in mail."
    )
    smtp_starttls: bool = Field(True, description="Upgrade the SMTP connection with STARTTLS.")

    # -- dependency tree, licences, health history (issue 16: items 7-8) --
    tree_cache_ttl_s: int = Field(
        86_400, ge=0, description="How long a resolved dependency tree is cached, seconds."
    )
    tree_max_upstream: int = Field(
        200,
        ge=1,
        description="Packages one dependency tree may fetch from a registry; the rest are named as not looked up.",
    )
    tree_concurrency: int = Field(
        8, ge=1, description="Registry lookups one dependency tree runs at once."
    )
    history_asked_days: int = Field(
        30,
        ge=1,
        description="The daily health-snapshots job records packages asked about in this many days.",
    )
    history_limit: int = Field(
        2000, ge=1, description="Most packages the daily health-snapshots job records per run."
    )

    # -- supply-chain signals of artifacts (issue 16: scorecard, provenance) --
    upstream_scorecard_url: str = Field(
        "https://api.scorecard.dev",
        description="OpenSSF Scorecard API (`/projects/github.com/<owner>/<repo>`); attestations are read from the npm and PyPI registry settings.",
    )

    # -- usage figures, community, translation, benchmark (issue 30, items 4-9) --
    upstream_translate_url: str = Field(
        "",
        description="LibreTranslate-compatible API base for `GET /api/translate` (`POST /translate`); empty = translation not configured (503).",
        examples=["https://libretranslate.example.org"],
    )
    translate_api_key: str | None = Field(
        None,
        description="API key sent to the translation API as `api_key`, when it needs one.",
        examples=["a1b2c3d4-..."],
    )
    translate_max_chars: int = Field(
        2000, ge=1, le=20000, description="Longest text `GET /api/translate` accepts, characters."
    )
    translate_cache_ttl_s: int = Field(
        30 * 86400, ge=0, description="Seconds a translation is kept in the shared cache."
    )
    anomaly_limit: str = Field(
        "5/hour", description="Anomaly reports one client may send (a `limits` rate string)."
    )
    anomaly_retention_days: int = Field(
        365, ge=1, description="Days anomaly reports are kept before they are removed."
    )

    @field_validator(
        "rate_limit_anonymous",
        "rate_limit_key",
        "rate_limit_ai_agent",
        "rate_limit_gdpr",
        "rate_limit_magic_link_address",
        "rate_limit_magic_link_client",
    )
    @classmethod
    def _rate_string(cls, value: str) -> str:
        from limits import parse

        try:
            parse(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a rate such as `100/minute`") from None
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: str | None) -> str | None:
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("redis_url must use redis://, rediss:// or unix://")
        return value

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
        if name == "database_url":
            lines.append(
                f"| `PKGINTEL_DATABASE_URL` | {DEFAULT_DATABASE_SHOWN} | {field.description} |"
            )
            continue
        default = field.get_default(call_default_factory=True)
        shown = "unset" if default is None else f"`{default}`"
        lines.append(f"| `PKGINTEL_{name.upper()}` | {shown} | {field.description or ''} |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - tooling entry point
    if "--markdown" in sys.argv:
        sys.stdout.write(settings_markdown() + "\n")
