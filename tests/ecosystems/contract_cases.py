"""
Rows of the adapter contract test (`test_contract.py`): one `ContractCase` per adapter and body set.

A case names an existing package, the URL → (status, body) answers that make it exist, the URL
whose body is the registry's authoritative answer (a malformed body there must give
`RegistryResponseInvalid`) and a version the package does not have. Any URL a case does not
answer gets 404, as the registries do. Bodies are either small hand-written ones in the
registries' real formats (always run) or real recordings from `../shared/data/registry-fixtures`
(skipped when the shared data is absent).

A new ecosystem adds its rows to `CASES` (and its adapter to `ADAPTERS`); nothing else changes.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pkgintel.domain.packages import Ecosystem
from tests.bodies import DEMO_PKG, TINY_LIB
from tests.shared import SHARED_DATA

Answers = dict[str, tuple[int, bytes]]


def _json(body: Any) -> bytes:
    return json.dumps(body).encode()


@dataclass(frozen=True)
class ContractCase:
    """One adapter exercised on one set of bodies."""

    id: str
    ecosystem: Ecosystem
    package: str
    answers: Callable[[], Answers]
    """URL → (status, body); called lazily so recorded rows can skip when shared data is absent."""
    primary_url: str
    missing_version: str = "999.999.999"
    kwargs: dict[str, str] = field(default_factory=dict)
    recorded: bool = False


def recorded(folder: str, *files: str) -> Callable[[], Answers]:
    """Answers from shared registry fixtures, by file name, at the URL their INDEX.json gives."""

    def load() -> Answers:
        index = {
            item["file"]: item
            for item in json.loads(
                (SHARED_DATA / "registry-fixtures" / folder / "INDEX.json").read_text()
            )
        }
        out: Answers = {}
        for name in files:
            item = index[name]
            raw = (SHARED_DATA / "registry-fixtures" / folder / name).read_bytes()
            out[item["url"]] = (
                int(item["status"]),
                gzip.decompress(raw) if item.get("gzipped") else raw,
            )
        return out

    return load


def fixed(answers: dict[str, Any]) -> Callable[[], Answers]:
    """Hand-written answers: JSON-able bodies are encoded, bytes and str are sent as they are."""

    def load() -> Answers:
        out: Answers = {}
        for url, body in answers.items():
            data = (
                body
                if isinstance(body, bytes)
                else body.encode()
                if isinstance(body, str)
                else _json(body)
            )
            out[url] = (200, data)
        return out

    return load


# --- npm and PyPI -----------------------------------------------------------------------------------

NPM_HAND = ContractCase(
    id="npm-hand",
    ecosystem=Ecosystem.NPM,
    package="tiny-lib",
    answers=fixed({"https://registry.npmjs.org/tiny-lib": TINY_LIB}),
    primary_url="https://registry.npmjs.org/tiny-lib",
)
PYPI_HAND = ContractCase(
    id="pypi-hand",
    ecosystem=Ecosystem.PYPI,
    package="demo-pkg",
    answers=fixed({"https://pypi.org/pypi/demo-pkg/json": DEMO_PKG}),
    primary_url="https://pypi.org/pypi/demo-pkg/json",
)
PYPI_RECORDED = ContractCase(
    id="pypi-recorded",
    ecosystem=Ecosystem.PYPI,
    package="requests",
    answers=recorded("pypi-live", "pypi.org_pypi_requests_json.json.gz"),
    primary_url="https://pypi.org/pypi/requests/json",
    recorded=True,
)

# --- cargo, go, maven, nuget -----------------------------------------------------------------

_CRATE = {
    "crate": {
        "name": "tiny_crate",
        "description": "Does one small thing in Rust",
        "homepage": None,
        "repository": "https://github.com/example/tiny_crate",
        "max_stable_version": "0.2.0",
        "max_version": "0.3.0-beta.1",
        "recent_downloads": 1234,
        "badges": [],
    },
    "versions": [
        {
            "num": "0.3.0-beta.1",
            "created_at": "2026-03-01T10:00:00+00:00",
            "yanked": False,
            "license": "MIT",
        },
        {
            "num": "0.2.0",
            "created_at": "2025-06-01T10:00:00+00:00",
            "yanked": False,
            "license": "MIT/Apache-2.0",
        },
        {
            "num": "0.1.0",
            "created_at": "2024-01-10T10:00:00+00:00",
            "yanked": True,
            "license": "MIT",
        },
    ],
    "keywords": [],
    "categories": [],
}
_CRATE_INDEX = "\n".join(
    json.dumps(
        {
            "name": "tiny_crate",
            "vers": v,
            "deps": deps,
            "yanked": y,
            "cksum": "0" * 64,
            "features": {},
        }
    )
    for v, deps, y in (
        ("0.1.0", [], True),
        (
            "0.2.0",
            [
                {
                    "name": "serde",
                    "req": "^1.0",
                    "features": [],
                    "optional": False,
                    "default_features": True,
                    "target": None,
                    "kind": "normal",
                }
            ],
            False,
        ),
        ("0.3.0-beta.1", [], False),
    )
)
CARGO_HAND = ContractCase(
    id="cargo-hand",
    ecosystem=Ecosystem.CARGO,
    package="tiny_crate",
    answers=fixed(
        {
            "https://crates.io/api/v1/crates/tiny_crate": _CRATE,
            "https://index.crates.io/ti/ny/tiny_crate": _CRATE_INDEX,
            "https://crates.io/api/v1/crates/tiny_crate/owners": {
                "users": [{"login": "alice", "kind": "user"}]
            },
        }
    ),
    primary_url="https://crates.io/api/v1/crates/tiny_crate",
)
CARGO_RECORDED = ContractCase(
    id="cargo-recorded",
    ecosystem=Ecosystem.CARGO,
    package="regex",
    answers=recorded("cargo", "crates.io_api_v1_crates_regex.json"),
    primary_url="https://crates.io/api/v1/crates/regex",
    recorded=True,
)

_GOMOD = "module example.com/tiny\n\ngo 1.21\n\nrequire golang.org/x/text v0.14.0\n\nretract v1.0.1 // published by mistake\n"
GO_HAND = ContractCase(
    id="go-hand",
    ecosystem=Ecosystem.GO,
    package="example.com/tiny",
    answers=fixed(
        {
            "https://proxy.golang.org/example.com/tiny/@v/list": "v1.0.0\nv1.0.1\nv1.1.0-rc.1\n",
            "https://proxy.golang.org/example.com/tiny/@v/v1.0.1.mod": _GOMOD,
            "https://pkg.go.dev/v1beta/versions/example.com/tiny?limit=1000": {
                "items": [
                    {
                        "modulePath": "example.com/tiny",
                        "version": "v1.0.0",
                        "commitTime": "2025-01-02T03:04:05Z",
                    },
                    {
                        "modulePath": "example.com/tiny",
                        "version": "v1.0.1",
                        "commitTime": "2025-02-02T03:04:05Z",
                    },
                ]
            },
        }
    ),
    primary_url="https://proxy.golang.org/example.com/tiny/@v/list",
    missing_version="v9.9.9",
)
GO_RECORDED = ContractCase(
    id="go-recorded",
    ecosystem=Ecosystem.GO,
    package="github.com/aws/smithy-go",
    answers=recorded(
        "go",
        "proxy.golang.org_github.com_aws_smithy-go_@v_list.txt",
        "proxy.golang.org_github.com_aws_smithy-go_@v_v1.9.0.mod.txt",
        "pkg.go.dev_v1beta_versions_github.com_aws_smithy-go_limit_1000.json",
        "pkg.go.dev_v1beta_module_github.com_aws_smithy-go_licenses_true.json",
        "pkg.go.dev_v1beta_package_github.com_aws_smithy-go.json",
    ),
    primary_url="https://proxy.golang.org/github.com/aws/smithy-go/@v/list",
    missing_version="v9.9.9",
    recorded=True,
)

_MAVEN_META = """<?xml version="1.0" encoding="UTF-8"?>
<metadata><groupId>org.example</groupId><artifactId>tiny</artifactId>
<versioning><latest>1.1.0-SNAPSHOT</latest><release>1.0.1</release>
<versions><version>1.0.0</version><version>1.0.1</version><version>1.1.0-SNAPSHOT</version></versions>
</versioning></metadata>"""
_MAVEN_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>org.example</groupId><artifactId>tiny</artifactId><version>1.0.1</version>
<name>Tiny</name><description>Does one small thing on the JVM</description>
<licenses><license><name>The Apache Software License, Version 2.0</name></license></licenses>
<developers><developer><id>alice</id><name>Alice Example</name></developer></developers>
<properties><slf4j.version>2.0.9</slf4j.version></properties>
<dependencies><dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>${slf4j.version}</version></dependency></dependencies>
</project>"""
MAVEN_HAND = ContractCase(
    id="maven-hand",
    ecosystem=Ecosystem.MAVEN,
    package="org.example:tiny",
    answers=fixed(
        {
            "https://repo.maven.apache.org/maven2/org/example/tiny/maven-metadata.xml": _MAVEN_META,
            "https://repo.maven.apache.org/maven2/org/example/tiny/1.0.1/tiny-1.0.1.pom": _MAVEN_POM,
        }
    ),
    primary_url="https://repo.maven.apache.org/maven2/org/example/tiny/maven-metadata.xml",
)
MAVEN_RECORDED = ContractCase(
    id="maven-recorded",
    ecosystem=Ecosystem.MAVEN,
    package="com.google.guava:guava",
    answers=recorded(
        "maven",
        "repo.maven.apache.org_maven2_com_google_guava_guava_maven-metadata.xml",
        "api.deps.dev_v3alpha_systems_maven_packages_com.google.guava_3Aguava.json",
    ),
    primary_url="https://repo.maven.apache.org/maven2/com/google/guava/guava/maven-metadata.xml",
    recorded=True,
)

_NUGET_INDEX = {
    "count": 1,
    "items": [
        {
            "@id": "https://api.nuget.org/v3/registration5-gz-semver2/tiny.lib/index.json#page/1.0.0/2.0.0",
            "count": 2,
            "lower": "1.0.0",
            "upper": "2.0.0",
            "items": [
                {
                    "catalogEntry": {
                        "id": "Tiny.Lib",
                        "version": v,
                        "listed": True,
                        "published": when,
                        "description": "Does one small thing on .NET",
                        "authors": "Alice Example",
                        "licenseExpression": "MIT",
                        "dependencyGroups": [
                            {
                                "targetFramework": "net8.0",
                                "dependencies": [{"id": "System.Text.Json", "range": "[8.0.0, )"}],
                            }
                        ],
                    }
                }
                for v, when in (
                    ("1.0.0", "2024-05-01T00:00:00+00:00"),
                    ("2.0.0", "2025-05-01T00:00:00+00:00"),
                )
            ],
        }
    ],
}
NUGET_HAND = ContractCase(
    id="nuget-hand",
    ecosystem=Ecosystem.NUGET,
    package="Tiny.Lib",
    answers=fixed(
        {"https://api.nuget.org/v3/registration5-gz-semver2/tiny.lib/index.json": _NUGET_INDEX}
    ),
    primary_url="https://api.nuget.org/v3/registration5-gz-semver2/tiny.lib/index.json",
)
NUGET_RECORDED = ContractCase(
    id="nuget-recorded",
    ecosystem=Ecosystem.NUGET,
    package="Newtonsoft.Json",
    answers=recorded(
        "nuget",
        "api.nuget.org_v3_registration5-gz-semver2_newtonsoft.json_index.json",
        "api.nuget.org_v3-flatcontainer_newtonsoft.json_13.0.3_newtonsoft.json.nuspec.xml",
        "azuresearch-usnc.nuget.org_query_q_packageid_newtonsoft.json",
    ),
    primary_url="https://api.nuget.org/v3/registration5-gz-semver2/newtonsoft.json/index.json",
    recorded=True,
)


# --- RubyGems, Composer, Pub, Hex ---------------------------------------------------------

_GEM = {
    "name": "tiny",
    "version": "1.1.0",
    "version_created_at": "2024-02-01T10:00:00.000Z",
    "downloads": 1234,
    "version_downloads": 56,
    "authors": "Ann Author",
    "info": "A tiny gem for tests",
    "licenses": ["MIT"],
    "homepage_uri": "https://github.com/ann/tiny",
    "dependencies": {"runtime": [{"name": "rack", "requirements": ">= 2.0"}], "development": []},
}
_GEM_VERSIONS = [
    {"number": "1.1.0", "platform": "ruby", "created_at": "2024-02-01T10:00:00.000Z"},
    {"number": "1.0.0", "platform": "ruby", "created_at": "2024-01-01T10:00:00.000Z"},
]
_P2 = {
    "minified": "composer/2.0",
    "packages": {
        "acme/widget": [
            {
                "name": "acme/widget",
                "description": "Widgets for tests",
                "version": "2.0.0",
                "version_normalized": "2.0.0.0",
                "license": ["MIT"],
                "time": "2024-03-01T10:00:00+00:00",
                "require": {"php": ">=8.1", "psr/log": "^3.0"},
                "source": {"url": "https://github.com/acme/widget.git", "type": "git"},
                "authors": [{"name": "Ann"}],
            },
            {
                "version": "1.0.0",
                "version_normalized": "1.0.0.0",
                "time": "2023-01-01T00:00:00+00:00",
            },
        ]
    },
}
_PUB = {
    "name": "tiny_dart",
    "latest": {
        "version": "1.0.0",
        "published": "2024-01-01T00:00:00.000Z",
        "pubspec": {
            "name": "tiny_dart",
            "description": "Tiny Dart package",
            "dependencies": {"meta": "^1.9.0"},
        },
    },
    "versions": [
        {
            "version": "1.0.0",
            "published": "2024-01-01T00:00:00.000Z",
            "pubspec": {
                "name": "tiny_dart",
                "description": "Tiny Dart package",
                "dependencies": {"meta": "^1.9.0"},
            },
        }
    ],
}
_HEX = {
    "name": "tiny_ex",
    "releases": [{"version": "0.2.0", "inserted_at": "2024-02-02T00:00:00Z"}, {"version": "0.1.0"}],
    "owners": [{"username": "ann"}],
    "meta": {"description": "Tiny Elixir package", "licenses": ["Apache-2.0"], "links": {}},
    "downloads": {"all": 100, "recent": 40, "week": 9},
}

MORE_CASES: list[ContractCase] = [
    ContractCase(
        "rubygems-hand",
        Ecosystem.RUBYGEMS,
        "tiny",
        fixed(
            {
                "https://rubygems.org/api/v1/gems/tiny.json": _GEM,
                "https://rubygems.org/api/v1/versions/tiny.json": _GEM_VERSIONS,
            }
        ),
        "https://rubygems.org/api/v1/gems/tiny.json",
    ),
    ContractCase(
        "rubygems-recorded",
        Ecosystem.RUBYGEMS,
        "rubystats",
        recorded(
            "rubygems",
            "rubygems.org_api_v1_gems_rubystats.json",
            "rubygems.org_api_v1_versions_rubystats.json",
        ),
        "https://rubygems.org/api/v1/gems/rubystats.json",
        recorded=True,
    ),
    ContractCase(
        "composer-hand",
        Ecosystem.COMPOSER,
        "acme/widget",
        fixed({"https://repo.packagist.org/p2/acme/widget.json": _P2}),
        "https://repo.packagist.org/p2/acme/widget.json",
    ),
    ContractCase(
        "composer-recorded",
        Ecosystem.COMPOSER,
        "psr/log",
        recorded(
            "composer", "repo.packagist.org_p2_psr_log.json", "packagist.org_packages_psr_log.json"
        ),
        "https://repo.packagist.org/p2/psr/log.json",
        recorded=True,
    ),
    ContractCase(
        "pub-hand",
        Ecosystem.PUB,
        "tiny_dart",
        fixed({"https://pub.dev/api/packages/tiny_dart": _PUB}),
        "https://pub.dev/api/packages/tiny_dart",
    ),
    ContractCase(
        "pub-recorded",
        Ecosystem.PUB,
        "bloc",
        recorded("pub", "pub.dev_api_packages_bloc.json"),
        "https://pub.dev/api/packages/bloc",
        recorded=True,
    ),
    ContractCase(
        "hex-hand",
        Ecosystem.HEX,
        "tiny_ex",
        fixed({"https://hex.pm/api/packages/tiny_ex": _HEX}),
        "https://hex.pm/api/packages/tiny_ex",
    ),
    ContractCase(
        "hex-recorded",
        Ecosystem.HEX,
        "phoenix_copy",
        recorded(
            "hex",
            "hex.pm_api_packages_phoenix_copy.json",
            "hex.pm_api_packages_phoenix_copy_releases_0.1.1.json",
        ),
        "https://hex.pm/api/packages/phoenix_copy",
        recorded=True,
    ),
]


# --- Swift, CocoaPods, CPAN ----------------------------------------------------------------

_SPI = "https://raw.githubusercontent.com/SwiftPackageIndex/PackageList/main/packages.json"
_GH = "https://api.github.com/repos/example/TinySwift"
_POD_SPEC = {
    "name": "TinyPod",
    "version": "1.2.0",
    "summary": "A tiny pod for tests",
    "homepage": "https://github.com/example/TinyPod",
    "license": {"type": "MIT", "file": "LICENSE"},
    "authors": {"Ann Author": "ann@example.org"},
    "source": {"git": "https://github.com/example/TinyPod.git", "tag": "1.2.0"},
    "dependencies": {"Alamofire": ["~> 5.0"]},
}
_CPAN_RELEASE = {
    "distribution": "Tiny-Dist",
    "name": "Tiny-Dist-0.02",
    "version": "0.02",
    "date": "2024-02-01T10:00:00",
    "author": "ANNA",
    "abstract": "A tiny distribution for tests",
    "license": ["perl_5"],
    "main_module": "Tiny::Dist",
    "status": "latest",
    "deprecated": False,
    "metadata": {"author": ["Ann Author <ann@example.org>"]},
    "resources": {"repository": {"web": "https://github.com/example/tiny-dist"}},
    "dependency": [
        {"module": "perl", "phase": "runtime", "relationship": "requires", "version": "5.010"},
        {"module": "JSON::PP", "phase": "runtime", "relationship": "requires", "version": "2.27"},
    ],
}
_CPAN_SEARCH = {
    "hits": {
        "total": 2,
        "hits": [
            {"fields": {"version": "0.02", "date": "2024-02-01T10:00:00"}},
            {"fields": {"version": "0.01", "date": "2023-01-01T10:00:00"}},
        ],
    }
}

ECO_C_CASES: list[ContractCase] = [
    ContractCase(
        "swift-hand",
        Ecosystem.SWIFT,
        "https://github.com/example/TinySwift.git",
        fixed(
            {
                _SPI: ["https://github.com/example/TinySwift.git", "https://github.com/b/c.git"],
                _GH: {
                    "full_name": "example/TinySwift",
                    "html_url": "https://github.com/example/TinySwift",
                    "description": "A tiny Swift package for tests",
                    "license": {"spdx_id": "Apache-2.0"},
                    "owner": {"login": "example", "type": "Organization"},
                    "archived": False,
                },
                f"{_GH}/tags?per_page=100": [
                    {"name": "v1.2.0"},
                    {"name": "1.1.0"},
                    {"name": "2.0.0-beta.1"},
                    {"name": "nightly"},
                ],
                f"{_GH}/releases?per_page=100": [
                    {"tag_name": "v1.2.0", "published_at": "2024-03-01T10:00:00Z"},
                    {"tag_name": "2.0.0-beta.1", "prerelease": True, "published_at": None},
                ],
            }
        ),
        f"{_GH}/tags?per_page=100",
    ),
    ContractCase(
        "cocoapods-hand",
        Ecosystem.COCOAPODS,
        "TinyPod",
        fixed(
            {
                # md5("TinyPod") starts with 9d4
                "https://cdn.cocoapods.org/all_pods_versions_9_d_4.txt": (
                    "OtherPod/0.1.0\nTinyPod/1.0.0/1.1.0/1.2.0/2.0.0-beta.1\n"
                ),
                "https://cdn.cocoapods.org/Specs/9/d/4/TinyPod/1.2.0/TinyPod.podspec.json": _POD_SPEC,
            }
        ),
        "https://cdn.cocoapods.org/all_pods_versions_9_d_4.txt",
    ),
    ContractCase(
        "cocoapods-recorded",
        Ecosystem.COCOAPODS,
        "Foo",
        recorded(
            "cocoapods",
            "cdn.cocoapods.org_all_pods_versions_1_3_5.txt",
            "cdn.cocoapods.org_Specs_1_3_5_Foo_1.1.3_Foo.podspec.json",
        ),
        "https://cdn.cocoapods.org/all_pods_versions_1_3_5.txt",
        recorded=True,
    ),
    ContractCase(
        "cpan-hand",
        Ecosystem.CPAN,
        "Tiny::Dist",
        fixed(
            {
                "https://fastapi.metacpan.org/v1/release/Tiny-Dist": _CPAN_RELEASE,
                "https://fastapi.metacpan.org/v1/release/_search?fields=version,date"
                "&q=distribution:Tiny-Dist&size=5000": _CPAN_SEARCH,
            }
        ),
        "https://fastapi.metacpan.org/v1/release/Tiny-Dist",
    ),
    ContractCase(
        "cpan-recorded",
        Ecosystem.CPAN,
        "Dpkg",
        recorded(
            "cpan",
            "fastapi.metacpan.org_v1_release_Dpkg.json",
            "fastapi.metacpan.org_v1_release__search_fields_version_date_q_distribution_Dpkg_size_5000.json",
        ),
        "https://fastapi.metacpan.org/v1/release/Dpkg",
        recorded=True,
    ),
]

# --- Hackage, CRAN, Conda ------------------------------------------------------------------

_HACKAGE_PAGE = """<!DOCTYPE html><html><head><title>tiny-hs: Tiny Haskell helpers</title></head><body>
<div id="content"><h1><a href="//hackage.haskell.org/package/tiny-hs">tiny-hs</a>: <small>Tiny Haskell helpers</small></h1>
<div id="properties"><table class="properties"><tbody>
<tr><th>Versions <span>[<a href="/package/tiny-hs.rss">RSS</a>]</span></th>
<td><a href="/package/tiny-hs-0.1.0.0">0.1.0.0</a>, <a class="deprecated" href="/package/tiny-hs-0.1.1.0">0.1.1.0</a>, <strong>0.2.0.0</strong></td></tr>
<tr><th>Dependencies</th><td><span><a href="/package/base">base</a> (>=4.14 && <5)</span>, <span><a href="/package/text">text</a></span><span> [<a href="/package/tiny-hs-0.2.0.0/dependencies">details</a>]</span></td></tr>
<tr><th>License</th><td class="word-wrap"><a href="/package/tiny-hs-0.2.0.0/src/LICENSE">BSD-3-Clause</a></td></tr>
<tr><th>Maintainer</th><td class="word-wrap">Ann Haskeller &lt;ann@example.org&gt;</td></tr>
<tr><th>Home page</th><td class="word-wrap"><a href=https://github.com/ann/tiny-hs>https://github.com/ann/tiny-hs</a></td></tr>
<tr><th>Uploaded</th><td>by <a href="/user/ann">ann</a> at <span title="Mon Mar  4 10:00:00 UTC 2024">2024-03-04T10:00:00Z</span></td></tr>
<tr><th>Downloads</th><td>120 total (15 in the last 30 days)</td></tr>
</tbody></table></div></div></body></html>"""
_PPM = {
    "name": "tinyr",
    "version": "1.2-0",
    "date_publication": "2024-05-02T10:00:00Z",
    "title": "Tiny R Helpers",
    "license": "GPL-2 | GPL-3",
    "maintainer": "Ann Statistician <ann@example.org>",
    "url": "https://github.com/ann/tinyr",
    "depends": "R (>= 4.0)",
    "imports": "stats, jsonlite (>= 1.8)",
    "suggests": "testthat",
    "archived": [
        {"version": "1.1", "date_publication": "2023-01-10T09:00:00Z", "license": "GPL-2"},
        {"version": "1.0-3", "date_publication": "2022-06-01T09:00:00Z", "license": "GPL-2"},
    ],
    "vulns": [],
}
_CONDA = {
    "name": "tinycon",
    "summary": "Tiny conda package",
    "license": "BSD-3-Clause",
    "home": "None",
    "dev_url": "https://github.com/ann/tinycon",
    "latest_version": "1.1.0",
    "versions": ["1.0.0", "1.1.0"],
    "releases": [
        {
            # Two builds listed, one file sent: the file list is incomplete, so no total.
            "version": "1.0.0",
            "distributions": [
                "noarch/tinycon-1.0.0-pyhd8ed1ab_0.conda",
                "noarch/tinycon-1.0.0-pyhd8ed1ab_1.conda",
            ],
        },
        {
            "version": "1.1.0",
            "distributions": [
                "noarch/tinycon-1.1.0-pyhd8ed1ab_0.conda",
                "noarch/tinycon-1.1.0-pyhd8ed1ab_1.conda",
            ],
        },
    ],
    "files": [
        {
            "version": v,
            "basename": f"noarch/tinycon-{v}-pyhd8ed1ab_{b}.conda",
            "upload_time": when,
            "labels": ["main"],
            "ndownloads": n,
            "attrs": {"subdir": "noarch", "depends": ["python >=3.9", "requests >=2.28"]},
        }
        for v, b, when, n in (
            ("1.0.0", 0, "2024-01-05 10:00:00.000000+00:00", 40),
            ("1.1.0", 0, "2024-06-01 10:00:00.000000+00:00", 25),
            ("1.1.0", 1, "2024-06-03 10:00:00.000000+00:00", 7),
        )
    ],
}

HASKELL_R_CONDA_CASES: list[ContractCase] = [
    ContractCase(
        "hackage-hand",
        Ecosystem.HACKAGE,
        "tiny-hs",
        fixed(
            {
                "https://hackage.haskell.org/package/tiny-hs.json": {
                    "0.1.0.0": "normal",
                    "0.1.1.0": "deprecated",
                    "0.2.0.0": "normal",
                },
                "https://hackage.haskell.org/package/tiny-hs": _HACKAGE_PAGE,
                "https://hackage.haskell.org/package/tiny-hs/deprecated.json": {
                    "is-deprecated": False,
                    "in-favour-of": [],
                },
            }
        ),
        "https://hackage.haskell.org/package/tiny-hs.json",
    ),
    ContractCase(
        "hackage-recorded",
        Ecosystem.HACKAGE,
        "aeson",
        recorded("hackage", "hackage.haskell.org_package_aeson.json"),
        "https://hackage.haskell.org/package/aeson.json",
        recorded=True,
    ),
    ContractCase(
        "cran-hand",
        Ecosystem.CRAN,
        "tinyr",
        fixed({"https://packagemanager.posit.co/__api__/repos/2/packages/tinyr": _PPM}),
        "https://packagemanager.posit.co/__api__/repos/2/packages/tinyr",
    ),
    ContractCase(
        "cran-recorded",
        Ecosystem.CRAN,
        "readxl",
        recorded("cran", "packagemanager.posit.co___api___repos_2_packages_readxl.json"),
        "https://packagemanager.posit.co/__api__/repos/2/packages/readxl",
        recorded=True,
    ),
    ContractCase(
        "conda-hand",
        Ecosystem.CONDA,
        "tinycon",
        fixed({"https://api.anaconda.org/package/conda-forge/tinycon": _CONDA}),
        "https://api.anaconda.org/package/conda-forge/tinycon",
    ),
    ContractCase(
        "conda-recorded",
        Ecosystem.CONDA,
        "pytest",
        recorded("conda", "api.anaconda.org_package_conda-forge_pytest.json"),
        "https://api.anaconda.org/package/conda-forge/pytest",
        recorded=True,
    ),
]

# --- Homebrew, Julia, JSR -------------------------------------------------------------------

_BREW = "https://formulae.brew.sh/api"
_CASK = {
    "token": "tiny-app",
    "full_token": "tiny-app",
    "tap": "homebrew/cask",
    "name": ["Tiny App"],
    "desc": "Menu bar helper that does one small thing",
    "homepage": "https://github.com/example/tiny-app",
    "url": "https://github.com/example/tiny-app/releases/download/v2.1.0/TinyApp.dmg",
    "version": "2.1.0",
    "depends_on": {"macos": {">=": ["12"]}, "formula": ["libtiny"]},
    "deprecated": True,
    "deprecation_date": "2025-09-01",
    "deprecation_reason": "unmaintained",
    "deprecation_replacement_cask": "tiny-app-ng",
    "disabled": False,
    "analytics": {"install": {"30d": {"tiny-app": 120}, "90d": {"tiny-app": 400}}},
}
_JULIA = "https://raw.githubusercontent.com/JuliaRegistries/General/master"
_JULIA_FILES = {
    f"{_JULIA}/T/TinyStats/Package.toml": (
        'name = "TinyStats"\nuuid = "0b7ba130-8d10-5ba8-a3d6-c5182647fed9"\n'
        'repo = "https://github.com/example/TinyStats.jl.git"\n'
    ),
    f"{_JULIA}/T/TinyStats/Versions.toml": (
        '["0.1.0"]\ngit-tree-sha1 = "8ea7da8a5a4d6e4d5e3b0c7f3f3c1c6c2b1a0f9e"\n\n'
        '["0.2.0"]\ngit-tree-sha1 = "1f5b8c0f4e5d2b7a9c3e6d8f0a1b2c3d4e5f6a7b"\nyanked = true\n\n'
        '["0.2.1"]\ngit-tree-sha1 = "2a6c9d1e5f6a3b8c0d4e7f9a1b2c3d4e5f6a7b8c"\n'
    ),
    f"{_JULIA}/T/TinyStats/Deps.toml": (
        '["0-0.1"]\nStatistics = "10745b16-79ce-11e8-11f9-7d13ad32a3b2"\n\n'
        '["0.2-0"]\nDataFrames = "a93c6f00-e57d-5684-b7b6-d8193f3e46c0"\n'
        'Statistics = "10745b16-79ce-11e8-11f9-7d13ad32a3b2"\n'
    ),
    f"{_JULIA}/T/TinyStats/Compat.toml": (
        '["0-0.1"]\njulia = "1.6.0-1"\n\n["0.2-0"]\nDataFrames = "1.3.0-1"\njulia = "1.9.0-1"\n'
    ),
}
_JSR_META = {
    "scope": "example",
    "name": "tiny",
    "latest": "1.1.0",
    "versions": {
        "1.1.0": {"createdAt": "2025-05-02T10:00:00.000000Z"},
        "1.0.0": {"createdAt": "2024-11-20T09:30:00.000000Z"},
        "1.2.0-rc.1": {"createdAt": "2025-07-01T08:00:00.000000Z"},
        "0.9.0": {"yanked": True, "createdAt": "2024-08-01T12:00:00.000000Z"},
    },
}
_JSR_VERSION = {
    "manifest": {"/mod.ts": {"size": 120, "checksum": "sha256-00"}},
    "exports": {".": "./mod.ts"},
    "moduleGraph2": {
        "/mod.ts": {
            "dependencies": [
                {"type": "static", "kind": "import", "specifier": "jsr:@std/assert@^1.0.0"},
                {"type": "static", "kind": "import", "specifier": "npm:chalk@5"},
                {"type": "static", "kind": "import", "specifier": "./util.ts"},
            ]
        }
    },
}
ECO_E_CASES: list[ContractCase] = [
    ContractCase(
        "homebrew-recorded",
        Ecosystem.HOMEBREW,
        "abook",
        recorded("homebrew", "formulae.brew.sh_api_formula_abook.json"),
        f"{_BREW}/formula/abook.json",
        recorded=True,
    ),
    ContractCase(
        "homebrew-hand-cask",
        Ecosystem.HOMEBREW,
        "cask:tiny-app",
        fixed({f"{_BREW}/cask/tiny-app.json": _CASK}),
        f"{_BREW}/cask/tiny-app.json",
    ),
    ContractCase(
        "julia-hand",
        Ecosystem.JULIA,
        "TinyStats",
        fixed(_JULIA_FILES),
        f"{_JULIA}/T/TinyStats/Versions.toml",
    ),
    ContractCase(
        "julia-recorded",
        Ecosystem.JULIA,
        "Inequality",
        recorded(
            "julia",
            "raw.githubusercontent.com_JuliaRegistries_General_master_Registry.toml.txt.gz",
            "juliahub.com_docs_General_Inequality_versions.json",
            "juliahub.com_docs_General_Inequality_stable_pkg.json",
        ),
        f"{_JULIA}/Registry.toml",
        recorded=True,
    ),
    ContractCase(
        "jsr-hand",
        Ecosystem.JSR,
        "@example/tiny",
        fixed(
            {
                "https://jsr.io/@example/tiny/meta.json": _JSR_META,
                "https://jsr.io/@example/tiny/1.1.0_meta.json": _JSR_VERSION,
                "https://api.jsr.io/scopes/example/packages/tiny": {
                    "scope": "example",
                    "name": "tiny",
                    "description": "A tiny helper for Deno and Node",
                    "score": 94,
                    "runtimeCompat": {"deno": True, "node": True},
                    "isArchived": False,
                },
            }
        ),
        "https://jsr.io/@example/tiny/meta.json",
    ),
    ContractCase(
        "jsr-recorded",
        Ecosystem.JSR,
        "@std/path",
        recorded("jsr", "jsr.io_@std_path_meta.json", "jsr.io_@std_path_1.1.3_meta.json"),
        "https://jsr.io/@std/path/meta.json",
        recorded=True,
    ),
]


CASES: list[ContractCase] = [
    NPM_HAND,
    PYPI_HAND,
    PYPI_RECORDED,
    # Cargo, Go, Maven, NuGet
    CARGO_HAND,
    CARGO_RECORDED,
    GO_HAND,
    GO_RECORDED,
    MAVEN_HAND,
    MAVEN_RECORDED,
    NUGET_HAND,
    NUGET_RECORDED,
    *MORE_CASES,
    *ECO_C_CASES,
    *HASKELL_R_CONDA_CASES,
    *ECO_E_CASES,
]
