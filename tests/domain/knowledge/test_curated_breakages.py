"""`apply_breakages` over a `BreakageIndex`: package pairs, stated runtimes, name folding, the fix."""

from __future__ import annotations

from pkgintel.domain.knowledge.compat import (
    Breakage,
    BreakageIndex,
    StackItem,
    apply_breakages,
)
from pkgintel.domain.packages import Ecosystem

NUMPY_PY312 = Breakage(
    Ecosystem.PYPI,
    "numpy",
    "<1.26.0",
    "python",
    ">=3.12",
    "no 3.12 support",
    "numpy 1.26.0+",
    "https://numpy.org/doc/stable/release/1.26.0-notes.html",
)
FSA_SA2 = Breakage(
    Ecosystem.PYPI,
    "Flask_SQLAlchemy",
    "<3.0.3",
    "SQLAlchemy",
    ">=2.0.0",
    "old internals",
    "Flask-SQLAlchemy 3.0.3+",
    "https://github.com/pallets-eco/flask-sqlalchemy/issues/1122",
)
LOMBOK_21 = Breakage(
    Ecosystem.MAVEN,
    "org.projectlombok:lombok",
    "[,1.18.30)",
    "java",
    "[21,)",
    "javac internals",
    "Lombok 1.18.30+",
    "https://github.com/projectlombok/lombok/issues/3393",
)
INDEX = BreakageIndex.of([NUMPY_PY312, FSA_SA2, LOMBOK_21])


def test_a_pair_matches_under_the_ecosystems_name_folding_and_carries_the_fix() -> None:
    stack = [StackItem("flask-sqlalchemy", "2.5.1"), StackItem("sqlalchemy", "2.0.25")]
    [c] = apply_breakages(Ecosystem.PYPI, stack, INDEX)
    assert (c.package, c.requires, c.found_version) == ("flask-sqlalchemy", "sqlalchemy", "2.0.25")
    assert c.origin == "curated" and c.kind == "curated"
    assert c.fix == "Flask-SQLAlchemy 3.0.3+" and c.source.startswith("https://")
    assert c.message.endswith("Fix: Flask-SQLAlchemy 3.0.3+")


def test_outside_either_range_nothing_applies() -> None:
    fixed = [StackItem("flask-sqlalchemy", "3.0.3"), StackItem("sqlalchemy", "2.0.25")]
    old_sa = [StackItem("flask-sqlalchemy", "2.5.1"), StackItem("sqlalchemy", "1.4.51")]
    assert apply_breakages(Ecosystem.PYPI, fixed, INDEX) == []
    assert apply_breakages(Ecosystem.PYPI, old_sa, INDEX) == []


def test_a_runtime_breakage_needs_the_runtime_stated() -> None:
    stack = [StackItem("numpy", "1.25.2")]
    assert apply_breakages(Ecosystem.PYPI, stack, INDEX) == []
    assert apply_breakages(Ecosystem.PYPI, stack, INDEX, runtimes={"python": "3.11.9"}) == []
    [c] = apply_breakages(Ecosystem.PYPI, stack, INDEX, runtimes={"python": "3.12.1"})
    assert (c.requires, c.found_version) == ("python", "3.12.1")


def test_a_java_runtime_is_compared_in_maven_ranges() -> None:
    stack = [StackItem("org.projectlombok:lombok", "1.18.28")]
    [c] = apply_breakages(Ecosystem.MAVEN, stack, INDEX, runtimes={"java": "21.0.2"})
    assert c.requires == "java"
    assert apply_breakages(Ecosystem.MAVEN, stack, INDEX, runtimes={"java": "17"}) == []


def test_entries_of_another_ecosystem_never_apply() -> None:
    stack = [StackItem("numpy", "1.25.2")]
    assert apply_breakages(Ecosystem.NPM, stack, INDEX, runtimes={"python": "3.12.1"}) == []


def test_the_index_and_a_plain_list_give_the_same_answer() -> None:
    stack = [StackItem("Flask-SQLAlchemy", "3.0.2"), StackItem("SQLAlchemy", "2.0.1")]
    entries = [NUMPY_PY312, FSA_SA2, LOMBOK_21]
    assert apply_breakages(Ecosystem.PYPI, stack, entries) == apply_breakages(
        Ecosystem.PYPI, stack, INDEX
    )
    assert INDEX.size == 3 and INDEX.for_package(Ecosystem.PYPI, "flask_sqlalchemy") == (FSA_SA2,)
