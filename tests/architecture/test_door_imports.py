"""The doors (HTTP `api`, `mcp`, `cli`, and later `web`) never import one another, not even inside a
function or under TYPE_CHECKING: what two doors share lives in `application/` (or lower)."""

from __future__ import annotations

import ast
from pathlib import Path

import pkgintel

PACKAGE = Path(pkgintel.__file__).parent
DOORS = ("api", "mcp", "cli", "web")


def _imports(path: Path) -> set[str]:
    """Every `pkgintel.*` module `path` imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("pkgintel"))
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("pkgintel")
        ):
            found.add(str(node.module))
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _door_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in DOORS else None


def test_no_door_imports_another_door() -> None:
    crossings = []
    for door in DOORS:
        folder = PACKAGE / door
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py")):
            for module in sorted(_imports(path)):
                target = _door_of(module)
                if target is not None and target != door:
                    crossings.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert crossings == []


def test_the_application_layer_imports_no_door_and_no_web_framework() -> None:
    offending = []
    for path in sorted((PACKAGE / "application").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if _door_of(name) is not None or top in ("fastapi", "starlette", "mcp", "typer"):
                    offending.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offending == []
