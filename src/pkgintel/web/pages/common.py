"""What the page modules share: the runtime of a request, ecosystem parsing, and answer parts that
fail alone (one upstream down leaves its section "unavailable" with the reason, the page stands)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, cast

from fastapi import Request

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.web.answers import Problem, problem_for

VERDICT_TONES = {
    "safe_to_use": "good",
    "legacy_but_working": "info",
    "update_required": "warn",
    "use_with_caution": "warn",
    "insufficient_data": "info",
    "find_alternative": "bad",
    "do_not_use": "bad",
}
"""Colour of each recommendation action; the action is always written out in words too."""


def runtime_of(request: Request) -> Runtime:
    return cast(Runtime, request.app.state.runtime)


def ecosystem_of(value: str) -> Ecosystem | None:
    """The ecosystem named `value` (case-insensitive), None for one this service does not know."""
    try:
        return Ecosystem(value.strip().lower())
    except ValueError:
        return None


def unknown_ecosystem(value: str) -> Problem:
    return Problem(
        404,
        "Unknown ecosystem",
        f"'{value[:64]}' is not one of the {len(Ecosystem)} ecosystems this service covers.",
        "unknown-ecosystem",
    )


@dataclass(frozen=True, slots=True)
class Part:
    """One section's answer body, or why it is unavailable."""

    body: dict[str, Any] | None
    unavailable: str | None = None


async def part(answer: Awaitable[Any]) -> Part:
    """Await an answer (an `Answer`, or a dict body) as one section of a page; a domain error
    becomes the section's unavailable reason instead of failing the page."""
    try:
        result = await answer
    except PkgIntelError as exc:
        problem = problem_for(exc)
        return Part(None, f"{problem.title}: {problem.detail}")
    if isinstance(result, dict):
        return Part(result)
    return Part(cast(dict[str, Any], result.wire()))
