"""
Every row of the peer suites where pkgintel answers differently from the peer ON PURPOSE, with
the reason — the one place these choices are listed (docs/versions.md explains the families).
A row listed here must really differ (the tests fail when a listed row starts to agree), so the
list cannot go stale; a row that differs and is not listed is a defect.
"""

from __future__ import annotations

NODE_SEMVER: dict[str, str] = {}
"""No node-semver row differs. (The three `invalid-versions.js` rows whose input is not a string
— a RegExp, an object — agree by construction: every door takes JSON strings and answers 422 to
anything else, and the parser's signature takes `str` only.)"""

PACKAGING: dict[str, str] = {}
"""No row of the packaging tables we run differs (tables we do not run are listed with the
reason in `PACKAGING_TABLES_NOT_RUN`)."""

PACKAGING_TABLES_NOT_RUN: dict[str, str] = {
    "str_repr": "we never render a Version; normalisation is covered by normalized_versions",
    "is_devrelease": "no door asks whether a version is a dev release (is_prerelease covers it)",
    "is_postrelease": "no door asks whether a version is a post-release",
    "specifier_prereleases_detection": "a Specifier attribute, not a membership answer",
    "specifier_filter": "filter() falls back to pre-releases when nothing else matches; our "
    "callers (pin_safe) decide pre-releases themselves and only ask membership",
    "set_filter": "as specifier_filter",
    "set_filter_exclusionary_bridges": "as specifier_filter",
}

PACKAGING_MODES_NOT_OFFERED = (
    "prereleases=False forced on a specifier or a call, and `installed=True`: pkgintel offers the default "
    "rule and include_prerelease=True only, so rows asking for other modes are not run"
)

LOCKFILES: dict[str, str] = {}
"""Filled in by the lockfile fixture test module (see tests/peer/test_lockfiles.py)."""
