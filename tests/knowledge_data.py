"""
Registry and GitHub bodies the package-knowledge tests share (API and MCP): the npm mirror packuments
of ../shared/data and the recorded GitHub releases, changelog and bug issues of gocardless/business.
Callers skip when the shared data is absent (`tests.shared.requires_shared`).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from tests.fake_registry import ReplayRegistry
from tests.shared import SHARED_DATA, read_shared_json

RECORDINGS = Path(__file__).resolve().parent / "recordings"
NPM_LIVE = SHARED_DATA / "registry-fixtures" / "npm-live"
GH = "https://api.github.com/repos/gocardless/business"


def add_npm_live(registry: ReplayRegistry) -> None:
    """The npm mirror packuments (request, axios, react-dom, next, express) — versions and
    repositories real; dates, maintainers and deprecation stripped (never asserted here)."""
    for item in json.loads((NPM_LIVE / "INDEX.json").read_text()):
        raw = (NPM_LIVE / item["file"]).read_bytes()
        registry.add(item["url"], gzip.decompress(raw) if item.get("gzipped") else raw)


def add_github_business(registry: ReplayRegistry) -> None:
    registry.add(
        f"{GH}/releases",
        read_shared_json(
            "registry-fixtures/github",
            "api.github.com_repos_gocardless_business_releases_per_page_100.json",
        ),
    )
    registry.add(
        f"{GH}/contents/CHANGELOG.md",
        (RECORDINGS / "changelogs" / "gocardless-business-CHANGELOG.md").read_bytes(),
    )
    registry.add(f"{GH}/issues", (RECORDINGS / "github" / "business-bug-issues.json").read_bytes())
