"""
SPDX 2.3 JSON from an `SbomDocument`, built, validated and written with spdx-tools.

Specification: https://spdx.github.io/spdx-spec/v2.3/ (JSON schema in spdx/spdx-spec `schemas/`).

How the document maps (choices worth knowing):

- `documentNamespace` is `DEFAULT_NAMESPACE_PREFIX` + a slug of the name + `document_uuid(doc)`,
  unless the caller passes `namespace`; the same document always gets the same namespace, and two
  different documents never share one.
- One package per component. `SPDXID` is `SPDXRef-Package-` + the key with every character other
  than letters, digits, `.` and `-` replaced by `-`; keys that would collide that way get a short
  hash of the key appended, so every id is unique and stable. `downloadLocation` is NOASSERTION
  (a lockfile's `resolved` URL is not something we verified) and `filesAnalyzed` is false.
- Licenses: `licenseDeclared` is the component's license parsed as an SPDX expression (SPDX license
  list ids only); NOASSERTION when unknown or unparseable, with the original text kept in
  `licenseComments`. `licenseConcluded` is always NOASSERTION: the registry *declares* a license,
  and we have not reviewed anything to *conclude* one.
- `externalRefs`: the purl (`PACKAGE_MANAGER`/`purl`) for resolved packages; for each vulnerability
  with a URL, a `SECURITY`/`advisory` reference (SPDX 2.3 Annex F). Unresolved entries have no purl
  and say why in `comment`.
- Relationships: `SPDXRef-DOCUMENT DESCRIBES` each of `SbomDocument.roots` (`DESCRIBES NONE` for an
  empty document), and `parent DEPENDS_ON child` for each edge.
- Vulnerabilities are not part of the SPDX 2.3 core model (they arrive with SPDX 3's security
  profile). Each affected package carries, besides the advisory reference above, one annotation
  (type OTHER, by the tool, dated `created`) stating the id, aliases, severity, CVSS score and
  vector, fixed versions and URL, so no fact is lost in the SPDX form.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Final

from license_expression import ExpressionError, LicenseExpression
from spdx_tools.common.spdx_licensing import spdx_licensing
from spdx_tools.spdx.model import (
    Actor,
    ActorType,
    Annotation,
    AnnotationType,
    CreationInfo,
    Document,
    ExternalPackageRef,
    ExternalPackageRefCategory,
    Package,
    PackagePurpose,
    Relationship,
    RelationshipType,
    SpdxNoAssertion,
    SpdxNone,
)
from spdx_tools.spdx.validation.actor_validator import validate_actor
from spdx_tools.spdx.validation.creation_info_validator import validate_creation_info
from spdx_tools.spdx.validation.license_expression_validator import validate_license_expression
from spdx_tools.spdx.validation.package_validator import validate_package
from spdx_tools.spdx.validation.spdx_id_validators import is_valid_internal_spdx_id
from spdx_tools.spdx.writer.json.json_writer import write_document_to_stream

from pkgintel.sbom.base import SbomComponent, SbomDocument, SbomVulnerability, document_uuid

SPDX_VERSION: Final = "SPDX-2.3"
DOCUMENT_ID: Final = "SPDXRef-DOCUMENT"
DEFAULT_NAMESPACE_PREFIX: Final = "https://pkgintel.dev/spdx/"
PACKAGE_ID_PREFIX: Final = "SPDXRef-Package-"

_UNSAFE_ID_CHARS: Final = re.compile(r"[^A-Za-z0-9.-]+")
_UNSAFE_SLUG_CHARS: Final = re.compile(r"[^A-Za-z0-9._-]+")


def to_spdx(doc: SbomDocument, *, namespace: str | None = None) -> dict[str, Any]:
    """
    The SPDX 2.3 JSON document (as a dict) for `doc`, validated with spdx-tools.

    `namespace` overrides the derived `documentNamespace` (it must be a unique absolute URI without
    `#`). Raises `ValueError` listing spdx-tools' messages when the document does not validate
    (for instance an unusable `namespace`).
    """
    ids = spdx_ids(doc)
    tool = Actor(ActorType.TOOL, f"{doc.tool_name}-{doc.tool_version}")
    created = doc.created.replace(microsecond=0)
    creation_info = CreationInfo(
        spdx_version=SPDX_VERSION,
        spdx_id=DOCUMENT_ID,
        name=doc.name,
        document_namespace=namespace or default_namespace(doc),
        creators=[tool],
        created=created,
        data_license="CC0-1.0",
    )
    affecting: dict[str, list[SbomVulnerability]] = {}
    for vuln in doc.vulnerabilities:
        for key in vuln.affects:
            affecting.setdefault(key, []).append(vuln)

    packages = [_package(c, ids[c.key], affecting.get(c.key, ())) for c in doc.components]
    annotations = [
        Annotation(ids[key], AnnotationType.OTHER, tool, created, _vulnerability_note(vuln))
        for key, vulns in affecting.items()
        for vuln in vulns
    ]
    relationships = [
        Relationship(DOCUMENT_ID, RelationshipType.DESCRIBES, ids[key]) for key in doc.roots
    ] or [Relationship(DOCUMENT_ID, RelationshipType.DESCRIBES, SpdxNone())]
    relationships += [
        Relationship(ids[parent], RelationshipType.DEPENDS_ON, ids[child])
        for parent, child in doc.edges
    ]
    document = Document(
        creation_info=creation_info,
        packages=packages,
        relationships=relationships,
        annotations=annotations,
    )

    messages = validate_document(document)
    if messages:
        raise ValueError(f"SPDX document {doc.name!r} is not valid: {'; '.join(messages)}")
    buffer = io.StringIO()
    write_document_to_stream(document, buffer, validate=False, drop_duplicates=False)
    data: dict[str, Any] = json.loads(buffer.getvalue())
    return data


def validate_document(document: Document) -> list[str]:
    """
    The problems spdx-tools' `validate_full_spdx_document` would report for a document of the shape
    `to_spdx` builds (packages, relationships and annotations; no files, snippets or extracted
    licences), found in one pass. Empty when the document is valid.

    The full validator looks every referenced id up in a fresh list of all ids, and every package's
    CONTAINS relationships up in all relationships: quadratic, 80 % of the time of a 1,500-package
    document. This check uses spdx-tools' own validators for the creation info, each package, each
    licence expression and each annotator, and a set for the id checks. The tests compare it with
    the full validator on every real lockfile in the shared data.
    """
    version = document.creation_info.spdx_version
    messages = [
        m.validation_message for m in validate_creation_info(document.creation_info, version)
    ]
    doc_id = document.creation_info.spdx_id
    known = {doc_id}
    for package in document.packages:
        if package.spdx_id in known:
            messages.append(f"duplicate spdx_id {package.spdx_id}")
        known.add(package.spdx_id)
        if not is_valid_internal_spdx_id(package.spdx_id):
            messages.append(f"invalid spdx_id {package.spdx_id!r}")
        messages += [m.validation_message for m in validate_package(package, version)]
        for expression in (package.license_concluded, package.license_declared):
            messages += [
                m.validation_message
                for m in validate_license_expression(expression, document, package.spdx_id)
            ]
    for rel in document.relationships:
        for ref in (rel.spdx_element_id, rel.related_spdx_element_id):
            if isinstance(ref, str) and ref not in known:
                messages.append(f"relationship refers to unknown spdx_id {ref!r}")
    for note in document.annotations:
        if note.spdx_id not in known:
            messages.append(f"annotation refers to unknown spdx_id {note.spdx_id!r}")
        messages += [m.validation_message for m in validate_actor(note.annotator, "annotation")]
    describes = any(
        r.relationship_type is RelationshipType.DESCRIBES and r.spdx_element_id == doc_id
        for r in document.relationships
    )
    if len(document.packages) != 1 and not describes:
        messages.append(f"no relationship {doc_id} DESCRIBES ...")
    return messages


def default_namespace(doc: SbomDocument) -> str:
    """`DEFAULT_NAMESPACE_PREFIX` + `<name slug>-<document_uuid>`: unique per content, reproducible."""
    slug = _UNSAFE_SLUG_CHARS.sub("-", doc.name).strip("-") or "sbom"
    return f"{DEFAULT_NAMESPACE_PREFIX}{slug}-{document_uuid(doc)}"


def spdx_ids(doc: SbomDocument) -> dict[str, str]:
    """
    Component key → SPDXID (`SPDXRef-Package-<key made safe>`), unique within the document.

    Keys whose safe form collides with another's (`a_b` and `a-b`) get `-<12 hex of sha256(key)>`
    appended, all of them, so an id does not depend on the order of the components.
    """
    safe = {c.key: _UNSAFE_ID_CHARS.sub("-", c.key).strip("-") for c in doc.components}
    counts = Counter(safe.values())
    ids = {}
    for key, value in safe.items():
        if not value or counts[value] > 1:
            digest = hashlib.sha256(key.encode()).hexdigest()[:12]
            value = f"{value}-{digest}" if value else digest
        ids[key] = f"{PACKAGE_ID_PREFIX}{value}"
    if len(set(ids.values())) != len(ids):  # only possible if a key's safe form ends like a hash
        raise ValueError("cannot derive unique SPDX ids for these component keys")
    return ids


def parse_license(text: str | None) -> LicenseExpression | None:
    """
    `text` as an SPDX license expression made only of SPDX license-list ids (and exceptions),
    normalised (`mit or apache-2.0` → `MIT OR Apache-2.0`); None when empty or not such an expression.
    """
    if not text or not text.strip():
        return None
    try:
        parsed = spdx_licensing.parse(text, validate=True, strict=True)
    except ExpressionError:
        return None
    return parsed if isinstance(parsed, LicenseExpression) else None


def _package(c: SbomComponent, spdx_id: str, vulns: Iterable[SbomVulnerability]) -> Package:
    declared = parse_license(c.license)
    refs = []
    if c.purl:
        refs.append(ExternalPackageRef(ExternalPackageRefCategory.PACKAGE_MANAGER, "purl", c.purl))
    refs += [
        ExternalPackageRef(ExternalPackageRefCategory.SECURITY, "advisory", v.url)
        for v in vulns
        if v.url
    ]
    return Package(
        spdx_id=spdx_id,
        name=c.name,
        download_location=SpdxNoAssertion(),
        version=c.version,
        files_analyzed=False,
        license_concluded=SpdxNoAssertion(),
        license_declared=declared if declared is not None else SpdxNoAssertion(),
        license_comment=(
            f"License as stated by the registry, not an SPDX expression: {c.license}"
            if c.license and declared is None
            else None
        ),
        external_references=refs,
        comment=(
            None
            if c.resolved
            else f"Unresolved: {c.unresolved_reason or 'not one registry version'}"
        ),
        primary_package_purpose=PackagePurpose.LIBRARY,
    )


def _vulnerability_note(v: SbomVulnerability) -> str:
    """The facts of one vulnerability as one line of text for an SPDX annotation."""
    parts = [f"Vulnerability {v.id}"]
    if v.aliases:
        parts.append(f"aliases: {', '.join(v.aliases)}")
    if v.summary:
        parts.append(f"summary: {v.summary}")
    if v.severity:
        parts.append(f"severity: {v.severity}")
    if v.cvss_score is not None:
        parts.append(f"CVSS score: {v.cvss_score}")
    if v.cvss_vector:
        parts.append(f"CVSS vector: {v.cvss_vector}")
    parts.append(f"fixed in: {', '.join(v.fixed_in)}" if v.fixed_in else "no fixed version known")
    if v.url:
        parts.append(f"details: {v.url}")
    return "; ".join(parts)
