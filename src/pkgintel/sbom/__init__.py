"""
SBOM output: an `SbomDocument` (values in) becomes a JSON-ready dict (out), pure.

- `base.py`: the input values (`SbomComponent`, `SbomVulnerability`, `SbomDocument`) and
  `document_from_lockfile`, which turns a `ParsedLockfile` into a document.
- `cyclonedx.py`: `to_cyclonedx(doc)`, CycloneDX 1.6 JSON built with cyclonedx-python-lib.
- `spdx.py`: `to_spdx(doc)`, SPDX 2.3 JSON built and validated with spdx-tools.

Output is reproducible: identifiers (serial number, namespace, references) derive from the content.
"""

from __future__ import annotations

from pkgintel.sbom.base import (
    SbomComponent,
    SbomDocument,
    SbomVulnerability,
    document_from_lockfile,
    document_uuid,
)
from pkgintel.sbom.cyclonedx import to_cyclonedx
from pkgintel.sbom.spdx import to_spdx

__all__ = [
    "SbomComponent",
    "SbomDocument",
    "SbomVulnerability",
    "document_from_lockfile",
    "document_uuid",
    "to_cyclonedx",
    "to_spdx",
]
