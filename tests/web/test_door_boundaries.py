"""The web door reaches the answers only through `web/answers.py`, and imports neither the JSON API
nor the MCP door anywhere else; no other door imports it (apart from the app that mounts it)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parents[2] / "src" / "pkgintel"
WEB = SRC / "web"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_only_the_answers_module_reaches_into_the_api() -> None:
    offenders = {}
    for path in WEB.rglob("*.py"):
        bad = {
            m
            for m in _imports(path)
            if m.startswith(("pkgintel.api", "pkgintel.mcp", "pkgintel.cli"))
        }
        if path.name == "answers.py" and path.parent == WEB:
            bad = {m for m in bad if not m.startswith("pkgintel.api")}
        if bad:
            offenders[str(path.relative_to(SRC))] = sorted(bad)
    assert offenders == {}


def test_no_other_door_imports_the_web_door() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for door in ("api", "mcp", "cli")
        for path in (SRC / door).rglob("*.py")
        if any(m.startswith("pkgintel.web") for m in _imports(path))
    ]
    assert offenders == []
