"""
The only place the web door reaches the answers it renders.

Every page calls the same answer functions as the JSON API and the MCP tools (no second copy of
any answer): they are re-imported here from where they live today, so that when they move into the
door-neutral `application` package (issue 29) this one module is re-pointed and no page changes.
Nothing else under `pkgintel.web` may import `pkgintel.api` (or `pkgintel.mcp`).
"""

from __future__ import annotations

import importlib
from types import ModuleType

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


def _optional(module: str) -> ModuleType | None:
    """`module`, or None when it does not exist in this installation (an import error inside an
    existing module is raised, not hidden)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            return None
        raise


accounts_answers = _optional("pkgintel.application.accounts")
"""The account answers of issue 30 (`magic_link_request_answer`, `me_answer`, `keys_answer`,
`usage_answer`, `create_key_answer`, `revoke_key_answer`, `logout_answer`), None until accounts
exist: `/login` and `/dashboard` are mounted only when they do."""

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
