"""The curated error knowledge: shape, distinctness, coverage, sources."""

from __future__ import annotations

from collections import Counter

import pytest

from pkgintel.domain.knowledge.error_patterns import Form, error_hash, normalise_line
from pkgintel.knowledge.error_fixes import (
    KnowledgeDataError,
    load_error_knowledge,
    parse_error_file,
)


def test_entries_are_distinct_sourced_and_cover_the_toolchains() -> None:
    entries = load_error_knowledge()
    assert len(entries) >= 280
    assert len({e.error_hash for e in entries}) == len(entries)
    ecosystems = Counter(e.ecosystem for e in entries)
    assert {"pypi", "npm", "cargo", "go", "rubygems", "composer", "maven", "conda"} <= set(
        ecosystems
    )
    assert len({e.tool for e in entries}) >= 8
    for e in entries:
        assert e.sources and all(s.startswith("https://") for s in e.sources), e.pattern
        assert e.fix and e.cause and e.title
        assert e.error_hash == error_hash(e.pattern)
        assert normalise_line(e.pattern, e.form) == e.pattern  # stored patterns are fixed points


def test_code_entries_name_their_tool() -> None:
    for e in load_error_knowledge():
        if e.form is Form.CODE:
            assert e.pattern.split(" ", 1)[0] in {
                "rustc",
                "npm",
                "yarn",
                "node",
                "maven",
                "conda",
                "nuget",
                "dotnet",
                "csharp",
                "msbuild",
            } or e.pattern.startswith("ERR_PNPM_")


@pytest.mark.parametrize(
    "doc",
    [
        {
            "entries": [
                {"pattern": "x", "title": "t", "cause": "c", "fix": [], "source": "https://a"}
            ]
        },
        {
            "entries": [
                {"pattern": "x", "title": "t", "cause": "c", "fix": ["f"], "source": "http://a"}
            ]
        },
        {
            "entries": [
                {"pattern": "", "title": "t", "cause": "c", "fix": ["f"], "source": "https://a"}
            ]
        },
        {"nothing": []},
    ],
)
def test_malformed_entries_are_rejected(doc: dict) -> None:
    doc.setdefault("tool", "pip")
    doc.setdefault("ecosystem", "pypi")
    with pytest.raises(KnowledgeDataError):
        parse_error_file(doc, origin="test")
