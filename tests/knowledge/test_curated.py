"""The curated files load, every entry has a source, and malformed entries are refused."""

from __future__ import annotations

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import (
    CuratedDataError,
    load_curated,
    parse_alternatives,
    parse_breaking,
    parse_migrations,
)


def test_shipped_files_load_with_sources() -> None:
    k = load_curated()
    assert k.alternatives and k.migrations and k.breaking
    for alt in k.alternatives:
        assert alt.source.startswith("https://")
        assert all(c.source.startswith("https://") for c in alt.alternatives)
        assert all(c.name != alt.package for c in alt.alternatives)
    for m in k.migrations:
        assert m.sources and all(s.startswith("https://") for s in m.sources)
        assert m.before and m.after and m.differences and m.estimated_minutes > 0
        # Every curated migration target is one of the curated alternatives of its source.
        alts = k.alternatives_for(m.ecosystem, m.from_package)
        assert alts is not None and m.to_package in {c.name for c in alts.alternatives}
    for b in k.breaking:
        assert b.source.startswith("https://") and b.changes


def test_lookups_follow_name_rules() -> None:
    k = load_curated()
    assert k.alternatives_for(Ecosystem.PYPI, "PyCrypto") is not None
    assert k.alternatives_for(Ecosystem.NPM, "Request") is None  # npm names are case-sensitive
    assert k.migration(Ecosystem.NPM, "request", "axios") is not None
    assert k.migration(Ecosystem.NPM, "axios", "request") is None


@pytest.mark.parametrize(
    ("parser", "data", "message"),
    [
        (
            parse_alternatives,
            [
                {
                    "ecosystem": "npm",
                    "package": "x",
                    "reason": "r",
                    "source": "ftp://x",
                    "alternatives": [{"name": "y", "why": "w"}],
                }
            ],
            "source",
        ),
        (
            parse_alternatives,
            [
                {
                    "ecosystem": "nope",
                    "package": "x",
                    "reason": "r",
                    "source": "https://x",
                    "alternatives": [{"name": "y", "why": "w"}],
                }
            ],
            "ecosystem",
        ),
        (
            parse_alternatives,
            [
                {
                    "ecosystem": "npm",
                    "package": "x",
                    "reason": "r",
                    "source": "https://x",
                    "alternatives": [],
                }
            ],
            "at least one",
        ),
        (
            parse_migrations,
            [
                {
                    "ecosystem": "npm",
                    "from": "a",
                    "to": "b",
                    "rationale": "r",
                    "estimated_minutes": 0,
                    "before": "b",
                    "after": "a",
                    "sources": ["https://x"],
                }
            ],
            "estimated_minutes",
        ),
        (
            parse_migrations,
            [
                {
                    "ecosystem": "npm",
                    "from": "a",
                    "to": "b",
                    "rationale": "r",
                    "estimated_minutes": 5,
                    "before": "b",
                    "after": "a",
                    "sources": [],
                }
            ],
            "source",
        ),
        (
            parse_migrations,
            [
                {
                    "ecosystem": "npm",
                    "from": "a",
                    "to": "b",
                    "rationale": "r",
                    "estimated_minutes": 5,
                    "before": "b",
                    "after": "a",
                    # an unquoted YAML item with ": " inside is read as a mapping
                    "differences": ["ok", {"request needed `json": "true`."}],
                    "sources": ["https://x"],
                }
            ],
            r"differences\[1\]: must be text",
        ),
        (
            parse_breaking,
            [
                {
                    "ecosystem": "pypi",
                    "package": "x",
                    "version": 6.0,
                    "source": "https://x",
                    "changes": [{"text": "t"}],
                }
            ],
            "quoted",
        ),
    ],
)
def test_malformed_entries_are_refused(parser: object, data: object, message: str) -> None:
    assert callable(parser)
    with pytest.raises(CuratedDataError, match=message):
        parser(data)
