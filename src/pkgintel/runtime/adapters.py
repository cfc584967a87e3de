"""
The upstream side of the composition root: the one shared HTTP client (timeouts, User-Agent, a
circuit breaker and a concurrency cap per configured upstream) and the registry adapters built on
it, each given its base URLs from the `PKGINTEL_UPSTREAM_*` settings.
"""

from __future__ import annotations

import httpx

from pkgintel import __version__
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import ADAPTERS
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.transport.guard import BreakerPolicy, GuardedTransport, Upstream

USER_AGENT = f"pkgintel/{__version__} (+https://github.com/pkgintel/pkgintel)"


def upstream_urls(settings: Settings) -> dict[Ecosystem, dict[str, str]]:
    """Constructor keyword arguments (base URLs) for each adapter, from the `PKGINTEL_UPSTREAM_*` settings."""
    return {
        Ecosystem.NPM: {
            "base_url": settings.upstream_npm_url,
            "downloads_url": settings.upstream_npm_downloads_url,
        },
        Ecosystem.PYPI: {
            "base_url": settings.upstream_pypi_url,
            "downloads_url": settings.upstream_pypistats_url,
            "files_url": settings.upstream_pypi_files_url,
        },
        Ecosystem.CARGO: {
            "base_url": settings.upstream_crates_url,
            "index_url": settings.upstream_crates_index_url,
        },
        Ecosystem.GO: {
            "base_url": settings.upstream_goproxy_url,
            "pkgsite_url": settings.upstream_pkgsite_url,
        },
        Ecosystem.MAVEN: {
            "base_url": settings.upstream_maven_url,
            "depsdev_url": settings.upstream_depsdev_url,
        },
        Ecosystem.NUGET: {
            "base_url": settings.upstream_nuget_url,
            "search_url": settings.upstream_nuget_search_url,
        },
        Ecosystem.RUBYGEMS: {"base_url": settings.upstream_rubygems_url},
        Ecosystem.COMPOSER: {
            "base_url": settings.upstream_packagist_repo_url,
            "downloads_url": settings.upstream_packagist_url,
        },
        Ecosystem.PUB: {"base_url": settings.upstream_pub_url},
        Ecosystem.HEX: {"base_url": settings.upstream_hex_url},
        Ecosystem.SWIFT: {
            "base_url": settings.upstream_swift_url,
            "github_api_url": settings.upstream_github_api_url,
            **({"github_token": settings.github_token} if settings.github_token else {}),
        },
        Ecosystem.COCOAPODS: {"base_url": settings.upstream_cocoapods_url},
        Ecosystem.CPAN: {"base_url": settings.upstream_cpan_url},
        Ecosystem.HACKAGE: {"base_url": settings.upstream_hackage_url},
        Ecosystem.CRAN: {
            "base_url": settings.upstream_cran_ppm_url,
            "cran_url": settings.upstream_cran_url,
            "downloads_url": settings.upstream_cranlogs_url,
        },
        Ecosystem.CONDA: {"base_url": settings.upstream_conda_url},
        Ecosystem.HOMEBREW: {"base_url": settings.upstream_homebrew_url},
        Ecosystem.JULIA: {
            "base_url": settings.upstream_julia_url,
            "juliahub_url": settings.upstream_juliahub_url,
        },
        Ecosystem.JSR: {
            "base_url": settings.upstream_jsr_url,
            "api_url": settings.upstream_jsr_api_url,
        },
    }


def configured_upstreams(settings: Settings) -> tuple[Upstream, ...]:
    """Every `upstream_<name>_url` setting that holds a URL, as `Upstream(name, base_url)`."""
    found: list[Upstream] = []
    for field_name in type(settings).model_fields:
        if not (field_name.startswith("upstream_") and field_name.endswith("_url")):
            continue
        value = getattr(settings, field_name)
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            found.append(Upstream(field_name.removeprefix("upstream_").removesuffix("_url"), value))
    return tuple(found)


def build_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The one shared upstream client: explicit timeouts, a User-Agent, connection pooling, a
    circuit breaker per configured upstream and a concurrency cap per host
    (`upstream_guard.GuardedTransport`)."""
    timeout = httpx.Timeout(
        settings.upstream_timeout_s, connect=min(5.0, settings.upstream_timeout_s)
    )
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
    guarded = GuardedTransport(
        transport or httpx.AsyncHTTPTransport(limits=limits),
        BreakerPolicy(
            failures=settings.upstream_breaker_failures,
            backoff_s=settings.upstream_breaker_backoff_s,
            max_backoff_s=settings.upstream_breaker_max_backoff_s,
            max_concurrency=settings.upstream_max_concurrency,
        ),
        upstreams=configured_upstreams(settings),
    )
    return httpx.AsyncClient(
        timeout=timeout,
        headers={"User-Agent": USER_AGENT},
        limits=limits,
        follow_redirects=True,
        transport=guarded,
    )


def build_adapters(
    settings: Settings, client: httpx.AsyncClient
) -> dict[Ecosystem, RegistryAdapter]:
    urls = upstream_urls(settings)
    return {eco: factory(client, **urls.get(eco, {})) for eco, factory in ADAPTERS.items()}
