"""
The import graph of `src/pkgintel`, read from the source (no module is imported): every `import`
and `from ... import` counts, function-local and `TYPE_CHECKING` ones too — a circle a local import
hides at run time is still a circle.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Set
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def modules(src: Path = SRC) -> dict[str, tuple[Path, bool]]:
    """Dotted module name → (file, is a package `__init__`), for every module under `pkgintel`."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in (src / "pkgintel").rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _owner(name: str, known: Set[str]) -> str:
    """The module `name` lives in (a name imported from a module is that module's)."""
    while name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def edges(src: Path = SRC) -> dict[str, set[str]]:
    """Module → the `pkgintel` modules it imports (itself left out)."""
    mods = modules(src)
    known = set(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, (path, is_package) in mods.items():
        base = module.split(".") if is_package else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("pkgintel")]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parent = base[: len(base) - (node.level - 1)]
                    source = ".".join(parent + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.startswith("pkgintel"):
                    targets = [
                        f"{source}.{a.name}" if f"{source}.{a.name}" in known else source
                        for a in node.names
                    ]
            for target in targets:
                owner = _owner(target, known)
                if owner != module:
                    graph[module].add(owner)
    return graph


def circles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (each import circle), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(root: str) -> None:
        # iterative Tarjan: the graph is deeper than Python's recursion limit allows for comfort
        nonlocal counter
        work: list[tuple[str, list[str]]] = []
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work.append((root, sorted(graph.get(root, ()))))
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)
