"""
Both SBOM formats for every real lockfile of `../shared/data/lockfiles/` (read in place, parametrized
from its MANIFEST.json): the CycloneDX output is strictly valid 1.6, the SPDX output re-parses and
validates, both list one component per distinct package key, their graphs are exactly the lockfile's
edges, and a vulnerability attached to a package points at that package.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from spdx_tools.spdx.model import RelationshipType
from spdx_tools.spdx.parser.jsonlikedict.json_like_dict_parser import JsonLikeDictParser
from spdx_tools.spdx.validation.document_validator import validate_full_spdx_document

from pkgintel.lockfiles import parse_lockfile
from pkgintel.lockfiles.base import ParsedLockfile
from pkgintel.sbom.base import SbomVulnerability, document_from_lockfile
from pkgintel.sbom.cyclonedx import ROOT_REF, to_cyclonedx
from pkgintel.sbom.spdx import spdx_ids, to_spdx
from tests.shared import SHARED_DATA, read_shared_bytes, requires_shared

from .samples import CREATED
from .test_cyclonedx import assert_valid_cyclonedx, dependency_pairs


def manifest_files() -> list[str]:
    path = SHARED_DATA / "lockfiles" / "MANIFEST.json"
    if not path.is_file():
        return []
    return [entry["file"] for entry in json.loads(path.read_text(encoding="utf-8"))]


FILES = manifest_files()


def parse(file: str) -> ParsedLockfile:
    text = read_shared_bytes("lockfiles", file).decode("utf-8")
    return parse_lockfile(text, filename=file.rsplit("/", 1)[-1])


def marker_vulnerability(parsed: ParsedLockfile) -> SbomVulnerability:
    """A made-up advisory on the first resolved package (or the first package)."""
    target = next((p for p in parsed.packages if p.resolved), parsed.packages[0])
    return SbomVulnerability(
        id="PKGINTEL-TEST-REAL",
        summary="marker advisory for the SBOM tests",
        severity="low",
        cvss_score=3.1,
        cvss_vector="CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N",
        url="https://example.com/advisories/PKGINTEL-TEST-REAL",
        fixed_in=("999.0.0",),
        affects=(target.key,),
    )


pytestmark = [requires_shared, pytest.mark.shared, pytest.mark.slow]


@pytest.mark.skipif(not FILES, reason="shared lockfiles MANIFEST.json not found")
@pytest.mark.parametrize("file", FILES)
def test_both_formats_for_real_lockfile(file: str) -> None:
    parsed = parse(file)
    assert parsed.packages, "every file of the set has packages"
    keys = {p.key for p in parsed.packages}
    vuln = marker_vulnerability(parsed)
    doc = document_from_lockfile(
        parsed, name=file, created=CREATED, tool_version="0.7.0", vulnerabilities=(vuln,)
    )

    bom: dict[str, Any] = to_cyclonedx(doc)
    assert_valid_cyclonedx(bom)
    assert len(bom["components"]) == len(keys)
    assert {c["bom-ref"] for c in bom["components"]} == keys
    pairs = dependency_pairs(bom)
    assert {p for p in pairs if p[0] != ROOT_REF} == set(parsed.edges)
    (cdx_vuln,) = bom["vulnerabilities"]
    assert [a["ref"] for a in cdx_vuln["affects"]] == [vuln.affects[0]]
    purls = {c["bom-ref"]: c.get("purl") for c in bom["components"]}
    assert all(purls[p.key] == p.purl for p in parsed.packages)

    spdx = to_spdx(doc)
    reparsed = JsonLikeDictParser().parse(json.loads(json.dumps(spdx)))
    assert validate_full_spdx_document(reparsed) == []
    assert len(reparsed.packages) == len(keys)
    ids = spdx_ids(doc)
    depends_on = {
        (r.spdx_element_id, r.related_spdx_element_id)
        for r in reparsed.relationships
        if r.relationship_type == RelationshipType.DEPENDS_ON
    }
    assert depends_on == {(ids[a], ids[b]) for a, b in parsed.edges}
    affected = next(p for p in spdx["packages"] if p["SPDXID"] == ids[vuln.affects[0]])
    assert [a["comment"].split(";")[0] for a in affected["annotations"]] == [
        "Vulnerability PKGINTEL-TEST-REAL"
    ]
