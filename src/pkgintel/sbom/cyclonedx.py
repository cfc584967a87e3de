"""
CycloneDX 1.6 JSON from an `SbomDocument`, built with cyclonedx-python-lib.

Specification: https://cyclonedx.org/docs/1.6/json/ (schema bundled with the library).

How the document maps (choices worth knowing):

- The document itself is `metadata.component` (type `application`, bom-ref `ROOT_REF`); it depends on
  `SbomDocument.roots`, so the graph has a single entry point as CycloneDX expects.
- Each component's `bom-ref` is its key (the purl for registry packages), so references are stable
  and readable. Unresolved entries are components too, without a purl, with the property
  `pkgintel:unresolved_reason`.
- Scope: `dev=True` → `excluded`, `dev=False` → `required`, unknown → no scope. CycloneDX 1.6 defines
  `excluded` as "component usage for test and other non-runtime purposes", which is what a dev
  dependency is; `optional` means "not installed/not callable at run time", which is not.
- Licenses: an SPDX id becomes `license.id`, a valid compound expression `expression`, anything else
  `license.name` (free text, as the registry stated it).
- Vulnerabilities: `ratings` carry severity, score and vector, with the method read from the vector
  prefix (`CVSS:3.0` → CVSSv3, `CVSS:3.1` → CVSSv31, `CVSS:4.0` → CVSSv4, `CVSS:2.0` → CVSSv2, other →
  `other`); the library writes the vector without that prefix, since `method` carries it;
  `affects` points at component bom-refs; `recommendation` says "Upgrade to X" from
  `fixed_in`; `references` list the aliases; `source.url` is the advisory URL.
- `serialNumber` is `urn:uuid:` + `document_uuid(doc)`: the same document gives identical bytes.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Final

from cyclonedx.contrib.license.factories import LicenseFactory
from cyclonedx.model import Property, XsUri
from cyclonedx.model.bom import Bom, BomMetaData
from cyclonedx.model.component import Component, ComponentScope, ComponentType
from cyclonedx.model.dependency import Dependency
from cyclonedx.model.impact_analysis import ImpactAnalysisAffectedStatus
from cyclonedx.model.tool import ToolRepository
from cyclonedx.model.vulnerability import (
    BomTarget,
    BomTargetVersionRange,
    Vulnerability,
    VulnerabilityRating,
    VulnerabilityReference,
    VulnerabilityScoreSource,
    VulnerabilitySeverity,
    VulnerabilitySource,
)
from cyclonedx.output.json import JsonV1Dot6
from packageurl import PackageURL

from pkgintel.sbom.base import SbomComponent, SbomDocument, SbomVulnerability, document_uuid

ROOT_REF: Final = "pkgintel:document"
"""bom-ref of `metadata.component`, the document's subject."""

UNRESOLVED_PROPERTY: Final = "pkgintel:unresolved_reason"

_SEVERITY: Final[dict[str, VulnerabilitySeverity]] = {
    "critical": VulnerabilitySeverity.CRITICAL,
    "high": VulnerabilitySeverity.HIGH,
    "medium": VulnerabilitySeverity.MEDIUM,
    "low": VulnerabilitySeverity.LOW,
    "none": VulnerabilitySeverity.NONE,
}

# Well-known id prefixes → (source name, URL template). Other ids get no invented source URL.
_KNOWN_SOURCES: Final[dict[str, tuple[str, str]]] = {
    "CVE-": ("NVD", "https://nvd.nist.gov/vuln/detail/{id}"),
    "GHSA-": ("GitHub Advisory Database", "https://github.com/advisories/{id}"),
}


def to_cyclonedx(doc: SbomDocument) -> dict[str, Any]:
    """
    The CycloneDX 1.6 JSON document (as a dict) for `doc`.

    Raises `ValueError` when a component key collides with `ROOT_REF` or a component's purl does not
    parse; cyclonedx-python-lib's own exceptions for data its model rejects.
    """
    if any(c.key == ROOT_REF for c in doc.components):
        raise ValueError(f"component key {ROOT_REF!r} is reserved for the document itself")

    root = Component(type=ComponentType.APPLICATION, name=doc.name, bom_ref=ROOT_REF)
    tool = Component(type=ComponentType.APPLICATION, name=doc.tool_name, version=doc.tool_version)
    licenses = LicenseFactory()
    components = {c.key: _component(c, licenses) for c in doc.components}
    versions = {c.key: c.version for c in doc.components}

    children: dict[str, list[str]] = {}
    for parent, child in doc.edges:
        children.setdefault(parent, []).append(child)
    children[ROOT_REF] = list(doc.roots)
    by_ref = {**components, ROOT_REF: root}
    dependencies = [
        Dependency(
            ref=by_ref[ref].bom_ref,
            dependencies=[Dependency(ref=by_ref[child].bom_ref) for child in children.get(ref, ())],
        )
        for ref in (ROOT_REF, *components)
    ]

    bom = Bom(
        serial_number=document_uuid(doc),
        version=1,
        metadata=BomMetaData(
            timestamp=doc.created,
            tools=ToolRepository(components=[tool]),
            component=root,
        ),
        components=components.values(),
        dependencies=dependencies,
        vulnerabilities=[_vulnerability(v, versions) for v in doc.vulnerabilities],
    )
    data: dict[str, Any] = json.loads(JsonV1Dot6(bom).output_as_string())
    return data


def _component(c: SbomComponent, licenses: LicenseFactory) -> Component:
    try:
        purl = PackageURL.from_string(c.purl) if c.purl else None
    except ValueError as exc:
        raise ValueError(f"component {c.key!r}: invalid purl {c.purl!r}: {exc}") from exc
    scope = (
        None if c.dev is None else (ComponentScope.EXCLUDED if c.dev else ComponentScope.REQUIRED)
    )
    properties = []
    if not c.resolved:
        properties.append(
            Property(name=UNRESOLVED_PROPERTY, value=c.unresolved_reason or "not resolved")
        )
    return Component(
        type=ComponentType.LIBRARY,
        name=c.name,
        version=c.version,
        bom_ref=c.key,
        purl=purl,
        scope=scope,
        licenses=[licenses.make_from_string(c.license)] if c.license else None,
        properties=properties,
    )


def _vulnerability(v: SbomVulnerability, versions: dict[str, str | None]) -> Vulnerability:
    """`versions`: component key → version, for the `affects` version ranges."""
    ratings = []
    if v.severity is not None or v.cvss_score is not None or v.cvss_vector:
        ratings.append(
            VulnerabilityRating(
                score=Decimal(str(v.cvss_score)) if v.cvss_score is not None else None,
                severity=_SEVERITY[v.severity] if v.severity is not None else None,
                method=(
                    VulnerabilityScoreSource.get_from_vector(v.cvss_vector)
                    if v.cvss_vector
                    else None
                ),
                vector=v.cvss_vector or None,
            )
        )
    affects = []
    for key in v.affects:
        version = versions[key]
        ranges = (
            [BomTargetVersionRange(version=version, status=ImpactAnalysisAffectedStatus.AFFECTED)]
            if version
            else None
        )
        affects.append(BomTarget(ref=key, versions=ranges))
    return Vulnerability(
        bom_ref=f"vulnerability:{v.id}",
        id=v.id,
        source=_source(v.id, v.url),
        references=[VulnerabilityReference(id=a, source=_source(a, None)) for a in v.aliases],
        ratings=ratings,
        description=v.summary or None,
        recommendation=f"Upgrade to {' or '.join(v.fixed_in)}" if v.fixed_in else None,
        published=v.published,
        updated=v.modified,
        affects=affects,
    )


def _source(identifier: str, url: str | None) -> VulnerabilitySource:
    """The source of an advisory id: named and linked for CVE/GHSA ids, else only the given URL."""
    for prefix, (name, template) in _KNOWN_SOURCES.items():
        if identifier.upper().startswith(prefix):
            return VulnerabilitySource(name=name, url=XsUri(url or template.format(id=identifier)))
    return VulnerabilitySource(url=XsUri(url) if url else None)
