"""
Every endpoint of the specification's endpoint tables has a route of its own (method and path,
parameters normalised), read from the specification next to the shared data
(`../shared/seed/*.txt`; skipped when absent).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.routing import Mount

from pkgintel.app import create_app
from pkgintel.config import Settings
from tests.shared import SHARED_DATA

SPEC_DIR = SHARED_DATA.parent / "seed"
_ROW = re.compile(r"^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(/[^\s|]*)\s*\|", re.MULTILINE)
_ALIAS = re.compile(r"an alternative path `(/[^`]+)` is also listed")
"""The badge table's second score path, listed in its row's text (the 101st endpoint)."""
AUTH_PREFIX = "/api/auth/"
"""Built on branch i30-auth (issue 30, items 1-3); merged by the lead."""


def spec_endpoints() -> list[tuple[str, str]]:
    files = sorted(SPEC_DIR.glob("*.txt")) if SPEC_DIR.is_dir() else []
    if not files:
        pytest.skip(f"specification not found in {SPEC_DIR}")
    text = files[0].read_text()
    rows = {(m.group(1), m.group(2)) for m in _ROW.finditer(text)}
    return sorted(rows | {("GET", m.group(1)) for m in _ALIAS.finditer(text)})


def _shape(path: str) -> str:
    """A path with every `{parameter}` (and `{parameter:path}`) made the same placeholder."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def _flat(routes: list[Any]) -> list[Any]:
    """Routes with their paths and methods (FastAPI keeps an included router's routes behind one
    entry, `effective_route_contexts`)."""
    out: list[Any] = []
    for route in routes:
        contexts = getattr(route, "effective_route_contexts", None)
        out.extend(contexts() if callable(contexts) else [route])
    return out


def served_routes() -> set[tuple[str, str]]:
    app = create_app(Settings(_env_file=None, database_url="sqlite+aiosqlite:///:memory:"))
    out: set[tuple[str, str]] = set()
    for route in _flat(list(app.routes)):
        path = getattr(route, "path", None)
        if not isinstance(path, str):
            continue
        methods = getattr(route, "methods", None) or ({"GET"} if isinstance(route, Mount) else ())
        for method in methods:
            out.add((method, _shape(path)))
    return out


def _missing() -> list[tuple[str, str]]:
    served = served_routes()
    return [(m, p) for m, p in spec_endpoints() if (m, _shape(p)) not in served]


def test_the_specification_lists_101_endpoints() -> None:
    assert len(spec_endpoints()) == 101


def test_every_endpoint_outside_accounts_has_a_route_of_its_own() -> None:
    missing = [(m, p) for m, p in _missing() if not p.startswith(AUTH_PREFIX)]
    assert missing == []


def test_every_account_endpoint_has_a_route_of_its_own() -> None:
    missing = [(m, p) for m, p in _missing() if p.startswith(AUTH_PREFIX)]
    assert missing == [], f"missing account endpoints: {missing}"
