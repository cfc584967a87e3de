"""
Small hand-written registry bodies in the registries' real formats, for the self-contained suite.

`tiny-lib` (npm), `@acme/widget` (npm, scoped, deprecated), `demo-pkg` (PyPI) and the downloads
answers for them. Dates are fixed; tests inject a clock.
"""

from __future__ import annotations

from typing import Any


def npm_packument(
    name: str, versions: dict[str, str], *, deprecated: str | None = None
) -> dict[str, Any]:
    """A full packument with `versions` = {version: ISO publish time}; the last one is `latest`."""
    latest = list(versions)[-1]
    body: dict[str, Any] = {
        "_id": name,
        "name": name,
        "description": f"{name} does one small thing",
        "dist-tags": {"latest": latest},
        "license": "MIT",
        "homepage": f"https://example.org/{name}",
        "repository": {
            "type": "git",
            "url": f"git+https://github.com/example/{name.strip('@').replace('/', '-')}.git",
        },
        "maintainers": [
            {"name": "alice", "email": "alice@example.org"},
            {"name": "bob", "email": "bob@example.org"},
        ],
        "time": {
            "created": next(iter(versions.values())),
            "modified": list(versions.values())[-1],
            **versions,
        },
        "versions": {},
    }
    for v in versions:
        body["versions"][v] = {
            "name": name,
            "version": v,
            "license": "MIT",
            "dependencies": {"left-pad": "^1.3.0"},
            "peerDependencies": {"react": ">=17"},
            "dist": {"tarball": f"https://registry.npmjs.org/{name}/-/{name}-{v}.tgz"},
        }
    if deprecated:
        body["versions"][latest]["deprecated"] = deprecated
    return body


TINY_LIB = npm_packument(
    "tiny-lib",
    {
        "1.0.0": "2024-01-10T10:00:00.000Z",
        "1.1.0": "2025-06-01T10:00:00.000Z",
        "2.0.0-beta.1": "2025-09-01T10:00:00.000Z",
        "2.0.0": "2026-10-01T10:00:00.000Z",
    },
)
TINY_LIB["dist-tags"]["latest"] = "2.0.0"
ACME_WIDGET = npm_packument(
    "@acme/widget",
    {"0.1.0": "2023-03-01T00:00:00.000Z", "0.2.0": "2023-04-01T00:00:00.000Z"},
    deprecated="Use @acme/widget2 instead",
)
TINY_LIB_DOWNLOADS = {
    "downloads": 250000,
    "start": "2026-11-14",
    "end": "2026-11-20",
    "package": "tiny-lib",
}


def _files(when: str, *, yanked: bool = False, reason: str | None = None) -> list[dict[str, Any]]:
    return [
        {
            "filename": "demo_pkg-x-py3-none-any.whl",
            "packagetype": "bdist_wheel",
            "upload_time": when[:19],
            "upload_time_iso_8601": when,
            "yanked": yanked,
            "yanked_reason": reason,
        }
    ]


DEMO_PKG = {
    "info": {
        "name": "Demo_Pkg",
        "version": "1.2.0",
        "summary": "A demonstration package",
        "license": None,
        "license_expression": "Apache-2.0",
        "home_page": "https://demo.example.org",
        "project_urls": {"Source": "https://github.com/example/demo-pkg"},
        "author": "Carol",
        "author_email": "carol@example.org",
        "maintainer": None,
        "maintainer_email": None,
        "classifiers": [
            "Development Status :: 5 - Production/Stable",
            "Programming Language :: Python :: 3",
        ],
        "requires_dist": ["httpx>=0.27", 'rich; extra == "cli"'],
        "requires_python": ">=3.10",
        "keywords": "demo,example",
        "yanked": False,
        "yanked_reason": None,
    },
    "releases": {
        "1.0.0": _files("2024-02-01T12:00:00.000000Z"),
        "1.1.0": _files("2025-03-01T12:00:00.000000Z", yanked=True, reason="broken wheel"),
        "1.2.0": _files("2026-09-15T12:00:00.000000Z"),
    },
    "urls": [],
    "vulnerabilities": [],
}
DEMO_PKG_1_0_0 = {
    **DEMO_PKG,
    "info": {**DEMO_PKG["info"], "version": "1.0.0", "requires_dist": ["httpx>=0.20"]},
}
DEMO_PKG_STATS = {
    "data": {"last_day": 1200, "last_week": 8400, "last_month": 36000},
    "package": "demo-pkg",
    "type": "recent_downloads",
}

RECORDINGS: list[tuple[str, Any]] = [
    ("https://registry.npmjs.org/tiny-lib", TINY_LIB),
    ("https://api.npmjs.org/downloads/point/last-week/tiny-lib", TINY_LIB_DOWNLOADS),
    ("https://registry.npmjs.org/@acme%2Fwidget", ACME_WIDGET),
    ("https://pypi.org/pypi/demo-pkg/json", DEMO_PKG),
    ("https://pypi.org/pypi/Demo_Pkg/json", DEMO_PKG),
    ("https://pypi.org/pypi/demo-pkg/1.0.0/json", DEMO_PKG_1_0_0),
    (
        "https://pypi.org/pypi/demo-pkg/1.1.0/json",
        {**DEMO_PKG, "info": {**DEMO_PKG["info"], "version": "1.1.0"}},
    ),
    ("https://pypistats.org/api/packages/demo-pkg/recent", DEMO_PKG_STATS),
]
