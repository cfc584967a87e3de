"""`classify_license` on licence strings as registries really publish them."""

from __future__ import annotations

import pytest

from pkgintel.scoring import LICENSE_CLASSES, LICENSE_RISKS, classify_license

MIT_TEXT = (
    "Copyright (c) 2015 Someone\n\nPermission is hereby granted, free of charge, to any person "
    'obtaining a copy of this software and associated documentation files (the "Software"), to deal '
    "in the Software without restriction, including without limitation the rights to use, copy, modify..."
)


@pytest.mark.parametrize(
    ("raw", "license_", "risk"),
    [
        ("MIT", "MIT", "permissive"),
        ("(MIT OR Apache-2.0)", "MIT OR Apache-2.0", "permissive"),
        ("Apache-2.0 WITH LLVM-exception", "Apache-2.0 WITH LLVM-exception", "permissive"),
        ("GPL-3.0-or-later", "GPL-3.0-or-later", "strong_copyleft"),
        ("AGPL-3.0", "AGPL-3.0-only", "network_copyleft"),
        ("LGPL-2.1+", "LGPL-2.1-or-later", "weak_copyleft"),
        ("UNLICENSED", "UNLICENSED", "proprietary"),
        ("SEE LICENSE IN LICENSE.md", "SEE LICENSE IN LICENSE.md", "proprietary"),
        ("BSD-3-Clause AND GPL-2.0-only", "BSD-3-Clause AND GPL-2.0-only", "strong_copyleft"),
        (None, None, "unknown"),
        ("", None, "unknown"),
        ("   ", None, "unknown"),
        (MIT_TEXT, MIT_TEXT.strip(), "unknown"),
        # expression semantics
        ("MIT OR GPL-3.0-only", "MIT OR GPL-3.0-only", "permissive"),
        ("GPL-2.0-only OR AGPL-3.0-only", "GPL-2.0-only OR AGPL-3.0-only", "strong_copyleft"),
        (
            "MIT AND (LGPL-2.1-or-later OR BSD-3-Clause)",
            "MIT AND (LGPL-2.1-or-later OR BSD-3-Clause)",
            "permissive",
        ),
        ("MPL-2.0 AND AGPL-3.0-or-later", "MPL-2.0 AND AGPL-3.0-or-later", "network_copyleft"),
        (
            "GPL-2.0-only WITH Classpath-exception-2.0",
            "GPL-2.0-only WITH Classpath-exception-2.0",
            "weak_copyleft",
        ),
        (
            "GPL-3.0-or-later WITH GCC-exception-3.1",
            "GPL-3.0-or-later WITH GCC-exception-3.1",
            "weak_copyleft",
        ),
        ("Apache-2.0 WITH Commons-Clause", "Apache-2.0 WITH Commons-Clause", "proprietary"),
        ("MIT AND Commons Clause", "MIT AND Commons Clause", "proprietary"),
        ("MIT AND LicenseRef-Custom", "MIT AND LicenseRef-Custom", "unknown"),
        ("MIT OR LicenseRef-Custom", "MIT OR LicenseRef-Custom", "permissive"),
        ("mit or apache-2.0", "MIT OR Apache-2.0", "permissive"),
        # non-SPDX spellings seen on registries
        ("MIT License", "MIT", "permissive"),
        ("The MIT License (MIT)", "MIT", "permissive"),
        ("ISC License (ISCL)", "ISC", "permissive"),
        ("GNU General Public License v3 or later (GPLv3+)", "GPL-3.0-or-later", "strong_copyleft"),
        ("GNU Lesser General Public License v3 (LGPLv3)", "LGPL-3.0-only", "weak_copyleft"),
        ("Apache Software License", "Apache Software License", "unknown"),
        ("Apache 2.0", "Apache-2.0", "permissive"),
        ("Apache License 2.0", "Apache-2.0", "permissive"),
        ("Apache License, Version 2.0", "Apache-2.0", "permissive"),
        ("Apache-2", "Apache-2.0", "permissive"),
        ("MIT/Apache-2.0", "MIT OR Apache-2.0", "permissive"),
        ("MIT License OR Apache 2.0", "MIT OR Apache-2.0", "permissive"),
        ("BSD", "BSD", "unknown"),
        ("BSD License", "BSD License", "unknown"),
        ("new BSD", "BSD-3-Clause", "permissive"),
        (
            "GPL",
            "GPL-1.0-or-later",
            "strong_copyleft",
        ),  # an unversioned GPL grant allows any version
        ("LGPL", "LGPL", "unknown"),
        ("Public Domain", "Public Domain", "unknown"),
        ("GPLv3", "GPL-3.0-only", "strong_copyleft"),
        ("GPLv3+", "GPL-3.0-or-later", "strong_copyleft"),
        ("GPL-2.0", "GPL-2.0-only", "strong_copyleft"),
        ("The Unlicense", "Unlicense", "permissive"),
        ("Proprietary", "Proprietary", "proprietary"),
        ("Other/Proprietary License", "Other/Proprietary License", "proprietary"),
        ("BUSL-1.1", "BUSL-1.1", "proprietary"),
        ("SSPL-1.0", "SSPL-1.0", "network_copyleft"),
        ("EPL-2.0", "EPL-2.0", "weak_copyleft"),
        ("CDDL-1.0", "CDDL-1.0", "weak_copyleft"),
        ("Artistic-2.0", "Artistic-2.0", "weak_copyleft"),
        ("Python-2.0", "Python-2.0", "permissive"),
        ("0BSD", "0BSD", "permissive"),
        # garbage
        ("(((", "(((", "unknown"),
        ("MIT OR", "MIT OR", "unknown"),
        ("Foo-1.0", "Foo-1.0", "unknown"),
    ],
)
def test_classify_registry_strings(raw: str | None, license_: str | None, risk: str) -> None:
    assessment = classify_license(raw)
    assert assessment.license == license_
    assert assessment.license_risk == risk


@pytest.mark.parametrize(
    ("risk", "license_class", "commercial_safe", "copyleft"),
    [
        ("permissive", "permissive", True, False),
        ("weak_copyleft", "weak_copyleft", True, True),
        ("strong_copyleft", "strong_copyleft", False, True),
        ("network_copyleft", "strong_copyleft", False, True),
        ("proprietary", "proprietary", False, False),
        ("unknown", "unknown", False, False),
    ],
)
def test_class_and_flags_follow_risk(
    risk: str, license_class: str, commercial_safe: bool, copyleft: bool
) -> None:
    example = {
        "permissive": "ISC",
        "weak_copyleft": "MPL-2.0",
        "strong_copyleft": "GPL-2.0-or-later",
        "network_copyleft": "AGPL-3.0-or-later",
        "proprietary": "UNLICENSED",
        "unknown": "Foo",
    }[risk]
    assessment = classify_license(example)
    assert assessment.license_risk == risk
    assert assessment.license_class == license_class
    assert assessment.commercial_safe is commercial_safe
    assert assessment.copyleft is copyleft
    assert assessment.commercial_use_notes
    assert "\n" not in assessment.commercial_use_notes


def test_class_values_are_the_lookup_classes() -> None:
    assert set(LICENSE_CLASSES) == set(LICENSE_RISKS) - {"network_copyleft"}


def test_a_choice_that_matters_is_noted() -> None:
    assert "choice" in classify_license("MIT OR GPL-3.0-only").commercial_use_notes
    assert "choice" not in classify_license("MIT OR Apache-2.0").commercial_use_notes


def test_no_licence_note_says_no_rights() -> None:
    assert "No licence declared" in classify_license(None).commercial_use_notes
