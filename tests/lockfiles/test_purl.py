"""`domain.purl`: Ecosystem ↔ purl type, building and reading package URLs."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem, PackageRef
from pkgintel.domain.purl import (
    PURL_TYPES,
    UNOFFICIAL_PURL_TYPES,
    build_purl,
    ecosystem_for_purl_type,
    parse_purl,
    purl_type,
)


def test_every_ecosystem_has_a_type_and_back() -> None:
    assert set(PURL_TYPES) == set(Ecosystem)
    for ecosystem in Ecosystem:
        assert ecosystem_for_purl_type(purl_type(ecosystem)) is ecosystem


@pytest.mark.parametrize(
    ("ecosystem", "expected"),
    [
        (Ecosystem.GO, "golang"),
        (Ecosystem.RUBYGEMS, "gem"),
        (Ecosystem.HOMEBREW, "brew"),
        (Ecosystem.PYPI, "pypi"),
    ],
)
def test_type_names(ecosystem: Ecosystem, expected: str) -> None:
    assert purl_type(ecosystem) == expected


def test_unofficial_types_are_listed() -> None:
    assert sorted(UNOFFICIAL_PURL_TYPES) == ["brew", "jsr", "julia"]
    assert all(t in PURL_TYPES.values() for t in UNOFFICIAL_PURL_TYPES)


@pytest.mark.parametrize(
    ("ecosystem", "name", "version", "expected"),
    [
        (Ecosystem.NPM, "@babel/core", "7.24.0", "pkg:npm/%40babel/core@7.24.0"),
        (Ecosystem.NPM, "left-pad", "1.3.0", "pkg:npm/left-pad@1.3.0"),
        (
            Ecosystem.PYPI,
            "Django_Rest.Framework",
            "3.14.0",
            "pkg:pypi/django-rest-framework@3.14.0",
        ),
        (Ecosystem.PYPI, "zope.interface", "6.1", "pkg:pypi/zope-interface@6.1"),
        (
            Ecosystem.GO,
            "github.com/cespare/xxhash/v2",
            "v2.3.0",
            "pkg:golang/github.com/cespare/xxhash/v2@v2.3.0",
        ),
        (Ecosystem.MAVEN, "org.junit:junit-bom", "5.8.1", "pkg:maven/org.junit/junit-bom@5.8.1"),
        (Ecosystem.COMPOSER, "psr/log", "3.0.0", "pkg:composer/psr/log@3.0.0"),
        (Ecosystem.RUBYGEMS, "rails", "7.1.2", "pkg:gem/rails@7.1.2"),
        (Ecosystem.CARGO, "serde", "1.0.195", "pkg:cargo/serde@1.0.195"),
        (Ecosystem.NUGET, "Newtonsoft.Json", "13.0.3", "pkg:nuget/Newtonsoft.Json@13.0.3"),
        (
            Ecosystem.COCOAPODS,
            "GoogleUtilities/Environment",
            "7.12.0",
            "pkg:cocoapods/GoogleUtilities@7.12.0#Environment",
        ),
        (
            Ecosystem.SWIFT,
            "github.com/apple/swift-nio",
            "2.62.0",
            "pkg:swift/github.com/apple/swift-nio@2.62.0",
        ),
        (Ecosystem.JSR, "@std/path", "1.0.0", "pkg:jsr/%40std/path@1.0.0"),
        (Ecosystem.HEX, "phoenix", None, "pkg:hex/phoenix"),
    ],
)
def test_build(ecosystem: Ecosystem, name: str, version: str | None, expected: str) -> None:
    assert build_purl(ecosystem, name, version) == expected


def test_versions_are_percent_encoded() -> None:
    purl = build_purl(Ecosystem.GO, "github.com/Azure/go-autorest", "v14.2.0+incompatible")
    assert purl == "pkg:golang/github.com/Azure/go-autorest@v14.2.0%2Bincompatible"


def test_qualifiers() -> None:
    purl = build_purl(
        Ecosystem.CARGO,
        "internal",
        "1.0.0",
        qualifiers={"repository_url": "https://crates.example.com"},
    )
    assert purl == "pkg:cargo/internal@1.0.0?repository_url=https://crates.example.com"


@pytest.mark.parametrize("name", ["", "   "])
def test_empty_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidInput):
        build_purl(Ecosystem.NPM, name, "1.0.0")


@pytest.mark.parametrize(
    ("purl", "expected"),
    [
        ("pkg:npm/%40babel/core@7.24.0", PackageRef(Ecosystem.NPM, "@babel/core", "7.24.0")),
        (
            "pkg:maven/org.junit/junit-bom@5.8.1",
            PackageRef(Ecosystem.MAVEN, "org.junit:junit-bom", "5.8.1"),
        ),
        (
            "pkg:golang/golang.org/x/mod@v0.14.0",
            PackageRef(Ecosystem.GO, "golang.org/x/mod", "v0.14.0"),
        ),
        ("pkg:gem/rails", PackageRef(Ecosystem.RUBYGEMS, "rails", None)),
        (
            "pkg:cocoapods/GoogleUtilities@7.12.0#Environment",
            PackageRef(Ecosystem.COCOAPODS, "GoogleUtilities/Environment", "7.12.0"),
        ),
    ],
)
def test_parse(purl: str, expected: PackageRef) -> None:
    assert parse_purl(purl) == expected


@pytest.mark.parametrize("purl", ["not a purl", "pkg:deb/debian/curl@7.50.3", "pkg:"])
def test_parse_refuses_bad_or_unsupported(purl: str) -> None:
    with pytest.raises(InvalidInput):
        parse_purl(purl)


@pytest.mark.parametrize(
    ("ecosystem", "name"),
    [
        (Ecosystem.NPM, "@scope/pkg"),
        (Ecosystem.GO, "github.com/a/b/v3"),
        (Ecosystem.MAVEN, "g.roup:artifact"),
        (Ecosystem.COMPOSER, "vendor/package"),
        (Ecosystem.CARGO, "tokio"),
    ],
)
def test_round_trip(ecosystem: Ecosystem, name: str) -> None:
    assert parse_purl(build_purl(ecosystem, name, "1.0.0")) == PackageRef(ecosystem, name, "1.0.0")
