"""
The layers `docs/architecture.md` draws, held on the import graph of `src/` (every import counts,
function-local and `TYPE_CHECKING` ones too): a module imports only its own layer or a lower one; no
folder holds more than 30 modules and no module more than 800 lines; no module is named after how
the work was split; and the design document names every package of the tree.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Final

from tests.architecture.import_graph import SRC, edges, modules

LAYERS: Final[Mapping[str, int]] = {
    # 0 pure core
    "pkgintel": 0,
    "pkgintel.domain": 0,
    "pkgintel.scoring": 0,
    "pkgintel.lockfiles": 0,
    # 1 settings and logging
    "pkgintel.config": 1,
    "pkgintel.logs": 1,
    "pkgintel.settings_errors": 1,
    # 2 infrastructure
    "pkgintel.transport": 2,
    "pkgintel.storage": 2,
    "pkgintel.cache": 2,
    "pkgintel.events": 2,
    "pkgintel.knowledge": 2,
    "pkgintel.sbom": 2,
    # 3 adapters to the outside world
    "pkgintel.ecosystems": 3,
    "pkgintel.sources": 3,
    # 4 capabilities (their own order: tests/architecture/test_capability_layers.py)
    "pkgintel.services": 4,
    # 5 composition of the capabilities
    "pkgintel.runtime": 5,
    # 6 the answers every door gives
    "pkgintel.application": 6,
    # 7 doors (never import each other: test_door_imports.py)
    "pkgintel.api": 7,
    "pkgintel.mcp": 7,
    "pkgintel.cli": 7,
    "pkgintel.web": 7,
    # 8 what mounts the doors
    "pkgintel.app": 8,
    "pkgintel.entry": 8,
    "pkgintel.__main__": 8,
}
MAX_MODULES_PER_FOLDER: Final = 30
MAX_LINES_PER_MODULE: Final = 800
BATCH_NAME: Final = re.compile(r"(^|_)(eco_[a-e]|more|[a-e])$")
BATCH_MARKER: Final = re.compile(r"#.*\b(end )?eco-[a-e]\b|--- (end )?eco-[a-e]")
ARCHITECTURE: Final = SRC.parent / "docs" / "architecture.md"


def _top(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_every_top_level_part_has_a_layer() -> None:
    assert {_top(m) for m in modules()} - set(LAYERS) == set()


def test_no_import_runs_up_a_layer() -> None:
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in edges().items()
        for target in targets
        if LAYERS[_top(target)] > LAYERS[_top(source)]
    )
    assert upward == []


def test_folders_and_modules_a_person_can_hold_in_mind() -> None:
    per_folder = Counter(path.parent for path, _ in modules().values())
    crowded = {
        str(folder.relative_to(SRC)): n
        for folder, n in per_folder.items()
        if n > MAX_MODULES_PER_FOLDER
    }
    long = {
        name: lines
        for name, (path, _) in modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES_PER_MODULE
    }
    assert crowded == {}
    assert long == {}


def test_no_name_or_marker_from_how_the_work_was_split() -> None:
    named = [m for m in modules() if BATCH_NAME.search(m.rsplit(".", 1)[-1])]
    marked = [
        name
        for name, (path, _) in modules().items()
        if BATCH_MARKER.search(path.read_text(encoding="utf-8"))
    ]
    assert named == []
    assert marked == []


def test_the_design_document_names_every_package() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    packages = sorted(
        str(path.parent.relative_to(SRC / "pkgintel")) + "/"
        for path, is_package in modules().values()
        if is_package and path.parent != SRC / "pkgintel"
    )
    assert [p for p in packages if f"`{p}`" not in text] == []


def test_batch_names_are_recognised() -> None:
    """The name rule catches what it is for and nothing ordinary."""
    assert BATCH_NAME.search("tree_b") and BATCH_NAME.search("install_more")
    assert BATCH_NAME.search("install_eco_c")
    assert not BATCH_NAME.search("schemas") and not BATCH_NAME.search("cabal")
    assert BATCH_MARKER.search("    # eco-a: cargo") and not BATCH_MARKER.search("# ecosystem a")


def test_the_layer_table_is_the_documented_one() -> None:
    """Every layer named in the table appears in the design document's drawing."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert [
        part for part in LAYERS if part != "pkgintel" and f"{part.split('.')[-1]}" not in text
    ] == []
