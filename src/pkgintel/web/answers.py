"""
The only place the web door reaches the answers it renders.

Every page calls the same answer functions as the JSON API and the MCP tools (no second copy of
any answer): they are re-imported here from where they live today, so that when they move into the
door-neutral `application` package (issue 29) this one module is re-pointed and no page changes.
Nothing else under `pkgintel.web` may import `pkgintel.api` (or `pkgintel.mcp`).
"""

from __future__ import annotations

from pkgintel.api.errors import Problem, problem_for
from pkgintel.api.routes.advisories import malicious_answer, pin_safe_answer, vulns_answer
from pkgintel.api.routes.audit import SbomError, ScanBody, scan_answer
from pkgintel.api.routes.errors import resolve_error_answer
from pkgintel.api.routes.graph import history_answer
from pkgintel.api.routes.knowledge import alternatives_answer, compare_answer, search_answer
from pkgintel.api.routes.packages import check_answer, install_answer, versions_answer
from pkgintel.api.routes.service import REGISTRIES
from pkgintel.api.routes.trust import trust_signals_answer
from pkgintel.api.routes.typosquat import typosquat_answer

__all__ = [
    "REGISTRIES",
    "Problem",
    "SbomError",
    "ScanBody",
    "alternatives_answer",
    "check_answer",
    "compare_answer",
    "history_answer",
    "install_answer",
    "malicious_answer",
    "pin_safe_answer",
    "problem_for",
    "resolve_error_answer",
    "scan_answer",
    "search_answer",
    "trust_signals_answer",
    "typosquat_answer",
    "versions_answer",
    "vulns_answer",
]
