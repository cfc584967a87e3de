"""The typosquat variant model (`domain.names.typosquat`) and the popularity-gap rules (`scoring.typosquat`)."""

from __future__ import annotations

import pytest

from pkgintel.domain.names.edits import classify_edit, fold, skeleton
from pkgintel.domain.names.typosquat import VariantIndex
from pkgintel.scoring.typosquat import (
    COMBO_TOP,
    ESTABLISHED_GAP,
    Gap,
    Popularity,
    popularity_gap,
    suspected_by,
    young,
)

POPULAR = [
    "lodash",
    "express",
    "requests",
    "cross-env",
    "jellyfish",
    "python-dateutil",
    "@types/node",
    "@babel/core",
    "crypto-js",
    "mongoose",
    "modem",
    "d3",
    "electron",
    "babel-cli",
    "@tapjs/core",
    "html5lib",
]


@pytest.fixture(scope="module")
def index() -> VariantIndex:
    return VariantIndex(POPULAR)


@pytest.mark.parametrize(
    ("query", "target", "technique"),
    [
        ("lodsh", "lodash", "omission"),
        ("expresss", "express", "repetition"),
        ("lodahs", "lodash", "transposition"),
        ("reqyests", "requests", "adjacent_key"),  # y is beside u on a QWERTY keyboard
        ("requestz", "requests", "adjacent_key"),
        ("requesta", "requests", "adjacent_key"),
        ("requeyts", "requests", "substitution"),
        ("jeilyfish", "jellyfish", "homoglyph"),  # PyPI folds `jeIlyfish` to lower case first
        ("cross_env", "cross-env", "delimiter"),
        ("crossenv", "cross-env", "delimiter"),
        ("mongooose", "mongoose", "repetition"),
        ("requeests", "requests", "repetition"),
        ("requesrts", "requests", "adjacent_key"),  # r typed beside t
        ("requestvs", "requests", "insertion"),
    ],
)
def test_one_edit_is_classified_by_its_shape(query: str, target: str, technique: str) -> None:
    assert classify_edit(query, target) == technique


def test_skeleton_and_fold() -> None:
    assert skeleton("Cross_Env.js") == "crossenvjs"
    assert fold("rnodern") == fold("modem") == "modem"
    assert fold("1odash") == fold("lodash")
    assert fold("l0dash") == fold("lodash")


@pytest.mark.parametrize(
    ("query", "target", "technique"),
    [
        ("lodahs", "lodash", "transposition"),
        ("expresss", "express", "repetition"),
        ("crossenv", "cross-env", "delimiter"),
        ("jeilyfish", "jellyfish", "homoglyph"),
        ("rnodem", "modem", "homoglyph"),  # rn reads as m
        ("mongose", "mongoose", "omission"),
        ("python3-dateutil", "python-dateutil", "insertion"),
        ("py-dateutil", "python-dateutil", "combosquat"),  # affix swapped
        ("cross-env.js", "cross-env", "combosquat"),
        ("node-electron", "electron", "combosquat"),
        ("d3.js", "d3", "combosquat"),
        ("plain-crypto-js", "crypto-js", "combosquat"),  # one word added
        ("types-node", "@types/node", "scope_confusion"),  # the issue's own example
        ("@babe1/core", "@babel/core", "homoglyph"),
        ("@babek/core", "@babel/core", "scope_confusion"),
        ("lodash-4", "lodash", "version_suffix"),
        ("requests2", "requests", "insertion"),
        ("babelcli", "babel-cli", "delimiter"),
        ("libhtml5", "html5lib", "reorder"),
    ],
)
def test_variants_find_the_imitated_name(
    index: VariantIndex, query: str, target: str, technique: str
) -> None:
    found = {v.target: v for v in index.variants(query)}
    assert target in found, found
    assert found[target].technique == technique
    assert 0 < found[target].similarity <= 100


def test_unrelated_and_identical_names_have_no_variants(index: VariantIndex) -> None:
    assert index.variants("lodash") == []  # never a variant of itself
    assert index.variants("fastify") == []
    assert index.variants("kubernetes-client") == []


def test_scoped_names_in_different_scopes_are_not_compared_whole(index: VariantIndex) -> None:
    # `@talkjs/core` is one edit from `@tapjs/core` as a string, but a different scope's own package.
    assert all(v.target != "@tapjs/core" for v in index.variants("@talkjs/core"))


def test_short_names_only_by_fold(index: VariantIndex) -> None:
    assert index.variants("d4") == []  # one edit from d3, too short to mean anything


def test_gap_by_downloads_and_by_rank() -> None:
    big = Popularity(monthly_downloads=100_000_000)
    assert popularity_gap(big, Popularity(monthly_downloads=10_000)) == Gap(
        True, 10_000.0, "downloads"
    )
    assert popularity_gap(big, Popularity(monthly_downloads=20_000_000)).holds is False
    # Ranks stand in for downloads; a name outside the ranking is ranked just past its end.
    top = Popularity(rank=5, ranked_count=15_000)
    assert popularity_gap(top, Popularity(rank=4000)).holds is True
    assert popularity_gap(top, Popularity(rank=50)).holds is False
    assert popularity_gap(top, Popularity(ranked_count=15_000)).holds is True
    outside = popularity_gap(
        Popularity(rank=3000, ranked_count=15_000), Popularity(ranked_count=15_000)
    )
    assert outside.holds is None  # the real rank may be far lower: not measurable
    assert popularity_gap(big, None) == Gap(None, None, "unknown")


def test_a_popular_package_is_never_a_suspect_of_a_less_popular_one() -> None:
    less = Popularity(monthly_downloads=1_000)
    more = Popularity(monthly_downloads=1_000_000_000)
    gap = popularity_gap(less, more)
    for technique in ("transposition", "combosquat", "homoglyph"):
        assert not suspected_by(technique, 0, gap)
        assert not suspected_by(technique, 0, gap, established=True)


def test_established_names_need_the_larger_gap() -> None:
    target = Popularity(monthly_downloads=100_000_000)
    # A security placeholder drawing typo traffic: 10,000 a month is 1/10,000 of the target.
    squat = popularity_gap(target, Popularity(monthly_downloads=10_000))
    assert suspected_by("delimiter", 10, squat, established=True)
    # A real neighbour with 1 % of the target's traffic.
    neighbour = popularity_gap(target, Popularity(monthly_downloads=1_000_000))
    assert neighbour.ratio is not None and neighbour.ratio < ESTABLISHED_GAP
    assert suspected_by("adjacent_key", 10, neighbour)
    assert not suspected_by("adjacent_key", 10, neighbour, established=True)
    # Established and not measurable: not a suspect.
    assert not suspected_by("omission", 10, Gap(None, None, "unknown"), established=True)


def test_unknown_popularity_suspects_typos_of_any_and_affixes_of_the_top() -> None:
    unknown = Gap(None, None, "unknown")
    assert suspected_by("omission", COMBO_TOP + 5, unknown)
    assert suspected_by("combosquat", 10, unknown)
    assert not suspected_by("combosquat", COMBO_TOP + 5, unknown)


def test_listed_names_need_youth_when_the_gap_is_not_measurable() -> None:
    unknown = Gap(None, None, "unknown")
    # Listed in the index (it exists), popularity not comparable: only a young, thin package.
    assert not suspected_by("omission", 10, unknown, listed=True)
    assert not suspected_by("omission", 10, unknown, listed=True, is_young=False)
    assert suspected_by("omission", 10, unknown, listed=True, is_young=True)
    assert young(2, 30) is True
    assert young(2, 900) is False  # old, even with few releases
    assert young(40, None) is False
    assert young(None, None) is None
