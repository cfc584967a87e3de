"""
Rendering a page: the Jinja2 environment (autoescaped), the filters the templates share, and the
response every page leaves by (security headers, CSRF cookie, private caching).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape

from pkgintel.domain.packages import Ecosystem
from pkgintel.web.answers import REGISTRIES, Problem
from pkgintel.web.assets import asset_url
from pkgintel.web.security import csrf_token, secure, set_csrf_cookie

TEMPLATES = Path(__file__).parent / "templates"
PAGE_CACHE = "private, no-cache"


def _age(seconds: object) -> str:
    """`age_s` in words: "just now", "5 min", "3 h", "2 d"; "—" when unknown."""
    if not isinstance(seconds, int | float):
        return "—"
    s = int(seconds)
    if s < 60:
        return "just now"
    if s < 3600:
        return f"{s // 60} min ago"
    if s < 86400:
        return f"{s // 3600} h ago"
    return f"{s // 86400} d ago"


def _day(value: object) -> str:
    """The date part of an ISO timestamp ("2026-05-14"), "—" when absent."""
    return value[:10] if isinstance(value, str) and len(value) >= 10 else "—"


def _number(value: object) -> str:
    """An int with thousands separators; a string (a reason, "unavailable") as it is; else "—"."""
    if isinstance(value, int):
        return f"{value:,}"
    return value if isinstance(value, str) else "—"


def _words(value: object) -> str:
    """A wire token in words: `use_with_caution` → "use with caution"."""
    return str(value).replace("_", " ") if value is not None else "—"


def _web_url(value: object) -> str | None:
    """`value` when it is an http(s) URL (safe to link), else None: a reference in upstream data
    is never linked as `javascript:` or `data:`."""
    if isinstance(value, str) and value.lower().startswith(("https://", "http://")):
        return value
    return None


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(age=_age, day=_day, number=_number, words=_words, web_url=_web_url)
    env.globals.update(
        asset_url=asset_url,
        ecosystems=[(e.value, REGISTRIES[e][0]) for e in Ecosystem],
    )
    return env


ENV = _environment()


def render(
    request: Request,
    template: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    """The page `template` rendered with `context`, as every web page answers (module docstring)."""
    token, new = csrf_token(request)
    html = ENV.get_template(template).render(
        **context,
        csrf_token=token,
        path=request.url.path,
        year=datetime.now(UTC).year,
    )
    response = HTMLResponse(html, status_code=status, headers={"Cache-Control": PAGE_CACHE})
    if headers:
        response.headers.update(headers)
    if new:
        set_csrf_cookie(request, response, token)
    return secure(response)


def error_page(request: Request, problem: Problem, **context: Any) -> Response:
    """The page for a problem (unknown package, bad input, upstream down), with its status."""
    headers = problem.headers if problem.headers and "Retry-After" in problem.headers else None
    return render(
        request,
        "error.html",
        {"problem": problem, "title": problem.title, **context},
        status=problem.status,
        headers={"Retry-After": headers["Retry-After"]} if headers else None,
    )


def problem_json(status: int, title: str, detail: str, kind: str) -> Response:
    """A problem+json answer from a web route (a refused form post)."""
    body = Problem(status, title, detail, kind).body()
    return secure(
        Response(
            orjson.dumps(body),
            status_code=status,
            media_type="application/problem+json",
            headers={"Cache-Control": "no-store"},
        )
    )
