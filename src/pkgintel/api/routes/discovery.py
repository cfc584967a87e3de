"""
Discovery documents for agents: `/.well-known/mcp.json` (MCP manifest, tool list read from the live MCP
server), `/.well-known/ai-plugin.json` (agent manifest v1 pointing at `/openapi.json`) and `/llms.txt`
(what the service is and which endpoints to prefer, generated from the app's route table).

Each lists only what this instance serves: the admin API (`/api/admin/*`) only while it is open.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.http import cached_bytes, cached_json
from pkgintel.api.routes import admin
from pkgintel.application import discovery
from pkgintel.application.accounts import MANIFEST_AUTH, manifest_limits

router = APIRouter(tags=["discovery"])

DISCOVERY_CACHE = "public, max-age=3600"
PREFERRED: tuple[tuple[str, str], ...] = (
    (
        "/api/exists/{ecosystem}/{package}",
        "cheapest first step: does this name exist at all (database only, about a millisecond); "
        "catches hallucinated and typosquatted names",
    ),
    (
        "/api/check_bulk",
        "many packages in one call (up to 100, database only); fall back to /api/check only for "
        "the ones marked unknown",
    ),
    (
        "/api/health/{ecosystem}/{package}",
        "verdict and 0-100 score without the full report (about 300 tokens)",
    ),
    ("/api/ai/brief/{ecosystem}/{package}", "the verdict and top issues as ~300 tokens of text"),
    ("/api/check/{ecosystem}/{package}", "the full report when you need every signal"),
    ("/api/latest/{ecosystem}/{package}", "the real latest version: never guess a version number"),
    ("/api/pin_safe/{ecosystem}/{package}", "the highest version without known advisories"),
    ("/api/scan", "audit a lockfile after it changes (database only)"),
)
"""Endpoints an agent should prefer, cheapest first, and why; only those present in the app are listed."""


def _mcp(request: Request) -> discovery.McpDoor:
    endpoint: discovery.McpDoor = request.app.state.mcp
    return endpoint


def _served(request: Request, path: str) -> bool:
    """Whether this instance answers `path` at all: the admin API only while it is open."""
    prefix = admin.router.prefix
    if path == prefix or path.startswith(prefix + "/"):
        return admin.admin_open(request)
    return True


def _routes(request: Request) -> list[tuple[str, str, str]]:
    """`(path, METHODS, summary)` of every documented route this instance serves, from the app's
    OpenAPI document (which FastAPI derives from the route table and caches)."""
    paths: dict[str, dict[str, Any]] = request.app.openapi()["paths"]
    out = []
    for path, ops in sorted(paths.items()):
        if not _served(request, path):
            continue
        for method, op in ops.items():
            out.append(
                (path, method.upper(), str(op.get("summary") or op.get("operationId") or ""))
            )
    return out


@router.get("/.well-known/mcp.json", summary="MCP discovery manifest")
async def mcp_manifest(request: Request) -> Response:
    """Name, version, transport and URL of the MCP server, install snippets, its live tool list, auth, limits and links."""
    body = discovery.mcp_manifest(
        await _mcp(request).endpoint(),
        auth=MANIFEST_AUTH,
        rate_limits=manifest_limits(request.app.state.runtime.accounts),
    )
    return cached_json(request, body, cache_control=DISCOVERY_CACHE)


@router.get("/.well-known/ai-plugin.json", summary="Agent manifest")
async def ai_plugin(request: Request) -> Response:
    """The agent manifest (v1 shape) pointing at `/openapi.json`."""
    base = _mcp(request).public_url
    body = {
        "schema_version": "v1",
        "name_for_human": "pkgintel",
        "name_for_model": "pkgintel",
        "description_for_human": "Is this package safe, maintained and current? Ask before you install.",
        "description_for_model": (
            "Package intelligence for 19 ecosystems. Before installing or upgrading a package, call "
            "/api/exists (does the name exist), /api/check_bulk (many names, database only) or "
            "/api/health (verdict and score); /api/check gives the full report, /api/pin_safe the "
            "highest version without known advisories, /api/scan audits a lockfile. 'unavailable' "
            "means not checked, never safe."
        ),
        "auth": {"type": "none"},
        "api": {"type": "openapi", "url": f"{base}/openapi.json"},
        "mcp": {"url": _mcp(request).url, "manifest": f"{base}/.well-known/mcp.json"},
    }
    return cached_json(request, body, cache_control=DISCOVERY_CACHE)


@router.get(
    "/llms.txt",
    summary="What this service is, for language models",
    response_class=Response,
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}},
)
async def llms_txt(request: Request) -> Response:
    """Markdown (llms.txt convention) generated from the route table: preferred endpoints, then every endpoint."""
    base = _mcp(request).public_url
    routes = _routes(request)
    present = {path for path, _, _ in routes}
    endpoint = await _mcp(request).endpoint()
    tools = endpoint.tools
    lines = [
        "# pkgintel",
        "",
        "> Package intelligence for AI coding agents: before installing a package, ask whether it "
        "exists, is safe, is maintained and which version to use. Every answer names its sources "
        "and their age; 'unavailable' means not checked, never 'safe'.",
        "",
        f"MCP (streamable HTTP, stateless): {endpoint.url} — {len(tools)} tools: "
        + ", ".join(t.name for t in tools)
        + f". Manifest: {base}/.well-known/mcp.json. OpenAPI: {base}/openapi.json.",
        "",
        "## Prefer these endpoints (cheapest first)",
        "",
    ]
    lines += [f"- [{path}]({base}{path}): {why}" for path, why in PREFERRED if path in present]
    lines += ["", "## All endpoints", ""]
    lines += [f"- {method} [{path}]({base}{path}): {summary}" for path, method, summary in routes]
    text = "\n".join(lines) + "\n"
    return cached_bytes(
        request,
        text.encode(),
        media_type="text/plain; charset=utf-8",
        cache_control=DISCOVERY_CACHE,
    )
