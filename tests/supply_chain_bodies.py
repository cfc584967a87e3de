"""
Hand-written registry bodies (in the registries' real formats) for the scorecard and provenance
tests; the attestation and Scorecard bodies they point at are the real recorded ones in
`../shared/data/registry-fixtures/{provenance,scorecard}/`.
"""

from __future__ import annotations

from typing import Any

from tests.bodies import npm_packument

NPM_ATTESTATIONS = "https://registry.npmjs.org/-/npm/v1/attestations/sigstore@{}"
PYPI_INTEGRITY = "https://pypi.org/integrity/sigstore/{v}/{f}/provenance"


def _sigstore_npm() -> dict[str, Any]:
    body = npm_packument(
        "sigstore",
        {
            "0.3.0": "2022-12-01T10:00:00.000Z",
            "0.4.0": "2023-01-11T17:32:00.000Z",
            "0.5.0": "2023-02-01T10:00:00.000Z",
        },
    )
    body["repository"] = {"type": "git", "url": "git+https://github.com/sigstore/sigstore-js.git"}
    for version in ("0.3.0", "0.4.0"):
        body["versions"][version]["dist"]["attestations"] = {
            "url": NPM_ATTESTATIONS.format(version),
            "provenance": {"predicateType": "https://slsa.dev/provenance/v0.2"},
        }
    return body


SIGSTORE_NPM = _sigstore_npm()

SCORECARD_DEMO = npm_packument(
    "scorecard-demo", {"1.0.0": "2025-01-01T00:00:00.000Z", "1.1.0": "2026-10-01T00:00:00.000Z"}
)
SCORECARD_DEMO["repository"] = {"type": "git", "url": "git+https://github.com/ossf/scorecard.git"}
SCORECARD_DEMO["versions"]["1.1.0"]["dist"].update({"unpackedSize": 48213, "fileCount": 12})
SCORECARD_DEMO["versions"]["1.1.0"]["exports"] = {
    ".": {"types": {"import": "./dist/index.d.mts", "require": "./dist/index.d.cts"}}
}
TYPES_SCORECARD_DEMO = npm_packument(
    "@types/scorecard-demo",
    {"0.9.0": "2024-01-01T00:00:00.000Z", "1.0.1": "2025-02-01T00:00:00.000Z"},
    deprecated="This is a stub types definition. scorecard-demo provides its own type definitions.",
)


def _pypi_files(version: str) -> list[dict[str, Any]]:
    return [
        {
            "filename": f"sigstore-{version}.tar.gz",
            "packagetype": "sdist",
            "upload_time": "2024-12-19T17:10:00",
            "upload_time_iso_8601": "2024-12-19T17:10:00.000000Z",
            "yanked": False,
            "yanked_reason": None,
        }
    ]


SIGSTORE_PYPI = {
    "info": {
        "name": "sigstore",
        "version": "3.6.2",
        "summary": "A tool for signing Python package distributions",
        "license_expression": "Apache-2.0",
        "home_page": None,
        "project_urls": {"Source": "https://github.com/ossf/scorecard"},
        "author": None,
        "author_email": "Sigstore Authors <sigstore-dev@googlegroups.com>",
        "maintainer": None,
        "maintainer_email": None,
        "classifiers": [],
        "requires_dist": [],
        "requires_python": ">=3.9",
        "keywords": "",
        "yanked": False,
        "yanked_reason": None,
    },
    "releases": {v: _pypi_files(v) for v in ("3.6.0", "3.6.1", "3.6.2")},
    "urls": [],
    "vulnerabilities": [],
}


def _simple_file(version: str, attested: bool) -> dict[str, Any]:
    name = f"sigstore-{version}.tar.gz"
    return {
        "filename": name,
        "url": f"https://files.pythonhosted.org/packages/x/{name}",
        "hashes": {"sha256": "00"},
        "requires-python": ">=3.9",
        "upload-time": "2024-12-19T17:10:00.000000Z",
        "yanked": False,
        "provenance": PYPI_INTEGRITY.format(v=version, f=name) if attested else None,
    }


SIGSTORE_SIMPLE = {
    "meta": {"api-version": "1.1", "_last-serial": 1},
    "name": "sigstore",
    "versions": ["3.6.0", "3.6.1", "3.6.2"],
    "files": [
        _simple_file("3.6.0", False),
        _simple_file("3.6.1", True),
        _simple_file("3.6.2", False),
    ],
}

SUPPLY_CHAIN_RECORDINGS: list[tuple[str, Any]] = [
    ("https://registry.npmjs.org/sigstore", SIGSTORE_NPM),
    ("https://registry.npmjs.org/scorecard-demo", SCORECARD_DEMO),
    ("https://registry.npmjs.org/@types%2Fscorecard-demo", TYPES_SCORECARD_DEMO),
    ("https://pypi.org/pypi/sigstore/json", SIGSTORE_PYPI),
    ("https://pypi.org/simple/sigstore/", SIGSTORE_SIMPLE),
]
