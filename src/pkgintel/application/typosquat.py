"""The typosquat answer: popular names a package imitates (database only; shared by every door)."""

from __future__ import annotations

import time

from pkgintel.application.answer import Answer
from pkgintel.application.schemas.typosquat import name_index_source, typosquat_wire
from pkgintel.application.schemas.wire import sources_wire
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.runtime.container import Runtime

TYPOSQUAT_CACHE = "public, max-age=3600"


async def typosquat_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/typosquat` answer (shared with the MCP tool `check_typosquat`). Raises
    `InvalidInput` for a name the ecosystem cannot have."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    found = await runtime.names.exists(ecosystem, name, suggestions=False)
    hint = await runtime.names.typosquat(ecosystem, name, found.entry, lookup=False)
    runtime.status.stats.count("typosquat")
    body = {
        "package": name,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, name),
        "normalized": found.normalized,
        "exists": found.exists,
        **typosquat_wire(hint),
        "_meta": {
            "endpoint": "/api/typosquat/{ecosystem}/{package}",
            "database_only": True,
            "sources": sources_wire([name_index_source(ecosystem.value, hint.index)]),
        },
    }
    return Answer(
        body, TYPOSQUAT_CACHE, {"_response_ms": round((time.perf_counter() - started) * 1000)}
    )
