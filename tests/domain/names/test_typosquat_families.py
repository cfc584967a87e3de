"""Variant families of the issue-32 revision (`domain.names.typosquat`), each with a confirmed squat it
catches and a legitimate look-alike it leaves alone: long names typed flat with a slip, a misspelt
popular word beside another word, a popular name without its ecosystem affix beside a word, a
three-word name hiding a popular one written with other separators, a version number on a
separator variant, and a glued `node` suffix."""

from __future__ import annotations

import pytest

from pkgintel.domain.names.typosquat import MISSPELT_WORD_TOP, VariantIndex

POPULAR = [
    "react-dnd-html5-backend",
    "lodash",
    "express",
    "pyfiglet",
    "dayjs",
    "chart.js",
    "bs58",
    "web3",
    "babel-plugin-syntax-dynamic-import",
]


@pytest.fixture(scope="module")
def index() -> VariantIndex:
    return VariantIndex(POPULAR)


def _targets(index: VariantIndex, query: str) -> dict[str, str]:
    return {v.target: v.technique for v in index.variants(query)}


def test_a_long_name_typed_flat_with_a_slip_is_a_delimiter_typo(index: VariantIndex) -> None:
    # MAL-2023 records: one extra letter, and every separator dropped.
    assert _targets(index, "reactdncdhtml5backend") == {"react-dnd-html5-backend": "delimiter_typo"}
    assert _targets(index, "bablpluginsyntaxdynamicimport") == {
        "babel-plugin-syntax-dynamic-import": "delimiter_typo"
    }
    # A different long name that shares most letters is more than one edit away.
    assert _targets(index, "reactdndtouchbackend") == {}


def test_a_misspelt_popular_word_beside_another_word_is_a_combosquat(index: VariantIndex) -> None:
    assert _targets(index, "loadash-lint") == {"lodash": "combosquat"}
    assert _targets(index, "expressjs-lint") == {"express": "combosquat"}
    # The misspelt word must be among the very top names: beyond it, a word is a word.
    far = VariantIndex([f"filler{i}" for i in range(MISSPELT_WORD_TOP)] + ["lodash"])
    assert "lodash" not in _targets(far, "loadash-lint")


def test_a_popular_name_without_its_affix_beside_a_word_is_a_combosquat(
    index: VariantIndex,
) -> None:
    assert _targets(index, "rich-figlet") == {"pyfiglet": "combosquat"}
    # A word beside an unrelated name is nothing.
    assert _targets(index, "rich-widgets") == {}


def test_a_three_word_name_hiding_a_popular_name_is_a_combosquat(index: VariantIndex) -> None:
    assert _targets(index, "easy-day-js") == {"dayjs": "combosquat"}
    assert _targets(index, "easy-date-js") == {}


def test_a_version_number_on_a_separator_variant_is_a_version_suffix(index: VariantIndex) -> None:
    assert _targets(index, "chartjs-2") == {"chart.js": "version_suffix"}
    assert _targets(index, "chartist-2") == {}


def test_a_glued_node_suffix_is_a_habit_affix(index: VariantIndex) -> None:
    found = {v.target: (v.technique, v.typo_traffic) for v in index.variants("bs58node")}
    assert found == {"bs58": ("combosquat", True)}
    assert "web3" in _targets(index, "web3node")
    # `node` alone after a word that is no popular name stays unmatched.
    assert _targets(index, "treenode") == {}
