"""
conda's own test vectors for version specs, run against `domain.ranges.conda`.

Transcribed (spec, version, expected) from conda's `tests/models/test_version.py`
(https://github.com/conda/conda/blob/main/tests/models/test_version.py: `test_match`,
`test_local_identifier`, `test_not_eq_star`, `test_compound_versions`,
`test_compatible_release_versions`, `test_version_spec_2`, `test_invalid_version_specs`,
`test_pep_440_arbitrary_equality_operator`).
"""

from __future__ import annotations

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import GRAMMARS
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.conda import CondaGrammar

GRAMMAR = CondaGrammar()

# test_match: every spec against 1.7.1.
MATCH_171 = [
    ("1.7.*", True),
    ("1.7.1", True),
    ("1.7.0", False),
    ("1.7", False),
    ("1.5.*", False),
    (">=1.5", True),
    ("!=1.5", True),
    ("!=1.7.1", False),
    ("==1.7.1", True),
    ("==1.7", False),
    ("==1.7.2", False),
    ("==1.7.1.0", True),
    ("1.7.*|1.8.*", True),
    (">1.7,<1.8", True),
    (">1.7.1,<1.8", False),
    ("^1.7.1$", True),
    (r"^1\.7\.1$", True),
    (r"^1\.7\.[0-9]+$", True),
    (r"^1\.8.*$", False),
    (r"^1\.[5-8]\.1$", True),
    (r"^[^1].*$", False),
    (r"^[0-9+]+\.[0-9+]+\.[0-9]+$", True),
    ("^$", False),
    ("^.*$", True),
    ("1.7.*|^0.*$", True),
    ("1.6.*|^0.*$", False),
    ("1.6.*|^0.*$|1.7.1", True),
    ("^0.*$|1.7.1", True),
    (r"1.6.*|^.*\.7\.1$|0.7.1", True),
    ("*", True),
    ("1.*.1", True),
    ("1.5.*|>1.7,<1.8", True),
    ("1.5.*|>1.7,<1.7.1", False),
]

OTHERS = [
    # test_local_identifier: a version matches itself
    ("1.7.0", "1.7.0", True),
    ("1.7.0.post123", "1.7.0.post123", True),
    ("1.7.0.post123.gabcdef9", "1.7.0.post123.gabcdef9", True),
    ("1.7.0.post123+gabcdef9", "1.7.0.post123+gabcdef9", True),
    # test_not_eq_star
    ("=3.3", "3.3.1", True),
    ("=3.3", "3.3", True),
    ("=3.3", "3.4", False),
    ("3.3.*", "3.3.1", True),
    ("3.3.*", "3.3", True),
    ("3.3.*", "3.4", False),
    ("=3.3.*", "3.3.1", True),
    ("=3.3.*", "3.3", True),
    ("=3.3.*", "3.4", False),
    ("!=3.3.*", "3.3.1", False),
    ("!=3.3.*", "3.4", True),
    ("!=3.3.*", "3.4.1", True),
    ("!=3.3", "3.3.1", True),
    ("!=3.3", "3.3.0.0", False),
    ("!=3.3.*", "3.3.0.0", False),
    # test_compound_versions
    (">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "2.6.8", False),
    (">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "2.7.2", True),
    (">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.3", False),
    (">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.3.4", False),
    (">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.4", True),
    (">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*", "3.4a", True),
    # test_compatible_release_versions
    ("~=1.10", "1.11.0", True),
    ("~=1.10.0", "1.11.0", False),
    ("~=3.3.2", "3.4.0", False),
    ("~=3.3.2", "3.3.1", False),
    ("~=3.3.2", "3.3.2.0", True),
    ("~=3.3.2", "3.3.3", True),
    ("~=3.3.2|==2.2", "2.2.0", True),
    ("~=3.3.2|==2.2", "3.3.3", True),
    ("~=3.3.2|==2.2", "2.2.1", False),
]

INVALID = [
    # test_version_spec_2
    "(1.5",
    "1.5)",
    "1.5||1.6",
    "^1.5",
    # test_invalid_version_specs
    "~",
    "^",
    "1.2+",
    "+1.2",
    "+1.2+",
    "++",
    "c +, 0/|0 *",
    "a[version=)|(",
    "a=)(=b",
    "==",
    "=",
    ">=",
    "<=",
    # test_compatible_release_versions, test_pep_440_arbitrary_equality_operator
    "~=3.3.2.*",
    "===3.3.2",
]


@pytest.mark.parametrize(("spec", "expected"), MATCH_171)
def test_conda_match_vectors(spec: str, expected: bool) -> None:
    assert GRAMMAR.parse(spec).contains("1.7.1") is expected


@pytest.mark.parametrize(("spec", "version", "expected"), OTHERS)
def test_conda_spec_vectors(spec: str, version: str, expected: bool) -> None:
    assert GRAMMAR.parse(spec).contains(version) is expected


@pytest.mark.parametrize("spec", INVALID)
def test_conda_invalid_spec_vectors(spec: str) -> None:
    with pytest.raises(RangeSyntaxError):
        GRAMMAR.parse(spec)


@pytest.mark.parametrize("spec", [r"^1\.7\.1$", "1.6.*|^0.*$", "^.*$"])
def test_a_callers_regular_expression_is_refused_not_run(spec: str) -> None:
    registered = GRAMMARS[Ecosystem.CONDA]
    with pytest.raises(RangeSyntaxError, match="regular-expression"):
        registered.parse(spec)
    assert GRAMMAR.parse(spec) is not None  # registry data keeps conda's full grammar


def test_a_callers_glob_is_bounded() -> None:
    registered = GRAMMARS[Ecosystem.CONDA]
    assert registered.parse("1.*.1").contains("1.7.1")
    assert registered.parse("1.*.*.1").contains("1.7.0.1")
    with pytest.raises(RangeSyntaxError, match="at most 2"):
        registered.parse("1" + ".*" * 40 + ".1")
    with pytest.raises(RangeSyntaxError, match="at most 2"):
        registered.parse("1.*.1" + "*" * 40)
    # Other characters are literal in a caller's glob, never regular-expression syntax.
    greedy = registered.parse("1.*" + "a?" * 30 + "a" * 30)
    assert not greedy.contains("1." + "a" * 29 + "b")
    assert not registered.parse("1.[0-9]*.1").contains("1.7.1")
    assert GRAMMAR.parse("1.[0-9]*.1").contains("1.7.1")  # conda itself lets it through as regex
