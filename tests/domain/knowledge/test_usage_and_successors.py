"""User-agent classes of the usage log; successor names in deprecation messages."""

from __future__ import annotations

import pytest

from pkgintel.domain.knowledge.successors import successors_from_message
from pkgintel.domain.operations.usage import classify_user_agent
from pkgintel.domain.packages import Ecosystem


@pytest.mark.parametrize(
    ("ua", "cls"),
    [
        ("claude-code/1.0.3", "ai-agent"),
        ("Cursor/0.42 (Electron)", "ai-agent"),
        ("mcp-client/1.2", "ai-agent"),
        ("GitHub-Actions/2.0", "ci"),
        ("Renovate Bot", "ci"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "crawler"),
        ("UptimeRobot/2.0", "crawler"),
        ("pkgintel-healthcheck/1", "crawler"),
        ("pkgintel/0.7.0 (+https://github.com/pkgintel/pkgintel)", "crawler"),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "browser"),
        ("python-httpx/0.28", "other"),
        ("", "other"),
        (None, "other"),
    ],
)
def test_user_agent_classes(ua: str | None, cls: str) -> None:
    assert classify_user_agent(ua) == cls


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("request has been deprecated, see https://github.com/request/request/issues/3142", ()),
        (
            "Node Sass is no longer supported. Please use `sass` or `sass-embedded` instead.",
            ("sass",),
        ),
        ("This package has been renamed to @acme/widget", ("@acme/widget",)),
        ("deprecated in favor of date-fns.", ("date-fns",)),
        ("Use https://example.com/new instead", ()),
        ("please use it instead", ()),
        (None, ()),
    ],
)
def test_successors_from_message(message: str | None, expected: tuple[str, ...]) -> None:
    assert successors_from_message(Ecosystem.NPM, message) == expected
