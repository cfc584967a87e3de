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

_RANGE = (
    "a range or a bare name is reported unresolved with the range as its requirement; the peer "
    "reports its lower bound (or 0.0.0) as if that version were installed"
)
_INCLUDE = (
    "a `-r` include whose file was not sent is one unresolved include entry naming it; the peer "
    "reads the other file from disk (send both files to /api/scan to resolve it)"
)
_UNREADABLE = (
    "a line that is not a valid requirement is kept as an unresolved entry naming its line; the "
    "peer drops it, or reports text that is no version"
)
_KEPT_UNRESOLVED = (
    "an entry without a usable version is kept, unresolved with the reason; the peer drops it"
)

LOCKFILES: dict[str, str] = {
    # -- the peer's own test looks at part of the file only ------------------------------------
    "osv-scanner-v1:npm/nested-dependencies-dup.v1.json": "the peer's test asserts only the "
    "supports-color entries; we return every package of the file, those included",
    # -- ranges and bare names -------------------------------------------------------------------
    "osv-scanner-v1:pip/one-package-unconstrained.txt": _RANGE,
    "osv-scanner-v1:pip/multiple-packages-mixed.txt": _RANGE,
    "osv-scanner-v1:pip/file-format-example.txt": _RANGE + "; and " + _INCLUDE,
    "osv-scanner-v1:pip/with-per-requirement-options.txt": _RANGE,
    "osv-scalibr:python/requirements/with_versions.txt": _RANGE,
    "osv-scalibr:python/requirements/example.txt": _RANGE + "; and " + _INCLUDE,
    # -- includes --------------------------------------------------------------------------------
    "osv-scanner-v1:pip/with-multiple-r-options.txt": _INCLUDE,
    "osv-scanner-v1:pip/duplicate-r-dev.txt": _INCLUDE,
    "osv-scanner-v1:pip/cyclic-r-self.txt": _INCLUDE,
    "osv-scanner-v1:pip/cyclic-r-complex-1.txt": _INCLUDE,
    "osv-scalibr:python/requirements/loop.txt": _INCLUDE,
    "osv-scanner-v1:pip/with-bad-r-option.txt": "the peer fails on an include it cannot open; the "
    "file itself is valid, so we report the include unresolved and audit the rest",
    # -- lines pip would not read as one pinned requirement -------------------------------------
    "osv-scalibr:python/requirements/invalid.txt": _UNREADABLE,
    "osv-scalibr:python/requirements/per_req_options.txt": _UNREADABLE,
    "osv-scalibr:python/requirements/env_var.txt": "`${VAR}` is expanded by pip at install "
    "time from an environment we do not have: the entry is kept unresolved; the peer drops it",
    "osv-scanner-v1:pip/line-continuation.txt": "pip joins `4.5\\\\` + `.6` as `4.5.6` "
    "(join_lines strips every backslash at the ends), the version pip installs; the peer keeps "
    "`4.5\\\\`, which is no version",
    # -- entries without a usable version or name ----------------------------------------------
    "osv-scanner-v1:pipenv/no-version.json": _KEPT_UNRESOLVED,
    "osv-scanner-v1:pnpm/exotic.yaml": _KEPT_UNRESOLVED + " (`github.com/kevva/is-positive`, "
    "`/foo/bar`); every versioned key, registry-host ones included, matches the peer",
    "osv-scanner-v1:pnpm/files.yaml": "a local package without a name is kept, unresolved, named "
    "by its path; the peer drops it",
    "osv-scalibr:php/composerlock/duplicate-packages.json": "`3.0.0-dev` is a development branch, "
    "not a release: kept unresolved (source branch) rather than matched as a version",
    "osv-scalibr:javascript/yarnlock/exclude-root.v2.lock": "the root workspace is kept as an "
    "unresolved workspace entry (never audited); OSV-Scanner v1 keeps it too, SCALIBR drops it",
    "osv-scalibr:ruby/gemfilelock/invalid.lock": "a spec line without a version (`invalid-name`, "
    "which Bundler's parser accepts) and the DEPENDENCIES name with no spec (`ast`) are kept "
    "unresolved with the reason; the peer drops both",
}
"""Lockfile fixtures (by expectation id) where our packages differ from the peer's on purpose
(docs/lockfiles.md gives the evidence for each family)."""

LOCKFILE_DEV_FLAGS: dict[str, str] = {
    # pnpm lockfile v9 dropped the per-package `dev: true` (pnpm/pnpm#7808); which packages are
    # dev-only is stated by the importers' `devDependencies`. OSV-Scanner v1 reads only the old
    # flag, so its empty groups mean "not recorded" here; OSV-SCALIBR#2421 corrects these two.
    "osv-scanner-v1:pnpm/one-package-dev.v9.yaml": "acorn is listed under the only importer's "
    "devDependencies and nowhere else: dev-only; the peer records no group",
    "osv-scanner-v1:pnpm/mixed-groups.v9.yaml": "is-number is reachable only from the importer's "
    "devDependencies: dev-only; the peer records no group",
    # npm: `devOptional` marks a package that is a dev dependency AND an optional dependency of a
    # non-dev package, so `npm install --omit=dev` still installs it: not dev-only.
    "osv-scanner-v1:npm/optional-package.v2.json": "supports-color has `devOptional: true` (needed "
    "in production as an optional dependency): not dev-only; the peer groups it as dev",
    # uv: `[package.optional-dependencies] dev = [...]` is a published extra that happens to be
    # called "dev" (installed by `pkg[dev]`), not a development dependency group.
    "osv-scalibr:python/uvlock/grouped-packages.lock": "black is only in the extras named `dev` "
    "and `test` (optional-dependencies, published with the package), not in a dependency group: "
    "not dev-only; the peer takes the extra's name for a group",
}
"""Fixtures where the packages agree but our dev flag differs from the peer's group on purpose."""

LOCKFILE_NAMES_FROM_UNSENT_FILES = frozenset(
    k for k, v in LOCKFILES.items() if _INCLUDE in v or k.endswith("with-bad-r-option.txt")
)
"""Choices where the peer's extra names come from another file that was not sent."""
