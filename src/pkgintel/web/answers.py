"""
The only place the web door reaches the answers it renders.

Every page calls the same answer functions as the JSON API and the MCP tools (no second copy of any
answer): they live in the door-neutral `application` package and are re-exported here, so a page
names one module. Nothing under `pkgintel.web` imports `pkgintel.api` or `pkgintel.mcp`.
"""

from __future__ import annotations

from pkgintel.application import accounts as accounts_answers
from pkgintel.application.advisories import malicious_answer, pin_safe_answer, vulns_answer
from pkgintel.application.audit import SbomError, scan_answer
from pkgintel.application.errors import resolve_error_answer
from pkgintel.application.knowledge import alternatives_answer, compare_answer, search_answer
from pkgintel.application.packages import check_answer, install_answer, versions_answer
from pkgintel.application.problems import Problem, problem_for
from pkgintel.application.registries import REGISTRIES
from pkgintel.application.schemas.audit import ScanBody
from pkgintel.application.signals import trust_signals_answer
from pkgintel.application.trees import history_answer
from pkgintel.application.typosquat import typosquat_answer

__all__ = [
    "REGISTRIES",
    "Problem",
    "SbomError",
    "ScanBody",
    "accounts_answers",
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
