"""SBOM input values: `document_from_lockfile`, the document's invariants, roots and identity."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.sbom.base import (
    SbomComponent,
    SbomDocument,
    SbomVulnerability,
    document_from_lockfile,
    document_uuid,
)

from .samples import (
    BODY_PARSER,
    CREATED,
    EXPRESS,
    GIT_LIB,
    LICENSES,
    LOCKFILE,
    TYPES_NODE,
    VULNERABILITIES,
)


def build(**overrides: object) -> SbomDocument:
    kwargs: dict[str, object] = {
        "name": "demo",
        "created": CREATED,
        "tool_version": "0.7.0",
        "licenses": LICENSES,
        "vulnerabilities": VULNERABILITIES,
    }
    kwargs.update(overrides)
    return document_from_lockfile(LOCKFILE, **kwargs)  # type: ignore[arg-type]


def test_one_component_per_distinct_key_in_lockfile_order() -> None:
    doc = build()
    assert [c.key for c in doc.components] == [EXPRESS, BODY_PARSER, TYPES_NODE, GIT_LIB]
    assert doc.edges == LOCKFILE.edges
    assert doc.tool_name == "pkgintel"


def test_duplicate_entries_merge_flags() -> None:
    body_parser = {c.key: c for c in build().components}[BODY_PARSER]
    # One entry is needed at run time, so the package is not dev-only; neither entry is direct.
    assert body_parser.dev is False
    assert body_parser.direct is False


def test_component_fields_come_from_the_lockfile_and_license_map() -> None:
    by_key = {c.key: c for c in build().components}
    assert by_key[EXPRESS] == SbomComponent(
        key=EXPRESS,
        ecosystem=Ecosystem.NPM,
        name="express",
        version="4.18.2",
        purl=EXPRESS,
        license="MIT",
        direct=True,
        dev=False,
    )
    git = by_key[GIT_LIB]
    assert (git.resolved, git.purl, git.version, git.license) == (False, None, None, None)
    assert git.unresolved_reason is not None
    assert "git" in git.unresolved_reason


def test_roots_are_the_direct_components() -> None:
    assert build().roots == (EXPRESS, TYPES_NODE, GIT_LIB)


def test_roots_are_every_component_when_directness_is_unknown() -> None:
    components = tuple(
        SbomComponent(key=k, ecosystem=Ecosystem.PYPI, name=k, version="1") for k in ("a", "b")
    )
    doc = SbomDocument("d", components, (("a", "b"),), (), CREATED, "t", "1")
    assert doc.roots == ("a", "b")


def test_document_rejects_inconsistent_input() -> None:
    component = SbomComponent(key="a", ecosystem=Ecosystem.PYPI, name="a", version="1")
    with pytest.raises(ValueError, match="more than once"):
        SbomDocument("d", (component, component), (), (), CREATED, "t", "1")
    with pytest.raises(ValueError, match="unknown component"):
        SbomDocument("d", (component,), (("a", "zzz"),), (), CREATED, "t", "1")
    with pytest.raises(ValueError, match="affects unknown"):
        SbomDocument(
            "d", (component,), (), (SbomVulnerability("X-1", affects=("zzz",)),), CREATED, "t", "1"
        )
    with pytest.raises(ValueError, match="timezone-aware"):
        SbomDocument("d", (component,), (), (), datetime(2026, 1, 1), "t", "1")


def test_vulnerability_rejects_unknown_severity_and_bad_score() -> None:
    with pytest.raises(ValueError, match="severity"):
        SbomVulnerability("X-1", severity="moderate")
    with pytest.raises(ValueError, match="0-10"):
        SbomVulnerability("X-1", cvss_score=11.0)


def test_document_uuid_is_stable_and_content_sensitive() -> None:
    doc = build()
    assert document_uuid(doc) == document_uuid(build())
    assert document_uuid(doc) != document_uuid(build(created=CREATED + timedelta(seconds=1)))
    assert document_uuid(doc) != document_uuid(build(licenses={}))
    changed = dataclasses.replace(doc, edges=doc.edges[:1])
    assert document_uuid(doc) != document_uuid(changed)
