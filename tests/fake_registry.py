"""
A replay registry: serves recorded registry bodies by URL path, with an adjustable artificial latency.

One server stands in for several upstreams, each under its own prefix:

| prefix | stands for | setting |
| --- | --- | --- |
| `/npm` | registry.npmjs.org | `PKGINTEL_UPSTREAM_NPM_URL=http://HOST:PORT/npm` |
| `/npm-downloads` | api.npmjs.org | `PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL=.../npm-downloads` |
| `/pypi` | pypi.org | `PKGINTEL_UPSTREAM_PYPI_URL=.../pypi` |
| `/pypistats` | pypistats.org | `PKGINTEL_UPSTREAM_PYPISTATS_URL=.../pypistats` |
| `/pypi-files` | files.pythonhosted.org | `PKGINTEL_UPSTREAM_PYPI_FILES_URL=.../pypi-files` (core metadata files added by tests) |
| `/rubygems` | rubygems.org | `PKGINTEL_UPSTREAM_RUBYGEMS_URL=.../rubygems` |
| `/packagist-repo`, `/packagist` | repo.packagist.org, packagist.org | `PKGINTEL_UPSTREAM_PACKAGIST_REPO_URL`, `PKGINTEL_UPSTREAM_PACKAGIST_URL` |
| `/pub` | pub.dev | `PKGINTEL_UPSTREAM_PUB_URL=.../pub` |
| `/hex` | hex.pm | `PKGINTEL_UPSTREAM_HEX_URL=.../hex` |
| `/github` | api.github.com | `PKGINTEL_UPSTREAM_GITHUB_API_URL=.../github` (bodies added by tests) |
| `/scorecard` | api.scorecard.dev | `PKGINTEL_UPSTREAM_SCORECARD_URL=.../scorecard` |
| `/osv-api` | api.osv.dev | `PKGINTEL_UPSTREAM_OSV_API_URL=.../osv-api` (`POST /v1/querybatch`, `GET /v1/vulns/{id}` over `osv_records`) |
| `/crates` | crates.io | `PKGINTEL_UPSTREAM_CRATES_URL=.../crates` |
| `/crates-index` | index.crates.io | `PKGINTEL_UPSTREAM_CRATES_INDEX_URL=.../crates-index` |
| `/goproxy` | proxy.golang.org | `PKGINTEL_UPSTREAM_GOPROXY_URL=.../goproxy` |
| `/pkgsite` | pkg.go.dev | `PKGINTEL_UPSTREAM_PKGSITE_URL=.../pkgsite` |
| `/goindex` | index.golang.org | (name lists only) |
| `/maven` | repo.maven.apache.org, repo1.maven.org (both Maven Central) | `PKGINTEL_UPSTREAM_MAVEN_URL=.../maven/maven2` |
| `/depsdev` | api.deps.dev | `PKGINTEL_UPSTREAM_DEPSDEV_URL=.../depsdev` |
| `/nuget` | api.nuget.org | `PKGINTEL_UPSTREAM_NUGET_URL=.../nuget` |
| `/nuget-search` | azuresearch-usnc.nuget.org | `PKGINTEL_UPSTREAM_NUGET_SEARCH_URL=.../nuget-search` |
| `/rubygems` | rubygems.org | `PKGINTEL_UPSTREAM_RUBYGEMS_URL=.../rubygems` |
| `/packagist` | packagist.org | `PKGINTEL_UPSTREAM_PACKAGIST_URL=.../packagist` |
| `/packagist-repo` | repo.packagist.org | `PKGINTEL_UPSTREAM_PACKAGIST_REPO_URL=.../packagist-repo` |
| `/pub` | pub.dev | `PKGINTEL_UPSTREAM_PUB_URL=.../pub` |
| `/hex` | hex.pm | `PKGINTEL_UPSTREAM_HEX_URL=.../hex` |
| `/cocoapods` | cdn.cocoapods.org | `PKGINTEL_UPSTREAM_COCOAPODS_URL=.../cocoapods` |
| `/cpan` | fastapi.metacpan.org | `PKGINTEL_UPSTREAM_CPAN_URL=.../cpan` |
| `/hackage` | hackage.haskell.org | `PKGINTEL_UPSTREAM_HACKAGE_URL=.../hackage` |
| `/ppm` | packagemanager.posit.co | `PKGINTEL_UPSTREAM_CRAN_PPM_URL=.../ppm/__api__/repos/2` |
| `/cran` | cran.r-project.org | `PKGINTEL_UPSTREAM_CRAN_URL=.../cran` |
| `/cranlogs` | cranlogs.r-pkg.org | `PKGINTEL_UPSTREAM_CRANLOGS_URL=.../cranlogs` |
| `/anaconda` | api.anaconda.org | `PKGINTEL_UPSTREAM_CONDA_URL=.../anaconda` |
| `/homebrew` | formulae.brew.sh | `PKGINTEL_UPSTREAM_HOMEBREW_URL=.../homebrew` |
| `/raw-github` | raw.githubusercontent.com | `PKGINTEL_UPSTREAM_JULIA_URL=.../raw-github/JuliaRegistries/General/master`, `PKGINTEL_UPSTREAM_SWIFT_URL=.../raw-github/SwiftPackageIndex/PackageList/main` |
| `/juliahub` | juliahub.com | `PKGINTEL_UPSTREAM_JULIAHUB_URL=.../juliahub` |
| `/jsr`, `/jsr-api` | jsr.io, api.jsr.io | `PKGINTEL_UPSTREAM_JSR_URL`, `PKGINTEL_UPSTREAM_JSR_API_URL` |

Recordings come from the shared fixtures' `INDEX.json` files (read in place; newer captures win) and
from extra `{url: body}` mappings. A recording whose URL has a query string answers only that query;
one without answers its path with any query. Anything not recorded answers 404 like the registries
do.

Run: `python -m tests.fake_registry --port 9100 --latency-ms 30 [--shared ../shared/data]`.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

HOST_PREFIX = {
    "registry.npmjs.org": "/npm",
    "api.npmjs.org": "/npm-downloads",
    "pypi.org": "/pypi",
    "pypistats.org": "/pypistats",
    "files.pythonhosted.org": "/pypi-files",
    "api.osv.dev": "/osv-api",
    "crates.io": "/crates",
    "index.crates.io": "/crates-index",
    "proxy.golang.org": "/goproxy",
    "pkg.go.dev": "/pkgsite",
    "index.golang.org": "/goindex",
    "repo.maven.apache.org": "/maven",
    "repo1.maven.org": "/maven",
    "api.deps.dev": "/depsdev",
    "api.nuget.org": "/nuget",
    "azuresearch-usnc.nuget.org": "/nuget-search",
    "rubygems.org": "/rubygems",
    "packagist.org": "/packagist",
    "repo.packagist.org": "/packagist-repo",
    "pub.dev": "/pub",
    "hex.pm": "/hex",
    "api.github.com": "/github",
    # Swift (raw.githubusercontent.com, the Swift Package Index list: `/raw-github` below)
    "cdn.cocoapods.org": "/cocoapods",
    "fastapi.metacpan.org": "/cpan",
    # Hackage, CRAN, Conda
    "hackage.haskell.org": "/hackage",
    "packagemanager.posit.co": "/ppm",
    "cran.r-project.org": "/cran",
    "cranlogs.r-pkg.org": "/cranlogs",
    "api.anaconda.org": "/anaconda",
    # Homebrew, Julia, JSR
    "formulae.brew.sh": "/homebrew",
    "raw.githubusercontent.com": "/raw-github",
    "juliahub.com": "/juliahub",
    "jsr.io": "/jsr",
    "api.jsr.io": "/jsr-api",
    "api.scorecard.dev": "/scorecard",
}
FIXTURE_DIRS = (
    "registry-fixtures/npm",
    "registry-fixtures/pypi",
    "registry-fixtures/pypi-live",
    "registry-fixtures/cargo",
    "registry-fixtures/go",
    "registry-fixtures/maven",
    "registry-fixtures/nuget",
    "registry-fixtures/rubygems",
    "registry-fixtures/composer",
    "registry-fixtures/pub",
    "registry-fixtures/hex",
    # Swift, CocoaPods, CPAN
    "registry-fixtures/swift",
    "registry-fixtures/cocoapods",
    "registry-fixtures/cpan",
    # Hackage, CRAN, Conda
    "registry-fixtures/hackage",
    "registry-fixtures/cran",
    "registry-fixtures/conda",
    # Homebrew, Julia, JSR
    "registry-fixtures/homebrew",
    "registry-fixtures/julia",
    "registry-fixtures/jsr",
    "registry-fixtures/scorecard",
    "registry-fixtures/provenance",
)


def _key(path: str, query: str = "") -> str:
    key = unquote(path).rstrip("/").lower()
    return f"{key}?{unquote(query).lower()}" if query else key


def load_shared_recordings(shared: Path) -> dict[str, tuple[int, bytes]]:
    """`{prefixed path: (status, body)}` from the shared registry fixtures (later folders win)."""
    out: dict[str, tuple[int, bytes]] = {}
    for folder in FIXTURE_DIRS:
        index = shared / folder / "INDEX.json"
        if not index.exists():
            continue
        for item in json.loads(index.read_text()):
            if item.get("method", "GET") != "GET":
                continue
            parts = urlsplit(item["url"])
            prefix = HOST_PREFIX.get(parts.hostname or "")
            if prefix is None:
                continue
            raw = (shared / folder / item["file"]).read_bytes()
            body = gzip.decompress(raw) if item.get("gzipped") else raw
            out[_key(prefix + parts.path, parts.query)] = (int(item.get("status", 200)), body)
    return out


class ReplayRegistry:
    """The recordings plus a latency knob; `app` is the Starlette application."""

    def __init__(self, recordings: dict[str, tuple[int, bytes]], *, latency_s: float = 0.0) -> None:
        self.recordings = recordings
        self.latency_s = latency_s
        self.hits: list[str] = []
        self.fail_with: int | None = None
        self.fail_prefixes: dict[str, int] = {}
        """`{path prefix: status}`: one upstream down while the others answer (e.g. `/scorecard`)."""
        self.slow_prefixes: dict[str, float] = {}
        """`{path prefix: seconds}`: one upstream slow while the others answer at `latency_s`."""
        self.osv_fail_with: int | None = None
        """Status the `/osv-api` emulation answers with instead (the OSV API down, registries up)."""
        self.osv_records: list[dict[str, Any]] = []
        """Records the `/osv-api` emulation answers from (matched by ecosystem and name)."""
        self.app = Starlette(
            routes=[
                Route("/osv-api/v1/querybatch", self._querybatch, methods=["POST"]),
                Route("/osv-api/v1/vulns/{vuln_id}", self._vuln),
                Route("/{path:path}", self._serve),
            ]
        )

    async def _querybatch(self, request: Request) -> Response:
        self.hits.append("/osv-api/v1/querybatch")
        failure = self.osv_fail_with or self.fail_with
        if failure is not None:
            return Response(b"upstream failure", status_code=failure)
        body = json.loads(await request.body())
        results = []
        for query in body.get("queries", []):
            pkg = query.get("package", {})
            ids = [
                {"id": rec["id"], "modified": rec.get("modified")}
                for rec in self.osv_records
                if any(
                    a.get("package", {}).get("ecosystem") == pkg.get("ecosystem")
                    and a.get("package", {}).get("name") == pkg.get("name")
                    for a in rec.get("affected", [])
                )
            ]
            results.append({"vulns": ids} if ids else {})
        return Response(json.dumps({"results": results}), media_type="application/json")

    async def _vuln(self, request: Request) -> Response:
        vuln_id = request.path_params["vuln_id"]
        self.hits.append(f"/osv-api/v1/vulns/{vuln_id}")
        for rec in self.osv_records:
            if rec["id"] == vuln_id:
                return Response(json.dumps(rec), media_type="application/json")
        return Response(b'{"code":5,"message":"Bug not found."}', status_code=404)

    def add(self, url: str, body: Any, status: int = 200) -> None:
        """Record one more response (`body` as bytes or JSON-able)."""
        parts = urlsplit(url)
        prefix = HOST_PREFIX[parts.hostname or ""]
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.recordings[_key(prefix + parts.path, parts.query)] = (status, data)

    async def _serve(self, request: Request) -> Response:
        raw_path = request.scope.get("raw_path", b"").decode() or request.url.path
        self.hits.append(raw_path)
        delay = next(
            (d for prefix, d in self.slow_prefixes.items() if raw_path.startswith(prefix)),
            self.latency_s,
        )
        if delay:
            await asyncio.sleep(delay)
        if self.fail_with is not None:
            return Response(b"upstream failure", status_code=self.fail_with)
        for prefix, status in self.fail_prefixes.items():
            if raw_path.startswith(prefix):
                return Response(b"upstream failure", status_code=status)
        path, _, query = raw_path.partition("?")
        query = query or request.scope.get("query_string", b"").decode()
        found = self.recordings.get(_key(path, query)) if query else None
        if found is None:
            found = self.recordings.get(_key(path))
        if found is None:
            return Response(
                b'{"error":"Not found"}', status_code=404, media_type="application/json"
            )
        status, body = found
        return Response(body, status_code=status, media_type="application/json")


def build(
    shared: Path | None, latency_ms: float = 0.0, extra: Iterable[tuple[str, Any]] = ()
) -> ReplayRegistry:
    recordings = load_shared_recordings(shared) if shared is not None and shared.is_dir() else {}
    reg = ReplayRegistry(recordings, latency_s=latency_ms / 1000)
    for url, body in extra:
        reg.add(url, body)
    return reg


def main() -> None:  # pragma: no cover - manual and bench entry point
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data"
    )
    args = parser.parse_args()
    reg = build(args.shared, args.latency_ms)
    print(
        f"replaying {len(reg.recordings)} recordings on http://{args.host}:{args.port}", flush=True
    )
    uvicorn.run(reg.app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":  # pragma: no cover
    main()
