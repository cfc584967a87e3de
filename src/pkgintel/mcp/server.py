"""
The MCP server (official SDK, `mcp.server.MCPServer`): publishes `tools.TOOLS` with their input and
output schemas and annotations, and runs each call through the same answer functions as the JSON API.

Per call: the runtime is looked up (`runtime_of`, so the server can be built before the app's lifespan
has made the runtime), the call is counted as `mcp:<tool>` (`record_call`), the tool runs; its dict
becomes the structured content plus a compact text rendering. A domain error becomes a tool error
(`isError`) whose text is exactly the problem response's `detail` and whose structured content is the
problem body (with `did_you_mean`, `available_versions`, ...).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError

from pkgintel import __version__
from pkgintel.application.audit import SbomError
from pkgintel.application.problems import arguments_problem, problem_for
from pkgintel.domain.errors import InvalidInput, PackageNotFound, PkgIntelError
from pkgintel.domain.operations.usage import CallOutcome
from pkgintel.domain.purl import parse_purl
from pkgintel.mcp.args import PURL_PARAM, named_by_purl, resolve_purl_arguments
from pkgintel.mcp.tools import TOOLS, Tool, ToolAnswer
from pkgintel.runtime.container import Runtime
from pkgintel.storage.outage import database

log = logging.getLogger(__name__)

SERVER_NAME = "pkgintel"

INSTRUCTIONS = """\
pkgintel answers, before you install anything: does this package exist, is it safe, is it maintained,
which version should I use? Every answer names its sources and their age; "unavailable" means not
checked, never "safe". Call a tool at these moments:
- Before adding or installing a package: package_exists for a name you are not sure of (names that do
  not exist are a common hallucination and a typosquatting target), then check_package (full report and
  verdict) or get_health_score (verdict and score only). Several packages at once: check_bulk (up to
  100, database only), then check_package for the ones it marks unknown or suspicious.
- Before writing a version into a manifest or upgrading: get_latest_version (never guess a version),
  pin_safe (highest version without known advisories at a severity), install_command (exact commands).
- When a package looks suspicious or a security alert names it: check_malicious, get_vulnerabilities;
  check_typosquat when the name may imitate a more popular one (or was suggested by a model).
- When a package is deprecated, abandoned or unhealthy (check_package says find_alternative or
  do_not_use): find_alternatives (scored replacements with sources), then get_migration_path from it to
  the one you pick (steps, before/after code when curated).
- Before a major version bump: get_breaking_changes with from_version and to_version.
- When one version misbehaves (crash, regression): get_known_bugs with that version, before debugging
  your own code.
- When choosing between candidate libraries: compare_packages (2 to 10 names, with a verdict).
  get_trending shows what other agents asked about this week.
- After a lockfile change, before a commit or in review: scan_project with the lockfile content.
- Before writing several versions into a manifest or bumping one package of a stack (react with
  react-dom, next, ...): check_compatibility with the exact versions (and node/python when known).
- To put a package summary into your own context: get_package_prompt (about 500 tokens of text).
- Before adopting an unfamiliar package, or when a release looks suspicious (new publisher, sudden
  major release): get_trust_signals (maintainers and ownership changes, OpenSSF Scorecard, quality,
  and whether the release lost the provenance its predecessors had).
- When an answer here looks wrong (a verdict, a version, a flag) or a malicious package is not
  flagged: contact, with the evidence, after telling the user.
- On an install, import or build error: resolve_error with the error or the whole log (known fixes with
  sources) before guessing a fix; then package_exists (is the name right? it suggests near names; the
  import name often differs from the package name) and get_latest_version or install_command (does the
  version you asked for exist?).
A tool error's text says what went wrong (unknown package with suggestions, unknown version, registry
down); do not retry an unknown package with the same name.
"""


def record_call(
    runtime: Runtime,
    source: str,
    arguments: dict[str, Any] | None = None,
    ctx: Context[Any, Any] | None = None,
    outcome: CallOutcome | None = None,
) -> None:
    """
    The one place MCP calls are recorded, tagged `source` (`mcp:<tool>`): the per-process counters
    (`/api/status` → `stats.requests`) and the usage log (trending, agents-by-range) with the tool's
    ecosystem and package arguments, the caller's User-Agent and keyed address hash when the call came
    over HTTP (over stdio: `stdio`). Never raises.
    """
    runtime.status.stats.count(source)
    knowledge = getattr(runtime, "knowledge", None)
    if knowledge is None:
        return
    args = arguments or {}
    eco = args.get("ecosystem")
    package = args.get("package")
    purl = args.get(PURL_PARAM)
    if package is None and isinstance(purl, str):
        with contextlib.suppress(PkgIntelError):  # an unusable purl is the tool's error to tell
            ref = parse_purl(purl)
            eco, package = ref.ecosystem, ref.name
    user_agent, client = caller_of(ctx)
    knowledge.usage.record(
        source,
        ecosystem=getattr(eco, "value", eco) if eco is not None else None,
        package=package if isinstance(package, str) else None,
        user_agent=user_agent,
        client=client,
        outcome=outcome,
    )


def tool_outcome(
    result: dict[str, Any] | ToolAnswer | PkgIntelError | int, started: float
) -> CallOutcome:
    """The usage log's outcome of one tool call: the status of the HTTP answer it mirrors (a
    domain error's problem status, `int` for an argument error), `found` False for an unknown
    package or an `exists: false` answer, the answer's `_cache`, the latency since `started`."""
    latency = round((time.perf_counter() - started) * 1000)
    if isinstance(result, int):
        return CallOutcome(status=result, latency_ms=latency)
    if isinstance(result, PkgIntelError):
        found = False if isinstance(result, PackageNotFound) else None
        return CallOutcome(status=problem_for(result).status, found=found, latency_ms=latency)
    body = result.structured if isinstance(result, ToolAnswer) else result
    exists, cache = body.get("exists"), body.get("_cache")
    return CallOutcome(
        status=200,
        found=exists if isinstance(exists, bool) else None,
        latency_ms=latency,
        cache=cache if isinstance(cache, str) else None,
    )


def caller_of(ctx: Context[Any, Any] | None) -> tuple[str | None, str]:
    """
    (User-Agent, client) of an MCP call: over HTTP the keyed hash of the caller's address (the same
    `ClientIdentity` as the JSON API), `http` when the app has none; `stdio` without a request.
    """
    user_agent: str | None = None
    client = "stdio"
    with contextlib.suppress(Exception):  # no request context (stdio, tests calling tools directly)
        request = ctx.request_context.request if ctx is not None else None
        if request is not None:
            user_agent = request.headers.get("user-agent")
            identity = getattr(request.app.state, "identity", None)
            client = identity.key(request) if identity is not None else "http"
    return user_agent, client


def _error(exc: PkgIntelError) -> CallToolResult:
    p = problem_for(exc)
    body = p.body()
    if isinstance(exc, InvalidInput):
        # The same shape as arguments the input schema refused (`invalid_arguments`): one list
        # of `{field, loc, msg, type}`, whichever check found the problem.
        body["errors"] = [
            {"field": exc.field, "loc": [exc.field], "msg": exc.message, "type": "value_error"}
        ]
    return CallToolResult(
        content=[TextContent(type="text", text=p.detail)],
        structured_content=body,
        is_error=True,
    )


CONTEXT_PARAM = "mcp_context"
"""Name of the parameter the SDK fills with its request context (never part of a tool's schema)."""


CLIENT_PARAM = "client"
"""Keyword parameter of a `with_client` tool that receives the caller (never part of its schema)."""


def _invalid(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def invalid_arguments(tool: str, exc: ValidationError) -> CallToolResult:
    """Arguments that failed validation: a tool error whose text names each field and its rule and
    whose structured content is the 422 problem (`field`, `errors: [{field, loc, msg, type}]`)."""
    problem = arguments_problem(exc.errors(include_url=False))
    log.info("tool %s rejected arguments: %s", tool, [e["field"] for e in problem.extra["errors"]])
    return CallToolResult(
        content=[TextContent(type="text", text=f"invalid arguments: {problem.detail}")],
        structured_content=problem.body(),
        is_error=True,
    )


class PkgIntelMCPServer(MCPServer[Any]):
    """The SDK's server, with one change: arguments that fail the input schema are answered like
    the JSON API's 422 (a tool error with structured content naming each field and rule) instead
    of the SDK's raw `1 validation error for <tool>Arguments` text."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(
                exc.__cause__, ValidationError
            ):
                raise
            return invalid_arguments(name, exc.__cause__)


def bind(tool: Tool, runtime_of: Callable[[], Runtime]) -> Callable[..., Any]:
    """
    The function the SDK registers for `tool`: `tool.fn`'s signature without `rt` (so the SDK derives
    the input schema from it) and the return type `Annotated[CallToolResult, tool.output]` (so it
    publishes the output schema and checks structured content against it).
    """
    source = f"mcp:{tool.name}"
    signature = inspect.signature(tool.fn, eval_str=True)
    published = [p for p in list(signature.parameters.values())[1:] if p.name != CLIENT_PARAM]
    # A tool naming one package takes a `purl` instead of `ecosystem` + `package` (`args.py`).
    by_purl = named_by_purl(published)
    takes_version = "version" in signature.parameters

    async def call(**arguments: Any) -> CallToolResult:
        runtime = runtime_of()
        ctx = arguments.pop(CONTEXT_PARAM, None)
        asked, started = dict(arguments), time.perf_counter()
        if tool.with_client:
            arguments[CLIENT_PARAM] = caller_of(ctx)[1]
        try:
            if by_purl is not None:
                arguments = resolve_purl_arguments(
                    arguments, takes_version=takes_version, tool=tool.name
                )
            result = await tool.fn(runtime, **arguments)
        except PkgIntelError as exc:
            record_call(runtime, source, asked, ctx, tool_outcome(exc, started))
            return _error(exc)
        except ValidationError as exc:
            record_call(runtime, source, asked, ctx, tool_outcome(422, started))
            return invalid_arguments(tool.name, exc)
        except SbomError as exc:
            record_call(runtime, source, asked, ctx, tool_outcome(422, started))
            return _invalid(str(exc))
        except Exception as exc:  # a database that cannot be reached is a 503 problem, not a crash
            unavailable = database.classify(exc)
            if unavailable is None:
                raise
            record_call(runtime, source, asked, ctx, tool_outcome(unavailable, started))
            return _error(unavailable)
        record_call(runtime, source, asked, ctx, tool_outcome(result, started))
        if isinstance(result, ToolAnswer):
            structured, text = result.structured, result.text
        else:
            structured, text = result, tool.text(result)
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=structured
        )

    # The SDK injects its request context into a parameter annotated `Context` (and leaves it out
    # of the input schema): it carries the HTTP request, for recording the caller.
    params = [
        *(published if by_purl is None else by_purl),
        inspect.Parameter(CONTEXT_PARAM, inspect.Parameter.KEYWORD_ONLY, annotation=Context),
    ]
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=Annotated[CallToolResult, tool.output]
    )
    call.__name__ = tool.name
    call.__qualname__ = tool.name
    call.__doc__ = tool.fn.__doc__
    call.__annotations__ = {p.name: p.annotation for p in params} | {
        "return": Annotated[CallToolResult, tool.output]
    }
    return call


def build_server(
    runtime_of: Callable[[], Runtime], *, public_url: str, tools: tuple[Tool, ...] = TOOLS
) -> MCPServer[Any]:
    """An `MCPServer` publishing `tools`; transports are attached by `http.py` and the CLI."""
    server: MCPServer[Any] = PkgIntelMCPServer(
        SERVER_NAME,
        title="pkgintel — package intelligence for AI coding agents",
        description="Is this package safe, maintained and current? Ask before you install.",
        instructions=INSTRUCTIONS,
        website_url=public_url,
        version=__version__,
        log_level="WARNING",
    )
    for tool in tools:
        server.add_tool(
            bind(tool, runtime_of),
            name=tool.name,
            title=tool.title,
            description=inspect.cleandoc(tool.fn.__doc__ or ""),
            annotations=ToolAnnotations(
                title=tool.title,
                read_only_hint=tool.read_only,
                destructive_hint=tool.destructive,
                idempotent_hint=tool.idempotent,
                open_world_hint=tool.open_world,
            ),
            structured_output=True,
        )
    return server
