"""
What the discovery documents say about the MCP door, without importing it: `McpEndpoint` (name,
title, description, URLs and the published tools, as the MCP door describes itself), the `McpDoor`
protocol the HTTP door reads it through (`app.state.mcp`), the client install snippets and the
`/.well-known/mcp.json` manifest built from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pkgintel import __version__

PRIVACY = (
    "No account or key is needed. Client addresses are kept only as keyed hashes (HMAC), in memory or "
    "Redis, for the 60-second bulk hint, and are never logged. MCP calls are counted per tool, not per "
    "caller. Package names you ask about are not stored with anything that identifies you."
)


@dataclass(frozen=True, slots=True)
class ToolSummary:
    """One published MCP tool as the discovery documents list it."""

    name: str
    title: str | None
    description: str | None
    annotations: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class McpEndpoint:
    """The MCP server as this instance serves it: `url` is where clients connect, `public_url` the
    base URL of the service."""

    name: str
    title: str | None
    description: str | None
    url: str
    public_url: str
    tools: tuple[ToolSummary, ...]


class McpDoor(Protocol):
    """What the HTTP door may ask of the mounted MCP door (`app.state.mcp`)."""

    @property
    def url(self) -> str: ...

    @property
    def public_url(self) -> str: ...

    async def endpoint(self) -> McpEndpoint:
        """The server's name, URLs and its live tool list."""
        ...


def client_config(url: str) -> dict[str, Any]:
    """How to add this server to the common clients (`GET /mcp`, `/.well-known/mcp.json`)."""
    return {
        "claude_code": f"claude mcp add --transport http pkgintel {url}",
        "cursor": {"mcpServers": {"pkgintel": {"url": url}}},
        "vscode": {"servers": {"pkgintel": {"type": "http", "url": url}}},
        "stdio": {"mcpServers": {"pkgintel": {"command": "pkgintel", "args": ["mcp"]}}},
    }


def mcp_manifest(
    endpoint: McpEndpoint, *, auth: Mapping[str, Any], rate_limits: Mapping[str, Any]
) -> dict[str, Any]:
    """The `/.well-known/mcp.json` body: name, version, transport and URL of the MCP server,
    install snippets, its tool list (first paragraph of each description), the `auth` and
    `rate_limits` this instance enforces (`application.accounts`), and links."""
    base = endpoint.public_url
    return {
        "schema_version": "2026-11",
        "name": endpoint.name,
        "title": endpoint.title,
        "version": __version__,
        "description": endpoint.description,
        "transport": {"type": "streamable-http", "url": endpoint.url, "stateless": True},
        "stdio": {"command": "pkgintel", "args": ["mcp"]},
        "install": client_config(endpoint.url),
        "tools": [
            {
                "name": t.name,
                "title": t.title,
                "description": (t.description or "").split("\n\n")[0],
                "annotations": t.annotations,
            }
            for t in endpoint.tools
        ],
        "tool_count": len(endpoint.tools),
        "auth": dict(auth),
        "rate_limits": dict(rate_limits),
        "privacy": PRIVACY,
        "links": {
            "openapi": f"{base}/openapi.json",
            "llms_txt": f"{base}/llms.txt",
            "docs": f"{base}/docs",
            "ai_plugin": f"{base}/.well-known/ai-plugin.json",
            "status": f"{base}/api/status",
        },
    }
