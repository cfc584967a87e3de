"""Install lines of Swift, CocoaPods and CPAN; their name grammars checked on the real name lists."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.install.commands import install_commands
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.sources.name_lists import parse_name_list
from tests.shared import read_shared_bytes, requires_shared

NIO = "https://github.com/apple/swift-nio.git"


@pytest.mark.parametrize(
    ("ecosystem", "name", "version", "exact", "expected"),
    [
        (
            Ecosystem.SWIFT,
            NIO,
            "2.65.0",
            False,
            {
                "Package.swift": f'.package(url: "{NIO}", from: "2.65.0")',
                "swift": f"swift package add-dependency {NIO} --from 2.65.0",
            },
        ),
        (
            Ecosystem.SWIFT,
            NIO,
            "2.65.0",
            True,
            {
                "Package.swift": f'.package(url: "{NIO}", exact: "2.65.0")',
                "swift": f"swift package add-dependency {NIO} --exact 2.65.0",
            },
        ),
        (
            Ecosystem.SWIFT,
            "apple/swift-nio",
            "3.0.0-beta.1",  # a pre-release is pinned: `from:` would float past it
            False,
            {
                "Package.swift": f'.package(url: "{NIO}", exact: "3.0.0-beta.1")',
                "swift": f"swift package add-dependency {NIO} --exact 3.0.0-beta.1",
            },
        ),
        (
            Ecosystem.COCOAPODS,
            "Alamofire",
            "5.9.1",
            False,
            {"Podfile": "pod 'Alamofire', '~> 5.9'"},
        ),
        (Ecosystem.COCOAPODS, "Foo", "0.4.1", False, {"Podfile": "pod 'Foo', '~> 0.4.1'"}),
        (Ecosystem.COCOAPODS, "Foo", "1.1.3", True, {"Podfile": "pod 'Foo', '1.1.3'"}),
        (
            Ecosystem.CPAN,
            "Plack",
            "1.0048",
            False,
            {"cpanm": "cpanm Plack", "cpanfile": "requires 'Plack', '1.0048';"},
        ),
        (
            Ecosystem.CPAN,
            "Plack",
            "1.0048",
            True,
            {"cpanm": "cpanm Plack@1.0048", "cpanfile": "requires 'Plack', '== 1.0048';"},
        ),
        (
            Ecosystem.CPAN,
            "Moose",
            "2.2207_01",  # a developer release is pinned
            False,
            {"cpanm": "cpanm Moose@2.2207_01", "cpanfile": "requires 'Moose', '== 2.2207_01';"},
        ),
    ],
)
def test_install_lines(
    ecosystem: Ecosystem, name: str, version: str, exact: bool, expected: dict[str, str]
) -> None:
    assert install_commands(ecosystem, name, version, exact=exact) == expected


@pytest.mark.parametrize(
    ("ecosystem", "name"),
    [
        (Ecosystem.COCOAPODS, "Foo'; system('x"),
        (Ecosystem.COCOAPODS, "Foo\\Bar"),
        (Ecosystem.COCOAPODS, "Foo/Core"),
        (Ecosystem.CPAN, "Plack; rm -rf"),
        (Ecosystem.CPAN, "Plack::"),
        (Ecosystem.SWIFT, "https://github.com/apple"),
        (Ecosystem.SWIFT, "apple/../../etc"),
    ],
)
def test_names_that_cannot_be_packages_are_refused(ecosystem: Ecosystem, name: str) -> None:
    with pytest.raises(InvalidInput):
        validate_name(ecosystem, name)


@requires_shared
@pytest.mark.parametrize(
    ("ecosystem", "path"),
    [
        (Ecosystem.COCOAPODS, ("cocoapods", "cdn.cocoapods.org_all_pods.txt.gz")),
        (
            Ecosystem.CPAN,
            (
                "cpan",
                "fastapi.metacpan.org_v1_release__search_fields_distribution_q_status_latest_scroll_1m_size_5000.json.gz",
            ),
        ),
        (
            Ecosystem.SWIFT,
            ("swift", "raw.githubusercontent.com_SwiftPackageIndex_PackageList_main_packages.json"),
        ),
    ],
)
def test_every_name_on_the_registry_list_passes_the_grammar(
    ecosystem: Ecosystem, path: tuple[str, str]
) -> None:
    entries = list(parse_name_list(ecosystem, read_shared_bytes("registry-fixtures", *path)))
    assert len(entries) > 4000
    refused = []
    for entry in entries:
        try:
            validate_name(ecosystem, entry.display_name)
        except InvalidInput:
            refused.append(entry.display_name)
    assert refused == []
