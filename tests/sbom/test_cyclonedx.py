"""
CycloneDX 1.6 output of a hand-written document: schema-valid (strict, offline), and each fact of the
input lands where the mapping in `pkgintel.sbom.cyclonedx` says.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator

from pkgintel.sbom.base import SbomDocument, document_from_lockfile, document_uuid
from pkgintel.sbom.cyclonedx import ROOT_REF, UNRESOLVED_PROPERTY, to_cyclonedx

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


def assert_valid_cyclonedx(data: dict[str, Any]) -> None:
    """Fails with the schema's messages unless `data` is strictly valid CycloneDX 1.6."""
    errors = JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(data), all_errors=True)
    assert errors is None, [str(e) for e in errors or ()]


def dependency_pairs(data: dict[str, Any]) -> set[tuple[str, str]]:
    return {(d["ref"], child) for d in data["dependencies"] for child in d.get("dependsOn", ())}


@pytest.fixture
def doc() -> SbomDocument:
    return document_from_lockfile(
        LOCKFILE,
        name="demo",
        created=CREATED,
        tool_version="0.7.0",
        licenses=LICENSES,
        vulnerabilities=VULNERABILITIES,
    )


@pytest.fixture
def bom(doc: SbomDocument) -> dict[str, Any]:
    return to_cyclonedx(doc)


def test_output_is_strictly_valid_cyclonedx_1_6_without_network(
    bom: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the validator tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert bom["specVersion"] == "1.6"
    assert bom["bomFormat"] == "CycloneDX"
    assert_valid_cyclonedx(bom)


def test_validator_rejects_a_broken_document(bom: dict[str, Any]) -> None:
    broken = {**bom, "components": [{**bom["components"][0], "scope": "dev"}]}
    errors = JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(broken))
    assert errors is not None


def test_metadata_names_document_tool_and_time(bom: dict[str, Any], doc: SbomDocument) -> None:
    assert bom["serialNumber"] == f"urn:uuid:{document_uuid(doc)}"
    assert bom["metadata"]["component"] == {
        "bom-ref": ROOT_REF,
        "name": "demo",
        "type": "application",
    }
    assert bom["metadata"]["tools"]["components"][0]["name"] == "pkgintel"
    assert bom["metadata"]["tools"]["components"][0]["version"] == "0.7.0"
    assert bom["metadata"]["timestamp"].startswith("2026-11-22T12:00:00")


def test_components_use_keys_as_refs_and_map_scope(bom: dict[str, Any]) -> None:
    by_ref = {c["bom-ref"]: c for c in bom["components"]}
    assert set(by_ref) == {EXPRESS, BODY_PARSER, TYPES_NODE, GIT_LIB}
    assert by_ref[EXPRESS]["purl"] == EXPRESS
    assert by_ref[EXPRESS]["scope"] == "required"
    assert by_ref[TYPES_NODE]["scope"] == "excluded"  # dev-only
    assert by_ref[TYPES_NODE]["name"] == "@types/node"


def test_unresolved_entry_is_a_component_without_purl(bom: dict[str, Any]) -> None:
    git = next(c for c in bom["components"] if c["bom-ref"] == GIT_LIB)
    assert "purl" not in git
    assert "version" not in git
    assert git["properties"] == [
        {"name": UNRESOLVED_PROPERTY, "value": "git dependency (github:acme/my-git-lib#main)"}
    ]


def test_licenses_by_id_or_free_text(bom: dict[str, Any]) -> None:
    by_ref = {c["bom-ref"]: c for c in bom["components"]}
    assert by_ref[EXPRESS]["licenses"] == [{"license": {"id": "MIT"}}]
    assert by_ref[TYPES_NODE]["licenses"] == [{"license": {"name": "MIT License"}}]
    assert "licenses" not in by_ref[GIT_LIB]


def test_dependencies_are_the_edges_plus_the_document_root(bom: dict[str, Any]) -> None:
    pairs = dependency_pairs(bom)
    assert {p for p in pairs if p[0] != ROOT_REF} == set(LOCKFILE.edges)
    assert {child for parent, child in pairs if parent == ROOT_REF} == {
        EXPRESS,
        TYPES_NODE,
        GIT_LIB,
    }
    # every component has its own entry, leaves included
    assert {d["ref"] for d in bom["dependencies"]} == {
        ROOT_REF,
        EXPRESS,
        BODY_PARSER,
        TYPES_NODE,
        GIT_LIB,
    }


def test_vulnerability_fields(bom: dict[str, Any]) -> None:
    vuln = next(v for v in bom["vulnerabilities"] if v["id"] == BODY_PARSER_DOS.id)
    assert vuln["affects"] == [
        {"ref": BODY_PARSER, "versions": [{"status": "affected", "version": "1.20.1"}]}
    ]
    assert vuln["ratings"] == [
        {
            "method": "CVSSv31",
            "score": 7.5,
            "severity": "high",
            # the library writes the vector without its `CVSS:3.1/` prefix: `method` carries it
            "vector": "AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
        }
    ]
    assert vuln["recommendation"] == "Upgrade to 1.20.3"
    assert vuln["source"] == {
        "name": "GitHub Advisory Database",
        "url": "https://github.com/advisories/GHSA-qwcr-r2fm-qrc7",
    }
    assert vuln["references"] == [
        {
            "id": "CVE-2024-45590",
            "source": {"name": "NVD", "url": "https://nvd.nist.gov/vuln/detail/CVE-2024-45590"},
        }
    ]
    assert vuln["description"] == BODY_PARSER_DOS.summary
    assert vuln["published"].startswith("2024-09-10T16:00:00")
    assert vuln["updated"].startswith("2024-11-18T16:27:00")


def test_scoring_method_follows_the_vector_prefix(bom: dict[str, Any]) -> None:
    methods = {
        v["id"]: [r.get("method") for r in v.get("ratings", [])] for v in bom["vulnerabilities"]
    }
    assert methods == {
        "GHSA-qwcr-r2fm-qrc7": ["CVSSv31"],
        "PKGINTEL-TEST-0001": ["CVSSv4"],
        "PKGINTEL-TEST-0002": ["CVSSv3"],
    }
    v4 = next(v for v in bom["vulnerabilities"] if v["id"] == "PKGINTEL-TEST-0001")
    assert v4["recommendation"] == "Upgrade to 4.19.2 or 5.0.1"
    assert "source" not in v4 or not v4["source"].get("url")  # no URL is invented
    v30 = next(v for v in bom["vulnerabilities"] if v["id"] == "PKGINTEL-TEST-0002")
    assert {a["ref"] for a in v30["affects"]} == {EXPRESS, BODY_PARSER}
    assert "severity" not in v30["ratings"][0]  # unknown stays unknown


def test_output_is_reproducible(doc: SbomDocument) -> None:
    assert json.dumps(to_cyclonedx(doc)) == json.dumps(to_cyclonedx(doc))


def test_empty_document_is_valid(doc: SbomDocument) -> None:
    empty = SbomDocument("empty", (), (), (), CREATED, "pkgintel", "0.7.0")
    data = to_cyclonedx(empty)
    assert_valid_cyclonedx(data)
    assert "components" not in data or data["components"] == []
