"""
The package page, `/p/{ecosystem}/{package}` (and `?version=`): verdict first, then the score with
its breakdown, the health-history chart, vulnerabilities of the shown version, warnings, trust,
licence, versions, install commands, badge, alternatives and every signal's source and age.

The report is the page's spine: an unknown package answers 404 with did-you-mean, a registry that
is down with nothing stored answers 503. Every other section is its own answer and fails alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.web.answers import (
    alternatives_answer,
    check_answer,
    history_answer,
    install_answer,
    pin_safe_answer,
    problem_for,
    trust_signals_answer,
    versions_answer,
)
from pkgintel.web.charts import health_history_svg
from pkgintel.web.pages.common import (
    VERDICT_TONES,
    Part,
    ecosystem_of,
    memo_of,
    part,
    runtime_of,
    unknown_ecosystem,
)
from pkgintel.web.render import error_page, render

router = APIRouter(include_in_schema=False)

MAX_VERSIONS_SHOWN = 30
MAX_VERSION_CHARS = 128


async def _answers(
    runtime: Runtime, eco: Ecosystem, package: str, version: str | None
) -> tuple[Any, tuple[Part, ...]]:
    """The report (raises what `check_answer` raises) and the page's other sections."""
    _, report = await check_answer(runtime, eco, package, version, client_key=None)
    body = report.body
    name = body["package"]
    shown = body["vulnerabilities"]["version"] or body["latest_version"]
    parts = await asyncio.gather(
        part(history_answer(runtime, eco, name)),
        part(versions_answer(runtime, eco, name)),
        part(install_answer(runtime, eco, name, shown)),
        part(
            pin_safe_answer(
                runtime,
                eco,
                name,
                min_severity="high",
                constraint=None,
                limit_checked=50,
                include_prerelease=False,
            )
        ),
        part(alternatives_answer(runtime, eco, name)),
        part(trust_signals_answer(runtime, eco, name)),
    )
    return report, tuple(parts)


@router.get("/p/{ecosystem}/{package:path}")
async def package_page(request: Request, ecosystem: str, package: str) -> Response:
    eco = ecosystem_of(ecosystem)
    if eco is None:
        return error_page(request, unknown_ecosystem(ecosystem))
    version = request.query_params.get("version") or None
    if version is not None and len(version) > MAX_VERSION_CHARS:
        version = version[:MAX_VERSION_CHARS]
    runtime = runtime_of(request)
    try:
        answers = await memo_of(request).get(
            ("package", eco, package, version), lambda: _answers(runtime, eco, package, version)
        )
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    report = answers[0].wire()
    history, versions, install, pin, alternatives, trust = (p.rendered() for p in answers[1])
    name = report["package"]
    shown = report["vulnerabilities"]["version"] or report["latest_version"]
    snapshots = history.body["snapshots"] if history.body else []
    public = runtime.public_url
    context: dict[str, Any] = {
        "title": f"{name} ({eco.value})",
        "ecosystem": eco.value,
        "report": report,
        "shown_version": shown,
        "tone": VERDICT_TONES.get(report["recommendation"]["action"], "info"),
        "history": history,
        "chart": health_history_svg(snapshots, label=f"{name} ({eco.value})"),
        "versions": versions,
        "versions_shown": (versions.body or {}).get("versions", [])[:MAX_VERSIONS_SHOWN],
        "install": install,
        "pin": pin,
        "alternatives": alternatives,
        "trust": trust,
        "badge_url": f"/badge/{eco.value}/{name}",
        "badge_markdown": f"[![pkgintel health]({public}/badge/{eco.value}/{name})]"
        f"({public}/p/{eco.value}/{name})",
        "sources": report["_meta"]["sources"],
    }
    return render(request, "package.html", context)
