"""
Streamable HTTP at `/mcp`, inside the FastAPI app, in the SDK's stateless JSON mode: every POST carries
one self-contained exchange, so any worker behind a load balancer answers any request.

- `POST /mcp` (and the SDK's other methods) go to the SDK's session manager. The manager must be
  running: the app's lifespan enters `McpHttp.running()`; an app driven without a lifespan (tests with
  an injected runtime, embedding) starts it on the first request instead (`_ensure_running`).
- `GET /mcp` from something that does not ask for an event stream (a browser, curl) answers a short
  JSON description (name, version, tool count, config snippet); an event-stream GET goes to the SDK,
  which refuses it in stateless mode as the protocol expects.
- DNS-rebinding protection: `Host` must be a loopback name or the host of the public/MCP URL (or one of
  `PKGINTEL_MCP_ALLOWED_HOSTS`); a browser `Origin` must be one of those too.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import orjson
from mcp.server import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from pkgintel import __version__
from pkgintel.application.discovery import McpEndpoint, ToolSummary, client_config
from pkgintel.mcp.server import build_server
from pkgintel.runtime.container import Runtime

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MIN_BODY_BYTES = 4 * 1024 * 1024
BODY_SLACK_BYTES = 64 * 1024
"""JSON-RPC framing and escaping around a lockfile of `max_lockfile_bytes` (escaping can grow it)."""


def security_settings(urls: list[str], extra_hosts: list[str]) -> TransportSecuritySettings:
    """Allowed `Host`/`Origin` values: loopback names and the hosts of `urls`, any port."""
    hosts: list[str] = []
    origins: list[str] = []
    for name in (*LOOPBACK_HOSTS, *extra_hosts):
        hosts += [name, f"{name}:*"]
        origins += [f"http://{name}", f"http://{name}:*", f"https://{name}", f"https://{name}:*"]
    for url in urls:
        parts = urlsplit(url)
        if parts.netloc:
            hosts.append(parts.netloc)
            origins.append(f"{parts.scheme}://{parts.netloc}")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


class McpHttp:
    """The ASGI app routed at `/mcp`; see the module docstring."""

    def __init__(
        self,
        server: MCPServer[Any],
        *,
        url: str,
        public_url: str,
        security: TransportSecuritySettings,
        max_body_bytes: int,
    ) -> None:
        self.server = server
        self.url = url
        self.public_url = public_url
        # The SDK builds the session manager with its Starlette app; we route to the manager
        # ourselves (a mounted sub-app's lifespan would never run).
        server.streamable_http_app(
            streamable_http_path="/mcp",
            stateless_http=True,
            json_response=True,
            transport_security=security,
            max_request_body_size=max(MIN_BODY_BYTES, max_body_bytes + BODY_SLACK_BYTES),
        )
        self._manager: StreamableHTTPSessionManager = server.session_manager
        self._running = False
        self._holder: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the session manager for the app's lifetime (enter from the app's lifespan)."""
        async with self._manager.run():
            self._running = True
            try:
                yield
            finally:
                self._running = False

    async def _ensure_running(self) -> None:
        """Without a lifespan: start the manager in a task that lives as long as the event loop."""
        async with self._lock:
            if self._running:
                return
            started = asyncio.Event()

            async def hold() -> None:
                async with self.running():
                    started.set()
                    await asyncio.Event().wait()

            self._holder = asyncio.create_task(hold(), name="pkgintel-mcp-session-manager")
            await started.wait()

    async def describe(self) -> dict[str, Any]:
        """The short description `GET /mcp` answers."""
        tools = await self.server.list_tools()
        return {
            "name": self.server.name,
            "version": __version__,
            "protocol": "Model Context Protocol",
            "transport": "streamable-http",
            "url": self.url,
            "tool_count": len(tools),
            "tools": [t.name for t in tools],
            "usage": "POST JSON-RPC messages here (stateless; no session needed).",
            "config": client_config(self.url),
            "discovery": "/.well-known/mcp.json",
        }

    async def endpoint(self) -> McpEndpoint:
        """This server as the discovery documents describe it (`application.discovery.McpDoor`)."""
        tools = await self.server.list_tools()
        return McpEndpoint(
            name=self.server.name,
            title=self.server.title,
            description=self.server.description,
            url=self.url,
            public_url=self.public_url,
            tools=tuple(
                ToolSummary(
                    t.name,
                    t.title,
                    t.description,
                    t.annotations.model_dump(by_alias=True, exclude_none=True)
                    if t.annotations
                    else None,
                )
                for t in tools
            ),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and _wants_description(scope)
        ):
            await _send_json(send, await self.describe(), head=scope["method"] == "HEAD")
            return
        if not self._running:
            await self._ensure_running()
        await self._manager.handle_request(scope, receive, send)


def _wants_description(scope: Scope) -> bool:
    headers = dict(scope.get("headers") or [])
    if b"mcp-session-id" in headers:
        return False
    return b"text/event-stream" not in headers.get(b"accept", b"")


async def _send_json(
    send: Callable[[Any], Awaitable[None]], body: dict[str, Any], *, head: bool
) -> None:
    raw = orjson.dumps(body)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(raw)).encode()),
                (b"cache-control", b"public, max-age=300"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if head else raw})


def mount_mcp(
    app: Starlette,
    runtime_of: Callable[[], Runtime],
    *,
    public_url: str,
    mcp_url: str | None,
    allowed_hosts: list[str],
    max_body_bytes: int,
) -> McpHttp:
    """
    Build the MCP server for `app` and route `/mcp` to it (kept out of the OpenAPI document: it is
    not a REST endpoint). `mcp_url` is the base URL clients use when it differs from `public_url`.
    The caller enters `McpHttp.running()` from the app's lifespan.
    """
    public = public_url.rstrip("/")
    base = (mcp_url or public_url).rstrip("/")
    server = build_server(runtime_of, public_url=public)
    endpoint = McpHttp(
        server,
        url=f"{base}/mcp",
        public_url=public,
        security=security_settings([public, base], allowed_hosts),
        max_body_bytes=max_body_bytes,
    )
    app.state.mcp = endpoint
    app.router.routes.append(
        Route(
            "/mcp",
            endpoint=endpoint,
            methods=["GET", "HEAD", "POST", "DELETE"],
            include_in_schema=False,
        )
    )
    return endpoint
