"""
Hand-written inputs for the SBOM tests: a small npm-style `ParsedLockfile` (a direct runtime package,
a transitive one listed twice, a scoped dev package, an unresolved git entry) and advisories in the
three CVSS vector flavours the writers must tell apart.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile
from pkgintel.sbom.base import SbomVulnerability

CREATED = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)

EXPRESS = "pkg:npm/express@4.18.2"
BODY_PARSER = "pkg:npm/body-parser@1.20.1"
TYPES_NODE = "pkg:npm/%40types/node@20.11.5"
GIT_LIB = "my-git-lib"

NPM = Ecosystem.NPM

LOCKFILE = ParsedLockfile(
    kind="package-lock.json",
    ecosystem=NPM,
    packages=(
        LockedPackage(NPM, "express", "4.18.2", direct=True, dev=False, purl=EXPRESS),
        LockedPackage(NPM, "body-parser", "1.20.1", direct=False, dev=False, purl=BODY_PARSER),
        # The same version installed a second time under another node_modules path, dev-only there.
        LockedPackage(NPM, "body-parser", "1.20.1", direct=False, dev=True, purl=BODY_PARSER),
        LockedPackage(NPM, "@types/node", "20.11.5", direct=True, dev=True, purl=TYPES_NODE),
        LockedPackage(
            NPM,
            "my-git-lib",
            None,
            direct=True,
            dev=False,
            resolved=False,
            unresolved_reason="git dependency (github:acme/my-git-lib#main)",
            source="git",
        ),
    ),
    edges=((EXPRESS, BODY_PARSER), (EXPRESS, GIT_LIB)),
)

LICENSES = {
    EXPRESS: "MIT",
    BODY_PARSER: "mit",  # lower case on purpose: SPDX writes the canonical `MIT`
    TYPES_NODE: "MIT License",  # not an SPDX expression
}

BODY_PARSER_DOS = SbomVulnerability(
    id="GHSA-qwcr-r2fm-qrc7",
    aliases=("CVE-2024-45590",),
    summary="body-parser vulnerable to denial of service when url encoding is enabled",
    severity="high",
    cvss_score=7.5,
    cvss_vector="CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H",
    url="https://github.com/advisories/GHSA-qwcr-r2fm-qrc7",
    fixed_in=("1.20.3",),
    published=datetime(2024, 9, 10, 16, 0, tzinfo=UTC),
    modified=datetime(2024, 11, 18, 16, 27, tzinfo=UTC),
    affects=(BODY_PARSER,),
)

# Made-up ids (clearly not real advisories) for the vector flavours.
EXPRESS_V4 = SbomVulnerability(
    id="PKGINTEL-TEST-0001",
    summary="test advisory with a CVSS v4 vector",
    severity="medium",
    cvss_score=5.3,
    cvss_vector="CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:L/VA:N/SC:N/SI:N/SA:N",
    fixed_in=("4.19.2", "5.0.1"),
    affects=(EXPRESS,),
)

EXPRESS_V30 = SbomVulnerability(
    id="PKGINTEL-TEST-0002",
    cvss_vector="CVSS:3.0/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N",
    affects=(EXPRESS, BODY_PARSER),
)

VULNERABILITIES = (BODY_PARSER_DOS, EXPRESS_V4, EXPRESS_V30)
