"""`prefers_html`: browsers get pages, agents and scripts keep JSON."""

from __future__ import annotations

import pytest

from pkgintel.domain.negotiation import prefers_html


@pytest.mark.parametrize(
    "accept",
    [
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",  # Chromium, Firefox
        "text/html",
        "application/xhtml+xml",
        "text/html;q=0.9, application/json;q=0.9",
    ],
)
def test_browsers_prefer_html(accept: str) -> None:
    assert prefers_html(accept)


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "*/*",
        "application/json",
        "application/json, text/html;q=0.5",
        "text/html;q=0",
        "text/html;q=abc",
        "text/*",
        ",,;",
    ],
)
def test_everything_else_keeps_json(accept: str | None) -> None:
    assert not prefers_html(accept)
