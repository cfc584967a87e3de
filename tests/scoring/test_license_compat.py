"""Licence compatibility verdicts (`scoring.license_compat`), one row per rule of its table."""

from __future__ import annotations

import pytest

from pkgintel.scoring.license_compat import compatibility, copyleft_family


@pytest.mark.parametrize(
    ("dependency", "project", "verdict"),
    [
        ("MIT", "Apache-2.0", "compatible"),
        ("BSD-3-Clause", "LicenseRef-Proprietary", "compatible"),
        ("GPL-3.0-only", "LicenseRef-Proprietary", "incompatible"),
        ("Apache-2.0", "GPL-2.0-only", "incompatible"),
        ("Apache-2.0", "GPL-2.0-or-later", "conditional"),
        ("Apache-2.0", "GPL-3.0-only", "compatible"),
        ("LGPL-2.1-only", "MIT", "conditional"),
        ("MPL-2.0", "Apache-2.0", "conditional"),
        ("EPL-1.0", "GPL-2.0-only", "incompatible"),
        ("GPL-3.0-only", "MIT", "incompatible"),
        ("GPL-2.0-only", "GPL-3.0-only", "incompatible"),
        ("GPL-2.0-or-later", "GPL-3.0-only", "compatible"),
        ("GPL-3.0-only", "GPL-2.0-or-later", "conditional"),
        ("GPL-3.0-only", "AGPL-3.0-only", "compatible"),
        ("AGPL-3.0-only", "MIT", "incompatible"),
        ("AGPL-3.0-only", "GPL-3.0-only", "conditional"),
        ("AGPL-3.0-or-later", "AGPL-3.0-only", "compatible"),
        ("BUSL-1.1", "MIT", "review"),
        ("GPL-3.0-only OR MIT", "Apache-2.0", "compatible"),  # the user may pick MIT
        ("MIT AND GPL-3.0-only", "Apache-2.0", "incompatible"),  # both apply
        ("GPL-2.0-only WITH Classpath-exception-2.0", "Apache-2.0", "conditional"),
        ("MIT", "MIT OR GPL-3.0-only", "compatible"),
        ("GPL-3.0-only", "MIT OR GPL-3.0-only", "compatible"),
    ],
)
def test_verdicts(dependency: str, project: str, verdict: str) -> None:
    got = compatibility(dependency, project)
    assert got.verdict == verdict, got.reason
    assert got.reason


@pytest.mark.parametrize(
    ("dependency", "project"),
    [(None, "MIT"), ("", "MIT"), ("MIT", None), ("Some Custom Thing 1.0 (((", "MIT")],
)
def test_unknown_is_never_compatible(dependency: str | None, project: str | None) -> None:
    assert compatibility(dependency, project).verdict == "unknown"


def test_copyleft_families() -> None:
    assert copyleft_family("LGPL-2.1-or-later") == "LGPL"
    assert copyleft_family("MIT OR GPL-3.0-only") == "GPL"
    assert copyleft_family("AGPL-3.0-only") == "AGPL"
    assert copyleft_family("GPLv3") == "GPL"
    assert copyleft_family("MIT") is None
    assert copyleft_family(None) is None
