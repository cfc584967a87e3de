"""
Minimal version selection, the Go module resolution rule (https://go.dev/ref/mod#minimal-version-selection).

A go.mod `require` line names the *minimum* version of a module, not a range. The build list holds,
for each module path reached in the requirement graph, the highest of the minimum versions required
anywhere in that graph — the requirements of every reached module version count, also those of a
version that is not the one selected. There are no conflicts: a higher minimum simply wins.

Module graph pruning (https://go.dev/ref/mod#graph-pruning): a main module at `go 1.17` or later
loads only the immediate requirements of a dependency whose own go.mod says `go 1.17` or later (such
a go.mod lists every module its packages need, `// indirect` ones included); below 1.17 (or with no
`go` directive, read as 1.16) the dependency's requirements are loaded transitively. Versions are
ordered by `domain.versions.sort_key` (golang.org/x/mod/semver: pseudo-versions are pre-releases of
the version after their base, `+incompatible` is build metadata and does not order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import sort_key

ModuleVersion = tuple[str, str]
"""`(module path, version)`."""

PRUNING_SINCE: Final = (1, 17)
_GO_DIRECTIVE: Final = re.compile(r"^(\d+)\.(\d+)")


def prunes(go_directive: str | None) -> bool:
    """True when a go.mod's `go` directive is 1.17 or later (its module graph is pruned); a missing
    or unreadable directive is go 1.16 for the go command, so False."""
    m = _GO_DIRECTIVE.match((go_directive or "").strip())
    return m is not None and (int(m[1]), int(m[2])) >= PRUNING_SINCE


def newer(a: str, b: str) -> bool:
    """True when Go version `a` sorts after `b`."""
    return sort_key(Ecosystem.GO, a) > sort_key(Ecosystem.GO, b)


def highest(versions: Iterable[str]) -> str:
    """The highest of `versions` in Go's order (ties, e.g. `v2.0.0` and `v2.0.0+incompatible`,
    go to the lexically greater string so the answer does not depend on input order)."""
    return max(versions, key=lambda v: (sort_key(Ecosystem.GO, v), v))


def select(required: Iterable[ModuleVersion]) -> dict[str, str]:
    """Each module path's selected version: the highest of the versions `required` names for it."""
    by_path: dict[str, list[str]] = {}
    for path, version in required:
        by_path.setdefault(path, []).append(version)
    return {path: highest(versions) for path, versions in by_path.items()}


def build_list(
    root: ModuleVersion,
    requirements: Mapping[ModuleVersion, Sequence[ModuleVersion]],
    *,
    pruned_root: bool = False,
) -> dict[str, str]:
    """
    The versions MVS selects for a main module that requires only `root` (as after `go get`).

    `requirements[(path, version)]` is that version's go.mod `require` list; a version absent from
    the mapping contributes no requirements (not loaded). With `pruned_root` (the root's go.mod is
    at go 1.17 or later, the main module too) only the root's own requirements join the graph; else
    every reached version's requirements do, transitively. The root's path is selected like any
    other: a requirement on a higher version of it raises it.
    """
    reached: set[ModuleVersion] = {root}
    stack = [root]
    while stack:
        mv = stack.pop()
        if pruned_root and mv != root:
            continue
        for req in requirements.get(mv, ()):
            if req not in reached:
                reached.add(req)
                stack.append(req)
    return select(reached)
