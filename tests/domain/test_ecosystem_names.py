"""The names people give an ecosystem (any case, OSV names, purl types, aliases) and purl targets."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.osv_ecosystems import OSV_ECOSYSTEMS, OSV_NAME_BY_ECOSYSTEM
from pkgintel.domain.packages import (
    ECOSYSTEM_ALIASES,
    Ecosystem,
    ecosystem_named,
    resolve_ecosystem,
)
from pkgintel.domain.purl import PURL_TYPES, build_purl, purl_target
from pkgintel.services.audit.scan import purl_keys_resolved


def test_every_osv_name_names_its_ecosystem() -> None:
    for osv, eco in OSV_ECOSYSTEMS.items():
        assert Ecosystem(osv) is eco, osv
        assert resolve_ecosystem(OSV_NAME_BY_ECOSYSTEM[eco]) is eco


def test_every_purl_type_names_its_ecosystem() -> None:
    for eco, purl_type in PURL_TYPES.items():
        assert Ecosystem(purl_type) is eco, purl_type


@pytest.mark.parametrize("eco", list(Ecosystem))
def test_identifiers_in_any_case_and_with_blanks(eco: Ecosystem) -> None:
    for text in (eco.value, eco.value.upper(), eco.value.title(), f" {eco.value}\n"):
        assert Ecosystem(text) is eco
        assert ecosystem_named(text) is eco


@pytest.mark.parametrize(
    ("text", "eco"),
    [
        ("PyPI", Ecosystem.PYPI),
        ("pip", Ecosystem.PYPI),
        ("crates.io", Ecosystem.CARGO),
        ("rust", Ecosystem.CARGO),
        ("Go", Ecosystem.GO),
        ("golang", Ecosystem.GO),
        ("NuGet", Ecosystem.NUGET),
        ("gem", Ecosystem.RUBYGEMS),
        ("RubyGems", Ecosystem.RUBYGEMS),
        ("Packagist", Ecosystem.COMPOSER),
        ("SwiftURL", Ecosystem.SWIFT),
        ("CocoaPods", Ecosystem.COCOAPODS),
        ("pod", Ecosystem.COCOAPODS),
        ("brew", Ecosystem.HOMEBREW),
        ("CRAN", Ecosystem.CRAN),
        ("JSR", Ecosystem.JSR),
    ],
)
def test_aliases(text: str, eco: Ecosystem) -> None:
    assert Ecosystem(text) is eco


def test_the_alias_table_is_lower_case_and_disjoint_from_the_identifiers() -> None:
    ids = {e.value for e in Ecosystem}
    for alias in ECOSYSTEM_ALIASES:
        assert alias == alias.strip().lower() and alias not in ids


@pytest.mark.parametrize("ambiguous", ["python", "node", "javascript", "java", "r", "haskell", ""])
def test_ambiguous_or_unknown_names_are_refused_listing_the_accepted(ambiguous: str) -> None:
    assert ecosystem_named(ambiguous) is None
    with pytest.raises(ValueError, match="is not a valid Ecosystem"):
        Ecosystem(ambiguous)
    with pytest.raises(InvalidInput) as caught:
        resolve_ecosystem(ambiguous)
    assert caught.value.field == "ecosystem"
    assert "pypi" in caught.value.message and "crates.io" in caught.value.message


def test_purl_round_trip_for_every_ecosystem() -> None:
    names = {
        Ecosystem.NPM: "@types/node",
        Ecosystem.MAVEN: "org.slf4j:slf4j-api",
        Ecosystem.GO: "github.com/gorilla/mux",
        Ecosystem.COMPOSER: "laravel/framework",
        Ecosystem.SWIFT: "github.com/Alamofire/Alamofire",
        Ecosystem.JSR: "@std/path",
        Ecosystem.CONDA: "bioconda/samtools",
    }
    for eco in Ecosystem:
        name = names.get(eco, "somepkg")
        ref = purl_target(build_purl(eco, name, "1.2.3"), None, takes_version=True, answer="x")
        assert (ref.ecosystem, ref.name, ref.version) == (eco, name, "1.2.3")


def test_purl_target_keeps_the_version_honest() -> None:
    ref = purl_target("pkg:npm/lodash@4.17.15", None, takes_version=True, answer="a")
    assert (ref.name, ref.version) == ("lodash", "4.17.15")
    same = purl_target("pkg:npm/lodash@4.17.15", "4.17.15", takes_version=True, answer="a")
    assert same.version == "4.17.15"
    unversioned = purl_target("pkg:npm/lodash", "4.17.21", takes_version=True, answer="a")
    assert unversioned.version == "4.17.21"
    assert purl_target("pkg:npm/lodash", None, takes_version=False, answer="a").version is None
    with pytest.raises(InvalidInput) as conflict:
        purl_target("pkg:npm/lodash@4.17.15", "4.17.21", takes_version=True, answer="a")
    assert conflict.value.field == "version"
    with pytest.raises(InvalidInput) as no_version:
        purl_target("pkg:npm/lodash@4.17.15", None, takes_version=False, answer="GET /api/x")
    assert no_version.value.field == "purl" and "GET /api/x" in no_version.value.message


@pytest.mark.parametrize("bad", ["lodash", "npm/lodash", "pkg:", "pkg:npm/", "pkg:github/a/b"])
def test_unusable_purls_name_the_purl_field(bad: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        purl_target(bad, None, takes_version=True, answer="a")
    assert caught.value.field == "purl"


def test_scan_package_keys_may_be_purls() -> None:
    eco, packages = purl_keys_resolved(
        None, {"pkg:npm/lodash@4.17.15": "", "pkg:npm/%40types/node": "20.1.0"}
    )
    assert eco is Ecosystem.NPM
    assert packages == {"lodash": "4.17.15", "@types/node": "20.1.0"}
    assert purl_keys_resolved(Ecosystem.NPM, {"left-pad": "1.3.0"}) == (
        Ecosystem.NPM,
        {"left-pad": "1.3.0"},
    )
    for bad in (
        {"pkg:npm/lodash": "", "pkg:pypi/requests": ""},
        {"pkg:npm/lodash@4.17.15": "4.17.21"},
        {"pkg:nope/x": ""},
    ):
        with pytest.raises(InvalidInput) as caught:
            purl_keys_resolved(None, bad)
        assert caught.value.field == "packages"
    with pytest.raises(InvalidInput):
        purl_keys_resolved(Ecosystem.PYPI, {"pkg:npm/lodash": ""})
