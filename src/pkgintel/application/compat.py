"""The compatibility answer: do these exact versions work together (shared by every door)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pkgintel.application.answer import Answer
from pkgintel.application.schemas.compat import compat_wire
from pkgintel.domain.errors import EcosystemNotSupported, InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.compatibility import CHECKED, CompatService

COMPAT_CACHE = "public, max-age=21600, stale-while-revalidate=86400"


def compat_service(runtime: Runtime) -> CompatService:
    if runtime.compat is None:
        raise EcosystemNotSupported("compat")
    return runtime.compat


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def with_runtimes(
    packages: Mapping[str, str], *, python: str | None = None, node: str | None = None
) -> dict[str, str]:
    """`packages` plus the `python` / `node` runtime entries when given (they win over entries)."""
    merged = dict(packages)
    if python:
        merged["python"] = python
    if node:
        merged["node"] = node
    return merged


async def compat_answer(
    runtime: Runtime, packages: Mapping[str, str], ecosystem: Ecosystem | None = None
) -> Answer:
    """
    The `/api/compat` answer (GET and POST; shared with the MCP tool `check_compatibility`) for
    `packages` ({name: exact version}; `node` / `python` entries are runtimes). Raises
    `InvalidInput` (empty, oversized or undetectable stack, an ecosystem without compatibility
    rules) and `EcosystemNotSupported` (no compatibility service in this runtime).
    """
    started = time.perf_counter()
    if ecosystem is not None and ecosystem not in CHECKED:
        # Compatibility rules exist for some ecosystems only: asking about another is a question
        # this service cannot answer, said as a 422 naming the supported ones (not a 501).
        raise InvalidInput(
            "ecosystem",
            f"compatibility is checked for {', '.join(e.value for e in CHECKED)} only, "
            f"not {ecosystem.value}",
        )
    report = await compat_service(runtime).check(packages, ecosystem=ecosystem)
    body: dict[str, Any] = compat_wire(report, public_url=runtime.public_url)
    return Answer(body, COMPAT_CACHE, {"_response_ms": _ms(started)})
