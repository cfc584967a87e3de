"""The techniques of ADR 0029: separator plus one edit, and cross-ecosystem brands (`BrandIndex`)."""

from __future__ import annotations

import pytest

from pkgintel.domain.names.brands import BrandIndex, brands
from pkgintel.domain.names.typosquat import VariantIndex

NPM_POPULAR = ["base-x", "is-array", "express", "sqlite", "lodash", "react"]
PYPI_POPULAR = ["opencv-python", "pyopenssl", "ffmpeg-python", "requests", "tblib", "sqlite-utils"]


@pytest.fixture(scope="module")
def npm_brands() -> BrandIndex:
    # PyPI's popular names lend their brands to npm; npm's own popular names keep theirs.
    return BrandIndex(PYPI_POPULAR, NPM_POPULAR)


def test_separator_plus_one_edit_catches_a_short_name() -> None:
    index = VariantIndex(NPM_POPULAR)
    found = {v.target: v.technique for v in index.variants("base_xd")}
    assert found.get("base-x") == "delimiter_typo"
    # A separator alone is a `delimiter` variant, one edit alone an edit: neither is relabelled.
    assert {v.target: v.technique for v in index.variants("base_x")}["base-x"] == "delimiter"
    assert {v.target: v.technique for v in index.variants("basex")}["base-x"] == "delimiter"


def test_separator_plus_one_edit_leaves_two_real_edits_alone() -> None:
    index = VariantIndex(NPM_POPULAR)
    # `is-arr` is two edits from `is-array`, neither of them a separator: not this technique.
    assert all(v.technique != "delimiter_typo" for v in index.variants("is-arr"))
    # `re-actor` is two edits from `react` even without its separator: a different word.
    assert index.variants("re-actor") == []


def test_brands_drop_ecosystem_affixes_only() -> None:
    assert brands("opencv-python") == ["opencvpython", "opencv"]
    assert brands("pyopenssl") == ["pyopenssl", "openssl"]
    assert brands("node-opencv") == ["nodeopencv", "opencv"]
    assert brands("opencv.js") == ["opencvjs", "opencv"]
    assert brands("@types/node") == []  # scoped names carry no brand
    assert brands("pyyaml") == ["pyyaml"]  # `yaml` is under MIN_BRAND: a common word


@pytest.mark.parametrize(
    ("query", "target", "distance", "affixed"),
    [
        ("node-opencv", "opencv-python", 0, True),
        ("opencv.js", "opencv-python", 0, True),
        ("nodeffmpeg", "ffmpeg-python", 0, True),
        ("node-opensl", "pyopenssl", 1, True),  # affix plus one edit
        ("ffmepg", "ffmpeg-python", 1, False),
        ("openssl", "pyopenssl", 0, False),
    ],
)
def test_brand_variants_find_the_borrowed_brand(
    npm_brands: BrandIndex, query: str, target: str, distance: int, affixed: bool
) -> None:
    found = {v.target: v for v in npm_brands.variants(query)}
    assert target in found, found
    assert found[target].edit_distance == distance
    assert found[target].affixed is affixed


def test_brands_popular_here_are_not_borrowed(npm_brands: BrandIndex) -> None:
    # `requests` is PyPI's, but `node-requests` only borrows it if npm has no popular `requests`;
    # here `sqlite` is popular on npm, so PyPI's `sqlite-utils` lends nothing for `node-sqlite`.
    assert [v.target for v in npm_brands.variants("node-sqlite")] == []
    assert [v.target for v in npm_brands.variants("express")] == []
    assert [v.target for v in npm_brands.variants("fastify")] == []
