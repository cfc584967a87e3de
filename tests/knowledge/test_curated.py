"""The curated files load, every entry has a source, and malformed entries are refused."""

from __future__ import annotations

from urllib.parse import urlparse

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


def _alt(package: str = "x", **extra: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "ecosystem": "npm",
        "package": package,
        "reason": "r",
        "source": "https://example.org/x",
        "alternatives": [{"name": "y", "why": "w"}],
    }
    entry.update(extra)
    return entry


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([_alt(source="http://example.org/x")], "https URL"),
        ([_alt(), _alt()], "second entry"),
        ([_alt("Bad Name!")], "not a npm name"),
        ([_alt(alternatives=[{"name": "x", "why": "w"}])], "the package itself"),
        ([_alt(alternatives=[{"name": "y", "why": "w"}, {"name": "y", "why": "v"}])], "twice"),
        ([_alt(alternatives=[{"name": "z", "why": "w", "builtin": "yes"}])], "builtin"),
    ],
)
def test_alternatives_rules(data: object, message: str) -> None:
    with pytest.raises(CuratedDataError, match=message):
        parse_alternatives(data)


def test_names_are_compared_by_the_ecosystems_key() -> None:
    """PyPI folds case and separators: `PyCrypto` and `pycrypto`, `Foo` and `foo` are one package."""
    entry = _alt("PyCrypto", ecosystem="pypi")
    with pytest.raises(CuratedDataError, match="second entry"):
        parse_alternatives([entry, _alt("pycrypto", ecosystem="pypi")])
    with pytest.raises(CuratedDataError, match="the package itself"):
        parse_alternatives(
            [_alt("Foo", ecosystem="pypi", alternatives=[{"name": "foo", "why": "w"}])]
        )


def test_a_builtin_replacement_is_not_held_to_registry_name_rules() -> None:
    (entry,) = parse_alternatives(
        [_alt("crypto", alternatives=[{"name": "node:crypto", "why": "w", "builtin": True}])]
    )
    assert entry.alternatives[0].builtin is True
    with pytest.raises(CuratedDataError, match="not a npm name"):
        parse_alternatives([_alt("crypto", alternatives=[{"name": "node:crypto", "why": "w"}])])


def test_duplicate_migration_and_breaking_entries_are_refused() -> None:
    migration = {
        "ecosystem": "pypi",
        "from": "PyCrypto",
        "to": "pycryptodome",
        "rationale": "r",
        "estimated_minutes": 5,
        "before": "b",
        "after": "a",
        "sources": ["https://example.org"],
    }
    with pytest.raises(CuratedDataError, match="second path"):
        parse_migrations([migration, {**migration, "from": "pycrypto"}])
    with pytest.raises(CuratedDataError, match="same package"):
        parse_migrations([{**migration, "to": "PYCRYPTO"}])
    change = {
        "ecosystem": "npm",
        "package": "x",
        "version": "1.0.0",
        "source": "https://example.org",
        "changes": [{"text": "t"}],
    }
    with pytest.raises(CuratedDataError, match="second entry"):
        parse_breaking([change, change])


def test_the_shipped_base_has_breadth() -> None:
    """Issue 32, item 7: hundreds of sourced replacements, 100+ migration paths, 60+ transitions."""
    k = load_curated()
    assert len(k.alternatives) >= 300
    assert len({a.ecosystem for a in k.alternatives}) >= 10
    assert len(k.migrations) >= 100
    assert len(k.breaking) >= 60
    sources = (
        [a.source for a in k.alternatives]
        + [s for m in k.migrations for s in m.sources]
        + [b.source for b in k.breaking]
    )
    assert all(s.startswith("https://") for s in sources)
    assert not {urlparse(s).hostname for s in sources} & {"example.org", "example.invalid"}


@pytest.mark.parametrize(
    ("ecosystem", "package", "replacement"),
    [
        (Ecosystem.NPM, "babel-eslint", "@babel/eslint-parser"),
        (Ecosystem.NPM, "istanbul", "nyc"),
        (Ecosystem.NPM, "jade", "pug"),
        (Ecosystem.NPM, "coffee-script", "coffeescript"),
        (Ecosystem.NPM, "request-promise", "axios"),
        (Ecosystem.NPM, "uglify-es", "terser"),
        (Ecosystem.NPM, "gulp-util", "fancy-log"),
        (Ecosystem.PYPI, "mock", "unittest.mock"),
        (Ecosystem.PYPI, "sklearn", "scikit-learn"),
        (Ecosystem.PYPI, "pep8", "pycodestyle"),
        (Ecosystem.PYPI, "flask-script", "flask"),
        (Ecosystem.PYPI, "django-rest-swagger", "drf-spectacular"),
        (Ecosystem.PYPI, "asynctest", "unittest.IsolatedAsyncioTestCase"),
    ],
)
def test_the_issues_thirteen_misses_have_a_replacement(
    ecosystem: Ecosystem, package: str, replacement: str
) -> None:
    entry = load_curated().alternatives_for(ecosystem, package)
    assert entry is not None
    assert replacement in [c.name for c in entry.alternatives]
