"""What the page modules share: the runtime and memo of a request, ecosystem parsing, and answer
parts that fail alone (one upstream down leaves its section "unavailable" with the reason, the page
stands)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, cast

from fastapi import Request

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.web.answers import Problem, problem_for
from pkgintel.web.memo import PageMemo

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


def memo_of(request: Request) -> PageMemo:
    return cast(PageMemo, request.app.state.web_memo)


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
    """One section's answer (an `Answer`, or a dict body), or why it is unavailable."""

    answer: Any = None
    unavailable: str | None = None

    @property
    def body(self) -> dict[str, Any] | None:
        """The answer as the doors send it; `Answer.wire()` ages each source as of now."""
        if self.answer is None or isinstance(self.answer, dict):
            return self.answer
        return cast(dict[str, Any], self.answer.wire())

    def rendered(self) -> Part:
        """This part with its body computed once (templates read `body` many times)."""
        return Part(self.body, self.unavailable)


async def part(answer: Awaitable[Any]) -> Part:
    """Await an answer as one section of a page; a domain error becomes the section's unavailable
    reason instead of failing the page."""
    try:
        return Part(await answer)
    except PkgIntelError as exc:
        problem = problem_for(exc)
        return Part(None, f"{problem.title}: {problem.detail}")
