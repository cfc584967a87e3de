"""
Package.resolved (SwiftPM), Podfile.lock (CocoaPods) and cpanfile.snapshot (Carton) on hand-written
inputs under `tests/data/lockfiles/{swiftpm,cocoapods,carton}/`.

The inputs follow the real formats: Package.resolved versions 1-3 as SwiftPM's pins store writes them
(swiftlang/swift-package-manager `PinsStore.swift`; v3 adds `originHash`), Podfile.lock as CocoaPods
1.15 writes it (`Pod::Lockfile`, CocoaPods/Core `lockfile.rb`), cpanfile.snapshot as Carton's
`Carton::Snapshot::Emitter` writes format 1.0 (perl-carton/carton).
"""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles import EMPTY_NOTE, parse_lockfile
from pkgintel.lockfiles.base import LockfileParser
from pkgintel.lockfiles.cpanfile_snapshot import CpanfileSnapshotParser, split_distname
from pkgintel.lockfiles.package_resolved import PackageResolvedParser
from pkgintel.lockfiles.podfile_lock import PodfileLockParser

from .helpers import check_invariants, names, one, parse


def _error(parser: LockfileParser, text: str) -> LockfileError:
    with pytest.raises(LockfileError) as caught:
        parser.parse(text)
    assert caught.value.kind == parser.kind
    return caught.value


# -- Package.resolved -------------------------------------------------------------------------------


def test_package_resolved_v1_names_are_the_swift_adapter_keys() -> None:
    result = parse(PackageResolvedParser(), "swiftpm", "v1.Package.resolved")
    check_invariants(result)
    assert [(p.name, p.version, p.resolved) for p in result.packages] == [
        ("github.com/alamofire/alamofire", "5.6.4", True),
        ("github.com/apple/swift-argument-parser", "1.2.0", True),
        ("github.com/pointfreeco/swift-snapshot-testing", None, False),
    ]
    for package in result.resolved:
        assert normalise_name(Ecosystem.SWIFT, package.name) == package.name
    assert one(result, "github.com/alamofire/alamofire").purl == (
        "pkg:swift/github.com/alamofire/alamofire@5.6.4"
    )
    # The file says nothing about direct/dev or the graph.
    assert all(p.direct is None and p.dev is None for p in result.packages)
    assert result.edges == ()


def test_package_resolved_branch_pin_has_no_version() -> None:
    result = parse(PackageResolvedParser(), "swiftpm", "v1.Package.resolved")
    branch = one(result, "github.com/pointfreeco/swift-snapshot-testing")
    assert (branch.version, branch.purl, branch.source) == (None, None, "git")
    assert branch.unresolved_reason is not None
    assert "branch main" in branch.unresolved_reason
    assert "f29e2014f6230cf7d5138fc899da51c7f513d467" in branch.unresolved_reason
    assert branch.requirement == "https://github.com/pointfreeco/swift-snapshot-testing.git@main"


def test_package_resolved_v2_kinds() -> None:
    result = parse(PackageResolvedParser(), "swiftpm", "v2.Package.resolved")
    check_invariants(result)
    assert {p.name: p.version for p in result.resolved} == {
        "github.com/apple/swift-nio": "2.64.0",
        "github.com/apple/swift-log": "1.5.4",  # scp-like git@host:owner/repo URL
    }
    revision_only = one(result, "git.example.com/team/internal-kit")
    assert not revision_only.resolved and revision_only.version is None
    assert "s3cr3t" not in (revision_only.requirement or "")  # credentials are never echoed
    assert "revision 0b1c2d3e" in (revision_only.unresolved_reason or "")
    local = one(result, "localdep")
    assert (local.resolved, local.source, local.version) == (False, "path", "0.3.0")
    registry = one(result, "mona.linkedlist")
    assert (registry.resolved, registry.source) == (False, "registry")


def test_package_resolved_v3_with_origin_hash() -> None:
    result = parse(PackageResolvedParser(), "swiftpm", "v3.Package.resolved")
    check_invariants(result)
    assert [p.key for p in result.resolved] == ["pkg:swift/github.com/vapor/vapor@4.92.1"]
    collections = one(result, "github.com/apple/swift-collections")
    assert collections.version is None and "branch release/1.1" in (
        collections.unresolved_reason or ""
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"version": 2, "pins": {}}', 1),
        ('{"version": "2", "pins": []}', 1),
        ('{"version": 1, "pins": []}', 1),  # v1 keeps its pins under "object"
        ('{"version": 2,\n "pins": [\n  {"identity": "a", "kind": "remoteSourceControl"}]}', 2),
        (
            '{"version": 2, "pins": [\n{"identity": "a", "kind": "remoteSourceControl",\n'
            '"location": "https://github.com/a/a", "state": {}}]}',
            3,
        ),
        ('{"version": 2, "pins": [\n{"location": "https://x.org/a/b", "state": 3}]}', 2),
        ('{"version": 2, "pins": [\n  {"a": 1,}\n]}', 2),
    ],
)
def test_package_resolved_malformed(text: str, line: int) -> None:
    assert _error(PackageResolvedParser(), text).line == line


def test_package_resolved_future_version_is_read_with_a_warning() -> None:
    text = (
        '{"version": 4, "pins": [{"identity": "a", "kind": "remoteSourceControl", '
        '"location": "https://github.com/o/a", "state": {"revision": "abc", "version": "1.0.0"}}]}'
    )
    result = PackageResolvedParser().parse(text)
    assert [p.key for p in result.packages] == ["pkg:swift/github.com/o/a@1.0.0"]
    assert "version 4" in result.warnings[0]


# -- Podfile.lock -----------------------------------------------------------------------------------


def test_podfile_lock_subspecs_are_one_pod() -> None:
    result = parse(PodfileLockParser(), "cocoapods", "app.Podfile.lock")
    check_invariants(result)
    assert names(result.packages) == {
        "Alamofire",
        "Firebase",
        "FirebaseAnalytics",
        "FirebaseCore",
        "InternalSDK",
        "LocalKit",
        "SwiftyJSON",
    }
    firebase = one(result, "Firebase")  # Firebase/Analytics, /Core and /CoreOnly
    assert (firebase.version, firebase.purl) == ("10.20.0", "pkg:cocoapods/Firebase@10.20.0")
    assert firebase.direct is True  # Firebase/Analytics is in DEPENDENCIES
    assert firebase.dependencies == ("FirebaseAnalytics", "FirebaseCore")  # no self-edge
    assert ("pkg:cocoapods/Firebase@10.20.0", "pkg:cocoapods/FirebaseCore@10.20.0") in result.edges
    assert one(result, "FirebaseCore").direct is False
    assert all(p.dev is None for p in result.packages)


def test_podfile_lock_sources() -> None:
    result = parse(PodfileLockParser(), "cocoapods", "app.Podfile.lock")
    assert {p.name: p.source for p in result.unresolved} == {
        "LocalKit": "path",
        "SwiftyJSON": "git",
    }
    swifty = one(result, "SwiftyJSON")
    assert swifty.version == "5.0.1"  # the podspec's version, kept but not a trunk release
    assert "not from the CocoaPods trunk" in (swifty.unresolved_reason or "")
    assert swifty.requirement == (
        "https://github.com/SwiftyJSON/SwiftyJSON.git@b3dcd7dbd0d488e1a7077cb33b00f2083e382f07"
    )
    assert one(result, "LocalKit").requirement == "../LocalKit"
    internal = one(result, "InternalSDK")  # a private spec repository, named in the purl
    assert internal.resolved and internal.purl == (
        "pkg:cocoapods/InternalSDK@2.1.0"
        "?repository_url=https://github.com/example/private-specs.git"
    )
    assert one(result, "Alamofire").purl == "pkg:cocoapods/Alamofire@5.8.1"


def test_podfile_lock_without_spec_repos_warns() -> None:
    text = "PODS:\n  - AFNetworking/Serialization (3.1.0)\n\nDEPENDENCIES:\n" + (
        "  - AFNetworking/Serialization (~> 3.0)\n\nCOCOAPODS: 1.0.0.beta.8\n"
    )
    result = PodfileLockParser().parse(text)
    assert [(p.name, p.version, p.direct) for p in result.packages] == [
        ("AFNetworking", "3.1.0", True)
    ]
    assert "SPEC REPOS" in result.warnings[0]


def test_podfile_lock_pod_of_no_known_source_is_unresolved() -> None:
    text = "PODS:\n  - A (1.0)\n  - B (2.0)\n\nDEPENDENCIES:\n  - A\n  - C (~> 1)\n\n"
    text += "SPEC REPOS:\n  trunk:\n    - A\n"
    result = PodfileLockParser().parse(text)
    check_invariants(result)
    assert one(result, "A").resolved
    assert not one(result, "B").resolved and one(result, "B").source is None
    missing = one(result, "C")
    assert (missing.resolved, missing.requirement, missing.direct) == (False, "~> 1", True)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("DEPENDENCIES:\n  - A\n", 1),  # no PODS
        ("PODS:\n  - A\n", 2),  # no version
        ("PODS:\n  - A (1.0\n", 2),
        ("PODS:\n  - A (1.0):\n    - [x]\n", 2),
        ("PODS:\n  - A (1.0)\nDEPENDENCIES: nope\n", 3),
        ("PODS:\n  - A (1.0)\nEXTERNAL SOURCES:\n  A: nope\n", 4),
        ("PODS:\n  - A (1.0)\nSPEC REPOS:\n  trunk: A\n", 4),
        ("PODS:\n  - A (1.0)\n  - [", 3),
        ("PODS: {A: 1}\n", 1),
    ],
)
def test_podfile_lock_malformed(text: str, line: int) -> None:
    assert _error(PodfileLockParser(), text).line == line


# -- cpanfile.snapshot ------------------------------------------------------------------------------


def test_cpanfile_snapshot_distributions() -> None:
    result = parse(CpanfileSnapshotParser(), "carton", "app.cpanfile.snapshot")
    check_invariants(result)
    assert {p.name: (p.version, p.resolved) for p in result.packages} == {
        "HTTP-Message": ("6.45", True),
        "Plack": ("1.0050", True),
        "Try-Tiny": ("0.31", True),
        "URI": ("5.21", True),
        "Acme-Internal": ("0.02_01", False),
    }
    for package in result.packages:  # distribution names, as the CPAN adapter keys them
        assert normalise_name(Ecosystem.CPAN, package.name) == package.name
    assert one(result, "Plack").purl == "pkg:cpan/Plack@1.0050"
    assert all(p.direct is None and p.dev is None for p in result.packages)


def test_cpanfile_snapshot_requirements_become_edges_via_provides() -> None:
    result = parse(CpanfileSnapshotParser(), "carton", "app.cpanfile.snapshot")
    plack = one(result, "Plack")
    # HTTP::Message and URI are provided by distributions of the snapshot; perl is not a package
    assert plack.dependencies == ("HTTP-Message", "Try-Tiny", "URI")
    assert set(result.edges) >= {
        ("pkg:cpan/Plack@1.0050", "pkg:cpan/HTTP-Message@6.45"),
        ("pkg:cpan/Plack@1.0050", "pkg:cpan/URI@5.21"),
        ("pkg:cpan/HTTP-Message@6.45", "pkg:cpan/URI@5.21"),
    }
    # core modules nobody in the snapshot provides stay listed by module name
    assert one(result, "Try-Tiny").dependencies == ("Carp", "Exporter")


def test_cpanfile_snapshot_non_cpan_pathname_is_unresolved() -> None:
    result = parse(CpanfileSnapshotParser(), "carton", "app.cpanfile.snapshot")
    local = one(result, "Acme-Internal")
    assert (local.source, local.purl) == ("url", None)
    assert "not a CPAN author path" in (local.unresolved_reason or "")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Plack-1.0050", ("Plack", "1.0050")),
        ("M/MI/MIYAGAWA/Plack-1.0050.tar.gz", ("Plack", "1.0050")),
        ("libwww-perl-6.72", ("libwww-perl", "6.72")),
        ("Foo-2D-1.0.zip", ("Foo-2D", "1.0")),
        ("YAML-LibYAML-v0.89.0", ("YAML-LibYAML", "v0.89.0")),
        ("Moose-2.2206-TRIAL", ("Moose", "2.2206")),
        ("Plack", None),
        ("Plack-latest", None),
        ("-1.0", None),
    ],
)
def test_split_distname(text: str, expected: tuple[str, str] | None) -> None:
    assert split_distname(text) == expected


HEADER = "# carton snapshot format: version 1.0\n"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("DISTRIBUTIONS\n  A-1\n", 1),  # no header
        ("# carton snapshot format: version 111\n", 1),
        (HEADER + "PACKAGES\n", 2),
        (HEADER + "DISTRIBUTIONS\n    pathname: A/AB/ABC/A-1.tar.gz\n", 3),
        (HEADER + "DISTRIBUTIONS\n  Foo-Bar-1\n    unknown: foo\n", 4),
        (
            HEADER + "DISTRIBUTIONS\n  Foo-Bar-1\n    pathname: F/FO/FOO/Foo-Bar-1.tar.gz\n"
            "      Foo::Bar 1\n",
            5,
        ),  # a pair outside provides/requirements
        (HEADER + "DISTRIBUTIONS\n  Foo-Bar-1\n    pathname:\n", 4),
        (HEADER + "DISTRIBUTIONS\n  Foo\n    pathname: F/FO/FOO/Foo.tar.gz\n", 3),  # no version
        (HEADER + "DISTRIBUTIONS\n  Foo-1\n  Bar-2\n    pathname: B/BA/BAR/Bar-2.tar.gz\n", 3),
        (HEADER + "DISTRIBUTIONS\n  Foo-1\n\tpathname: F/FO/FOO/Foo-1.tar.gz\n", 4),
    ],
)
def test_cpanfile_snapshot_malformed(text: str, line: int) -> None:
    assert _error(CpanfileSnapshotParser(), text).line == line


def test_header_only_snapshot_is_empty() -> None:
    result = parse_lockfile(HEADER, filename="cpanfile.snapshot")
    assert result.packages == () and result.warnings == (EMPTY_NOTE,)
    assert parse_lockfile(HEADER + "DISTRIBUTIONS\n", kind="cpanfile.snapshot").packages == ()
