"""
Licence classification: a registry's licence string → an SPDX expression, a risk class and commercial-use notes.

Expressions are parsed with `license-expression` (SPDX licensing). `A OR B` is as permissive as the most
permissive choice (the user may pick it); `A AND B` is as restrictive as the most restrictive part; an exception
(`GPL-2.0-only WITH Classpath-exception-2.0`) relaxes a copyleft licence to weak copyleft. Common non-SPDX
spellings seen on registries are normalised first when they are unambiguous; ambiguous names (`BSD`, `GPL`
without a version) are not guessed. `classify_license` never raises.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

from license_expression import (
    LicenseSymbol,
    LicenseWithExceptionSymbol,
    Licensing,
    get_spdx_licensing,
)

LICENSE_RISKS: Final = (
    "permissive",
    "weak_copyleft",
    "strong_copyleft",
    "network_copyleft",
    "proprietary",
    "unknown",
)
"""Values of `LicenseAssessment.license_risk` (the report's `license_risk`)."""

LICENSE_CLASSES: Final = (
    "permissive",
    "weak_copyleft",
    "strong_copyleft",
    "proprietary",
    "unknown",
)
"""Values of `LicenseAssessment.license_class` (the licence lookup's `class`)."""

# Restrictiveness order for combining parts of an expression; `unknown` is handled apart.
_RANK: Final = {
    "permissive": 0,
    "weak_copyleft": 1,
    "strong_copyleft": 2,
    "network_copyleft": 3,
    "proprietary": 4,
}

_PERMISSIVE: Final = frozenset(
    {
        "0BSD", "AFL-3.0", "Apache-1.1", "Apache-2.0", "BlueOak-1.0.0", "BSD-1-Clause",
        "BSD-2-Clause", "BSD-2-Clause-Patent", "BSD-3-Clause", "BSD-3-Clause-Clear", "BSD-4-Clause",
        "BSL-1.0", "CC-BY-3.0", "CC-BY-4.0", "CC0-1.0", "curl", "ECL-2.0", "HPND", "ICU", "ISC",
        "Libpng", "libpng-2.0", "MIT", "MIT-0", "MIT-CMU", "MulanPSL-2.0", "NCSA", "OpenSSL",
        "PostgreSQL", "PSF-2.0", "Python-2.0", "Python-2.0.1", "Unicode-3.0", "Unicode-DFS-2016",
        "Unlicense", "UPL-1.0", "W3C", "WTFPL", "X11", "Zlib", "zlib-acknowledgement", "ZPL-2.1",
    }
)  # fmt: skip

_WEAK_COPYLEFT: Final = frozenset(
    {
        "APSL-2.0", "Artistic-1.0", "Artistic-1.0-Perl", "Artistic-2.0", "CDDL-1.0", "CDDL-1.1",
        "CECILL-C", "CPL-1.0", "EPL-1.0", "EPL-2.0", "ErlPL-1.1", "LGPL-2.0-only", "LGPL-2.0-or-later",
        "LGPL-2.1-only", "LGPL-2.1-or-later", "LGPL-3.0-only", "LGPL-3.0-or-later", "LGPLLR",
        "MPL-1.0", "MPL-1.1", "MPL-2.0", "MPL-2.0-no-copyleft-exception", "MS-RL", "Ruby",
        # deprecated SPDX ids that carry their exception in the name
        "GPL-2.0-with-autoconf-exception", "GPL-2.0-with-bison-exception",
        "GPL-2.0-with-classpath-exception", "GPL-2.0-with-font-exception",
        "GPL-2.0-with-GCC-exception", "GPL-3.0-with-autoconf-exception", "GPL-3.0-with-GCC-exception",
    }
)  # fmt: skip

_STRONG_COPYLEFT: Final = frozenset(
    {
        "CC-BY-SA-4.0", "CECILL-2.1", "EUPL-1.1", "EUPL-1.2", "GPL-1.0-only", "GPL-1.0-or-later",
        "GPL-2.0-only", "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later", "Sleepycat",
    }
)  # fmt: skip

_NETWORK_COPYLEFT: Final = frozenset(
    {
        "AGPL-1.0-only", "AGPL-1.0-or-later", "AGPL-3.0-only", "AGPL-3.0-or-later", "CPAL-1.0",
        "OSL-3.0", "RPL-1.5", "SSPL-1.0",
    }
)  # fmt: skip

_PROPRIETARY: Final = frozenset(
    {
        "BUSL-1.1", "CC-BY-NC-4.0", "CC-BY-NC-ND-4.0", "CC-BY-NC-SA-4.0", "Elastic-2.0",
        "PolyForm-Noncommercial-1.0.0", "PolyForm-Small-Business-1.0.0",
    }
)  # fmt: skip

_CLASS_OF_ID: Final = {
    **dict.fromkeys(_PERMISSIVE, "permissive"),
    **dict.fromkeys(_WEAK_COPYLEFT, "weak_copyleft"),
    **dict.fromkeys(_STRONG_COPYLEFT, "strong_copyleft"),
    **dict.fromkeys(_NETWORK_COPYLEFT, "network_copyleft"),
    **dict.fromkeys(_PROPRIETARY, "proprietary"),
}

# Free-text markers of proprietary or source-available terms (compared lower-cased, spaces collapsed).
_PROPRIETARY_WORDS: Final = frozenset(
    {
        "unlicensed", "proprietary", "commercial", "other/proprietary", "all rights reserved",
        "commons clause", "commons-clause", "licenseref-commons-clause", "private",
    }
)  # fmt: skip

# Non-SPDX spellings seen on registries → SPDX id. Keys are lower-cased with spaces collapsed, a leading
# "the " and a trailing " license"/" licence" removed (see `_alias_key`). Only unambiguous names belong here:
# "BSD", "GPL" or "Apache Software License" without a version are deliberately absent.
_ALIASES: Final = {
    "mit": "MIT", "expat": "MIT", "mit-0": "MIT-0",
    "apache 2": "Apache-2.0", "apache 2.0": "Apache-2.0", "apache-2": "Apache-2.0",
    "apache2": "Apache-2.0", "apache v2": "Apache-2.0", "apache license 2.0": "Apache-2.0",
    "apache license v2": "Apache-2.0", "apache license version 2.0": "Apache-2.0",
    "apache license, version 2.0": "Apache-2.0", "apache software license 2.0": "Apache-2.0",
    "apache software license, version 2.0": "Apache-2.0", "asl 2.0": "Apache-2.0",
    "bsd 2-clause": "BSD-2-Clause", "bsd-2": "BSD-2-Clause", "2-clause bsd": "BSD-2-Clause",
    "simplified bsd": "BSD-2-Clause", "freebsd": "BSD-2-Clause",
    "bsd 3-clause": "BSD-3-Clause", "bsd-3": "BSD-3-Clause", "3-clause bsd": "BSD-3-Clause",
    "new bsd": "BSD-3-Clause", "modified bsd": "BSD-3-Clause", "revised bsd": "BSD-3-Clause",
    "isc": "ISC", "zlib": "Zlib", "wtfpl": "WTFPL", "unlicense": "Unlicense",
    "cc0": "CC0-1.0", "cc0 1.0": "CC0-1.0", "cc0 1.0 universal": "CC0-1.0",
    "boost": "BSL-1.0", "boost software license 1.0": "BSL-1.0", "boost 1.0": "BSL-1.0",
    "psf": "PSF-2.0", "python software foundation": "PSF-2.0", "psfl": "PSF-2.0",
    "mpl 2.0": "MPL-2.0", "mpl2": "MPL-2.0", "mpl-2": "MPL-2.0", "mpl v2": "MPL-2.0",
    "mozilla public license 2.0": "MPL-2.0", "mozilla public license, version 2.0": "MPL-2.0",
    "epl 1.0": "EPL-1.0", "epl 2.0": "EPL-2.0", "eclipse public license 2.0": "EPL-2.0",
    "eclipse public license - v 2.0": "EPL-2.0", "eclipse public license 1.0": "EPL-1.0",
    # A bare version ("GPLv3") is read as "-only": we never assume an "or later" grant nobody wrote.
    "gplv2": "GPL-2.0-only", "gpl v2": "GPL-2.0-only", "gpl2": "GPL-2.0-only",
    "gplv2+": "GPL-2.0-or-later", "gpl v2+": "GPL-2.0-or-later",
    "gplv3": "GPL-3.0-only", "gpl v3": "GPL-3.0-only", "gpl3": "GPL-3.0-only", "gpl-3": "GPL-3.0-only",
    "gplv3+": "GPL-3.0-or-later", "gpl v3+": "GPL-3.0-or-later",
    "lgplv2.1": "LGPL-2.1-only", "lgplv2.1+": "LGPL-2.1-or-later",
    "lgplv3": "LGPL-3.0-only", "lgpl v3": "LGPL-3.0-only", "lgplv3+": "LGPL-3.0-or-later",
    "agplv3": "AGPL-3.0-only", "agpl v3": "AGPL-3.0-only", "agplv3+": "AGPL-3.0-or-later",
    "gnu gpl v2": "GPL-2.0-only", "gnu gpl v3": "GPL-3.0-only",
    # PyPI trove classifier names (the trailing abbreviation is dropped by `_alias_key`)
    "gnu general public license v2": "GPL-2.0-only",
    "gnu general public license v2 or later": "GPL-2.0-or-later",
    "gnu general public license v3": "GPL-3.0-only",
    "gnu general public license v3 or later": "GPL-3.0-or-later",
    "gnu lesser general public license v2": "LGPL-2.0-only",
    "gnu lesser general public license v2 or later": "LGPL-2.0-or-later",
    "gnu lesser general public license v3": "LGPL-3.0-only",
    "gnu lesser general public license v3 or later": "LGPL-3.0-or-later",
    "gnu affero general public license v3": "AGPL-3.0-only",
    "gnu affero general public license v3 or later": "AGPL-3.0-or-later",
}  # fmt: skip

_NOTES: Final = {
    "permissive": "Permissive: commercial use is fine; keep the copyright and licence notices.",
    "weak_copyleft": (
        "Weak copyleft: usable in commercial products as a separate, unmodified library; "
        "changes to its own files must be shared under the same licence."
    ),
    "strong_copyleft": (
        "Strong copyleft: distributing software that includes it means releasing your code under "
        "the same licence; get legal review before commercial use."
    ),
    "network_copyleft": (
        "Network copyleft: even offering it as a network service obliges you to release your source; "
        "avoid in proprietary products and SaaS without legal review."
    ),
    "proprietary": (
        "Proprietary or custom terms: read the licence; commercial use may need the owner's permission."
    ),
    "unknown": "Unknown licence: check the licence text before use; no rights can be assumed.",
}

_NO_LICENSE_NOTE: Final = "No licence declared: without one, no rights to use or redistribute are granted; ask the author."
_CHOICE_NOTE: Final = (
    " (Offered under a choice of licences; this assumes you pick the most permissive.)"
)

_SEE_LICENSE = re.compile(r"^see licen[sc]e in\b", re.IGNORECASE)
_SLASH_LIST = re.compile(r"^[A-Za-z0-9.+-]+(?:\s*/\s*[A-Za-z0-9.+-]+)+$")
_OPERATOR_SPLIT = re.compile(r"(\(|\)|\s+(?:AND|OR|WITH|and|or|with)\s+)")
_TRAILING_ABBREVIATION = re.compile(r"\s*\([^()\s]+\)$")
_MAX_RAW = 100_000


@dataclass(frozen=True, slots=True)
class LicenseAssessment:
    """What a licence means for someone who wants to use the package."""

    license: str | None
    """Normalised SPDX expression; the stripped raw string when it cannot be parsed; None when absent."""
    license_risk: str
    """One of `LICENSE_RISKS`."""
    license_class: str
    """One of `LICENSE_CLASSES`: the risk with `network_copyleft` counted as `strong_copyleft`."""
    commercial_safe: bool
    """True for permissive and weak-copyleft licences (the latter with the obligations in the notes)."""
    copyleft: bool
    commercial_use_notes: str
    """One line of guidance."""


def classify_license(expression: str | None) -> LicenseAssessment:
    """
    Classify a licence string as a registry states it (an SPDX expression or common free text).

    Returns an assessment whose `license_risk` is `unknown` for absent, unrecognised or unparseable input.
    Never raises.
    """
    raw = (expression or "").strip()
    if not raw:
        return _assessment(None, "unknown", note=_NO_LICENSE_NOTE)
    if len(raw) > _MAX_RAW:
        raw = raw[:_MAX_RAW]
    if _SEE_LICENSE.match(raw) or _alias_key(raw) in _PROPRIETARY_WORDS:
        return _assessment(raw, "proprietary")
    try:
        parsed = _licensing().parse(_normalise(raw))
    except Exception:  # the library raises many types; any failure means "unparseable"
        return _assessment(raw, "unknown")
    if parsed is None:
        return _assessment(raw, "unknown")
    try:
        risk = _risk(parsed, pick_permissive=True)
        strictest = _risk(parsed, pick_permissive=False)
        rendered = str(parsed.render())
    except Exception:  # a tree shape we do not expect is reported as unknown
        return _assessment(raw, "unknown")
    note = _NOTES[risk] + (_CHOICE_NOTE if strictest != risk and risk != "unknown" else "")
    return _assessment(rendered, risk, note=note)


def _assessment(license_: str | None, risk: str, *, note: str | None = None) -> LicenseAssessment:
    return LicenseAssessment(
        license=license_,
        license_risk=risk,
        license_class="strong_copyleft" if risk == "network_copyleft" else risk,
        commercial_safe=risk in ("permissive", "weak_copyleft"),
        copyleft=risk in ("weak_copyleft", "strong_copyleft", "network_copyleft"),
        commercial_use_notes=note or _NOTES[risk],
    )


@functools.cache
def _licensing() -> Licensing:
    return get_spdx_licensing()


def _alias_key(term: str) -> str:
    key = re.sub(r"\s+", " ", term).strip().lower()
    while key.startswith("(") and key.endswith(")"):
        key = key[1:-1].strip()
    key = key.removeprefix("the ")
    key = _TRAILING_ABBREVIATION.sub("", key) or key  # "MIT License (MIT)", "... v3 (GPLv3)"
    for suffix in (" license", " licence"):
        if key.endswith(suffix) and len(key) > len(suffix):
            key = key[: -len(suffix)]
    return key


def _normalise(raw: str) -> str:
    """Rewrite known non-SPDX spellings (whole string or per term) so the SPDX parser can read them."""
    whole = _ALIASES.get(_alias_key(raw))
    if whole:
        return whole
    if _SLASH_LIST.match(raw):  # crates.io's older "MIT/Apache-2.0" means a choice
        raw = re.sub(r"\s*/\s*", " OR ", raw)
    parts = _OPERATOR_SPLIT.split(raw)
    return "".join(_ALIASES.get(_alias_key(part), part) if part.strip() else part for part in parts)


def _risk(node: object, *, pick_permissive: bool) -> str:
    """
    Risk of a parsed expression. `OR` alternatives resolve to the most permissive one when `pick_permissive`
    (the answer), else to the strictest (only used to tell whether the choice mattered).
    """
    licensing = _licensing()
    if isinstance(node, LicenseWithExceptionSymbol):
        exception = _alias_key(str(node.exception_symbol.key))
        if exception in _PROPRIETARY_WORDS:
            return "proprietary"
        base = _risk_of_id(str(node.license_symbol.key))
        return "weak_copyleft" if base in ("strong_copyleft", "network_copyleft") else base
    if isinstance(node, LicenseSymbol):
        return _risk_of_id(str(node.key))
    parts = [_risk(arg, pick_permissive=pick_permissive) for arg in getattr(node, "args", ())]
    if not parts:
        return "unknown"
    if isinstance(node, licensing.OR):
        known = [part for part in parts if part != "unknown"]
        if not known:
            return "unknown"
        choose = min if pick_permissive else max
        return choose(known, key=_RANK.__getitem__)
    if isinstance(node, licensing.AND):
        if "proprietary" in parts:
            return "proprietary"
        if "unknown" in parts:
            return "unknown"
        return max(parts, key=_RANK.__getitem__)
    return "unknown"


def _risk_of_id(identifier: str) -> str:
    known = _CLASS_OF_ID.get(identifier)
    if known:
        return known
    key = _alias_key(identifier)
    if key in _PROPRIETARY_WORDS or "proprietary" in key or _SEE_LICENSE.match(key):
        return "proprietary"
    return "unknown"
