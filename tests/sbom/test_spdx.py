"""
SPDX 2.3 output of a hand-written document: it re-parses and validates with spdx-tools, and each
fact of the input lands where the mapping in `pkgintel.sbom.spdx` says.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from spdx_tools.spdx.model import Annotation, Document, RelationshipType
from spdx_tools.spdx.parser.jsonlikedict.json_like_dict_parser import JsonLikeDictParser
from spdx_tools.spdx.validation.document_validator import validate_full_spdx_document

from pkgintel.domain.packages import Ecosystem
from pkgintel.sbom.base import SbomComponent, SbomDocument, document_from_lockfile
from pkgintel.sbom.spdx import (
    DEFAULT_NAMESPACE_PREFIX,
    parse_license,
    spdx_ids,
    to_spdx,
    validate_document,
)

from .samples import (
    BODY_PARSER,
    BODY_PARSER_DOS,
    CREATED,
    EXPRESS,
    GIT_LIB,
    LICENSES,
    LOCKFILE,
    TYPES_NODE,
    VULNERABILITIES,
)


def reparse_valid(data: dict[str, Any]) -> Document:
    """The document spdx-tools reads back from `data` (through JSON text); fails unless it validates."""
    parsed = JsonLikeDictParser().parse(json.loads(json.dumps(data)))
    messages = validate_full_spdx_document(parsed)
    assert messages == [], [m.validation_message for m in messages]
    return parsed


def relationship_pairs(parsed: Document, kind: RelationshipType) -> set[tuple[str, str]]:
    return {
        (r.spdx_element_id, str(r.related_spdx_element_id))
        for r in parsed.relationships
        if r.relationship_type == kind
    }


@pytest.fixture
def doc() -> SbomDocument:
    return document_from_lockfile(
        LOCKFILE,
        name="demo app",
        created=CREATED,
        tool_version="0.7.0",
        licenses=LICENSES,
        vulnerabilities=VULNERABILITIES,
    )


@pytest.fixture
def spdx(doc: SbomDocument) -> dict[str, Any]:
    return to_spdx(doc)


def test_output_reparses_and_validates(spdx: dict[str, Any]) -> None:
    parsed = reparse_valid(spdx)
    assert spdx["spdxVersion"] == "SPDX-2.3"
    assert spdx["dataLicense"] == "CC0-1.0"
    assert spdx["creationInfo"] == {
        "created": "2026-11-22T12:00:00Z",
        "creators": ["Tool: pkgintel-0.7.0"],
    }
    assert len(parsed.packages) == 4


def test_namespace_is_derived_and_reproducible(doc: SbomDocument, spdx: dict[str, Any]) -> None:
    namespace = spdx["documentNamespace"]
    assert re.fullmatch(re.escape(DEFAULT_NAMESPACE_PREFIX) + r"demo-app-[0-9a-f-]{36}", namespace)
    assert to_spdx(doc) == spdx
    assert to_spdx(doc, namespace="https://example.com/sboms/1")["documentNamespace"] == (
        "https://example.com/sboms/1"
    )


def test_invalid_namespace_raises_value_error_with_messages(doc: SbomDocument) -> None:
    with pytest.raises(ValueError, match="document_namespace"):
        to_spdx(doc, namespace="not a uri#fragment")


def test_spdx_ids_are_safe_and_unique(spdx: dict[str, Any]) -> None:
    ids = [p["SPDXID"] for p in spdx["packages"]]
    assert all(re.fullmatch(r"SPDXRef-[A-Za-z0-9.-]+", i) for i in ids)
    assert len(set(ids)) == len(ids)
    assert "SPDXRef-Package-pkg-npm-express-4.18.2" in ids


def test_colliding_keys_get_hash_suffixes() -> None:
    components = tuple(
        SbomComponent(key=k, ecosystem=Ecosystem.PYPI, name=k, version=None, resolved=False)
        for k in ("a_b", "a-b", "c")
    )
    doc = SbomDocument("d", components, (), (), CREATED, "pkgintel", "0.7.0")
    ids = spdx_ids(doc)
    assert ids["c"] == "SPDXRef-Package-c"
    assert ids["a_b"] != ids["a-b"]
    assert all(re.fullmatch(r"SPDXRef-Package-a-b-[0-9a-f]{12}", ids[k]) for k in ("a_b", "a-b"))
    reparse_valid(to_spdx(doc))


def test_packages_carry_version_purl_and_download_location(spdx: dict[str, Any]) -> None:
    by_name = {p["name"]: p for p in spdx["packages"]}
    express = by_name["express"]
    assert express["versionInfo"] == "4.18.2"
    assert express["downloadLocation"] == "NOASSERTION"
    assert express["filesAnalyzed"] is False
    assert express["externalRefs"] == [
        # `PACKAGE_MANAGER`: the SPDX 2.3 JSON schema's spelling (the spec's prose says PACKAGE-MANAGER)
        {
            "referenceCategory": "PACKAGE_MANAGER",
            "referenceLocator": EXPRESS,
            "referenceType": "purl",
        }
    ]
    git = by_name["my-git-lib"]
    assert "externalRefs" not in git
    assert "versionInfo" not in git
    assert git["comment"] == "Unresolved: git dependency (github:acme/my-git-lib#main)"


def test_declared_licenses_parse_or_fall_back_to_noassertion(spdx: dict[str, Any]) -> None:
    by_name = {p["name"]: p for p in spdx["packages"]}
    assert by_name["express"]["licenseDeclared"] == "MIT"
    assert by_name["body-parser"]["licenseDeclared"] == "MIT"  # `mit` normalised
    assert by_name["@types/node"]["licenseDeclared"] == "NOASSERTION"
    assert "MIT License" in by_name["@types/node"]["licenseComments"]
    assert by_name["my-git-lib"]["licenseDeclared"] == "NOASSERTION"
    assert {p["licenseConcluded"] for p in spdx["packages"]} == {"NOASSERTION"}


def test_parse_license() -> None:
    assert str(parse_license("mit OR apache-2.0")) == "MIT OR Apache-2.0"
    assert str(parse_license("Apache-2.0 WITH LLVM-exception")) == "Apache-2.0 WITH LLVM-exception"
    for text in (
        None,
        "",
        "Apache 2.0",
        "MIT License",
        "LicenseRef-custom",
        "SEE LICENSE IN x",
        "MIT AND",
    ):
        assert parse_license(text) is None


def test_relationships_describe_roots_and_follow_edges(
    doc: SbomDocument, spdx: dict[str, Any]
) -> None:
    parsed = reparse_valid(spdx)
    ids = spdx_ids(doc)
    assert relationship_pairs(parsed, RelationshipType.DESCRIBES) == {
        ("SPDXRef-DOCUMENT", ids[key]) for key in (EXPRESS, TYPES_NODE, GIT_LIB)
    }
    assert relationship_pairs(parsed, RelationshipType.DEPENDS_ON) == {
        (ids[parent], ids[child]) for parent, child in LOCKFILE.edges
    }


def test_vulnerabilities_become_annotations_and_advisory_refs(
    doc: SbomDocument, spdx: dict[str, Any]
) -> None:
    ids = spdx_ids(doc)
    by_id = {p["SPDXID"]: p for p in spdx["packages"]}
    body_parser = by_id[ids[BODY_PARSER]]
    assert {
        "referenceCategory": "SECURITY",
        "referenceLocator": BODY_PARSER_DOS.url,
        "referenceType": "advisory",
    } in body_parser["externalRefs"]
    notes = [a["comment"] for a in body_parser["annotations"]]
    assert len(notes) == 2  # GHSA-qwcr-r2fm-qrc7 and PKGINTEL-TEST-0002
    ghsa = next(n for n in notes if n.startswith("Vulnerability GHSA-qwcr-r2fm-qrc7"))
    for fact in ("CVE-2024-45590", "severity: high", "CVSS score: 7.5", "fixed in: 1.20.3"):
        assert fact in ghsa
    assert all(a["annotationType"] == "OTHER" for a in body_parser["annotations"])
    assert "annotations" not in by_id[ids[TYPES_NODE]]  # not affected


def test_empty_document_describes_none() -> None:
    empty = SbomDocument("empty", (), (), (), CREATED, "pkgintel", "0.7.0")
    data = to_spdx(empty)
    parsed = reparse_valid(data)
    assert relationship_pairs(parsed, RelationshipType.DESCRIBES) == {("SPDXRef-DOCUMENT", "NONE")}
    assert parsed.packages == []


def _broken(spdx: dict[str, Any], how: str) -> Document:
    data = json.loads(json.dumps(spdx))
    first, second = data["packages"][0], data["packages"][1]
    if how == "duplicate id":
        second["SPDXID"] = first["SPDXID"]
    elif how == "dangling relationship":
        data["relationships"][-1]["relatedSpdxElement"] = "SPDXRef-Package-nowhere"
    elif how == "bad purl":
        first["externalRefs"] = [
            {
                "referenceCategory": "PACKAGE-MANAGER",
                "referenceType": "purl",
                "referenceLocator": "not a purl",
            }
        ]
    elif how == "no describes":
        data["relationships"] = [
            r for r in data["relationships"] if r["relationshipType"] != "DESCRIBES"
        ]
    elif how == "bad namespace":
        data["documentNamespace"] = "urn:x#frag"
    parsed = JsonLikeDictParser().parse(data)
    if how == "dangling annotation":
        note = parsed.annotations[0]
        parsed.annotations.append(
            Annotation(
                "SPDXRef-Package-gone",
                note.annotation_type,
                note.annotator,
                note.annotation_date,
                note.annotation_comment,
            )
        )
    return parsed


@pytest.mark.parametrize(
    "how",
    [
        "duplicate id",
        "dangling relationship",
        "dangling annotation",
        "bad purl",
        "no describes",
        "bad namespace",
    ],
)
def test_one_pass_validation_flags_what_the_full_validator_flags(
    spdx: dict[str, Any], how: str
) -> None:
    broken = _broken(spdx, how)
    assert validate_full_spdx_document(broken) != []
    assert validate_document(broken) != []


def test_one_pass_validation_passes_a_valid_document(spdx: dict[str, Any]) -> None:
    parsed = reparse_valid(spdx)
    assert validate_document(parsed) == []
