"""
Cabal's own parser test cases for version sets, run against `domain.ranges.hackage`.

From haskell/cabal `Cabal-tests/tests/ParserTests`: `regressions/version-sets.cabal` with the
normal form Cabal prints for it (`version-sets.format`), and `errors/version-sets-1..4.cabal`,
which Cabal rejects (https://github.com/haskell/cabal/tree/master/Cabal-tests/tests/ParserTests).
"""

from __future__ import annotations

import pytest

from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.hackage import HackageGrammar

GRAMMAR = HackageGrammar()

# (as written in version-sets.cabal, as Cabal formats it)
SETS = [
    ("^>= {0}", "^>=0"),
    ("== {1}", "==1"),
    ("== { 1 }", "==1"),
    ("== {1,2}", "==1 || ==2"),
    ("== {1.2}", "==1.2"),
    ("== {1.2,3.4}", "==1.2 || ==3.4"),
    (
        "== {\n    8.6.3\n    ,\n    8.4.4    ,8.2.2     ,\n    8.0.2,7.10.3\n"
        "    , 7.8.4, 7.6.3, 7.4.2\n    }",
        "==8.6.3 || ==8.4.4 || ==8.2.2 || ==8.0.2 || ==7.10.3 || ==7.8.4 || ==7.6.3 || ==7.4.2",
    ),
    ("^>= { 2.4.1.1, 2.2.0.0 }", "^>=2.4.1.1 || ^>=2.2.0.0"),
]

PROBES = [
    "0", "0.1", "1", "1.0", "1.2", "1.2.1", "2", "2.0", "2.2.0.0", "2.2.5", "2.3", "2.4.1.1",
    "2.4.2", "2.5", "3.4", "3.4.0", "7.4.2", "7.10.3", "8.0.2", "8.6.3", "8.6.4", "9",
]  # fmt: skip

INVALID = [
    "== { }",  # errors/version-sets-1
    ">= { 2.8.0.0 }",  # errors/version-sets-2: only == and ^>= take a set
    "== { 2.8.0.0, }",  # errors/version-sets-3
    "== { 2.8.* }",  # errors/version-sets-4
]


@pytest.mark.parametrize(("written", "formatted"), SETS)
def test_a_version_set_means_what_cabal_prints_for_it(written: str, formatted: str) -> None:
    as_set, as_union = GRAMMAR.parse(written), GRAMMAR.parse(formatted)
    assert [as_set.contains(v) for v in PROBES] == [as_union.contains(v) for v in PROBES]
    assert any(as_set.contains(v) for v in PROBES)


@pytest.mark.parametrize("written", INVALID)
def test_version_sets_cabal_rejects(written: str) -> None:
    with pytest.raises(RangeSyntaxError):
        GRAMMAR.parse(written)
