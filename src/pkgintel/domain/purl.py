"""
Package URLs (purl): the mapping between our `Ecosystem` values and purl types, and purl building/reading.

Specification: https://github.com/package-url/purl-spec (PURL-SPECIFICATION.rst and PURL-TYPES.rst).
Strings are built and parsed with packageurl-python, so quoting and the per-type normalisations of that
library apply (npm, PyPI, Composer, Hex and Pub names lower-cased; `@` of an npm scope encoded as `%40`).

How a package name of each ecosystem is split into purl `namespace` / `name` (/ `subpath`):

| ecosystem  | purl type   | split |
|------------|-------------|-------|
| npm        | `npm`       | `@scope/name` → namespace `@scope` |
| pypi       | `pypi`      | name PEP 503-normalised (`Django_Rest.Framework` → `django-rest-framework`) |
| cargo      | `cargo`     | name only |
| go         | `golang`    | module path: namespace = all but the last segment (`github.com/a/b/v2` → `github.com/a/b` + `v2`) |
| maven      | `maven`     | `group:artifact` → namespace `group` |
| nuget      | `nuget`     | name only (case kept; NuGet compares case-insensitively) |
| rubygems   | `gem`       | name only |
| composer   | `composer`  | `vendor/package` → namespace `vendor` |
| pub        | `pub`       | name only |
| hex        | `hex`       | name only |
| swift      | `swift`     | `github.com/owner/repo` → namespace `github.com/owner` |
| cocoapods  | `cocoapods` | `Pod/Subspec` → name `Pod`, subpath `Subspec` |
| cpan       | `cpan`      | name only (the distribution or module name as given) |
| hackage    | `hackage`   | name only |
| cran       | `cran`      | name only |
| conda      | `conda`     | name only (channel, when known, belongs in the `channel` qualifier) |
| homebrew   | `brew`      | **not an official purl type** (see `UNOFFICIAL_PURL_TYPES`) |
| julia      | `julia`     | **not in the official type list we target**; name only (`uuid` qualifier when known) |
| jsr        | `jsr`       | **not an official purl type**; `@scope/name` → namespace `@scope`, like npm |

The three unofficial types are what the purl community has proposed or used for these registries; tools
that validate against the official list may reject them, so callers exporting SBOMs may want to drop them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from packageurl import PackageURL

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem, PackageRef

PURL_TYPES: Final[Mapping[Ecosystem, str]] = MappingProxyType(
    {
        Ecosystem.NPM: "npm",
        Ecosystem.PYPI: "pypi",
        Ecosystem.CARGO: "cargo",
        Ecosystem.GO: "golang",
        Ecosystem.MAVEN: "maven",
        Ecosystem.NUGET: "nuget",
        Ecosystem.RUBYGEMS: "gem",
        Ecosystem.COMPOSER: "composer",
        Ecosystem.PUB: "pub",
        Ecosystem.HEX: "hex",
        Ecosystem.SWIFT: "swift",
        Ecosystem.COCOAPODS: "cocoapods",
        Ecosystem.CPAN: "cpan",
        Ecosystem.HACKAGE: "hackage",
        Ecosystem.CRAN: "cran",
        Ecosystem.CONDA: "conda",
        Ecosystem.HOMEBREW: "brew",
        Ecosystem.JULIA: "julia",
        Ecosystem.JSR: "jsr",
    }
)
"""Every `Ecosystem` → its purl type."""

MAX_PURL_CHARS: Final = 1024
"""The longest purl a caller may send (a Maven group, artifact and version fit many times over)."""

UNOFFICIAL_PURL_TYPES: Final[frozenset[str]] = frozenset({"brew", "julia", "jsr"})
"""Types we emit that are not (yet) in the official purl-spec type list."""

_ECOSYSTEM_BY_TYPE: Final[Mapping[str, Ecosystem]] = MappingProxyType(
    {purl_type: eco for eco, purl_type in PURL_TYPES.items()}
)


def purl_type(ecosystem: Ecosystem) -> str:
    """The purl type of `ecosystem` (e.g. `go` → `golang`, `rubygems` → `gem`)."""
    return PURL_TYPES[ecosystem]


def ecosystem_for_purl_type(purl_type: str) -> Ecosystem | None:
    """The ecosystem whose purl type is `purl_type` (case-insensitive), or None when we serve none."""
    return _ECOSYSTEM_BY_TYPE.get(purl_type.strip().lower())


def _split(ecosystem: Ecosystem, name: str) -> tuple[str | None, str, str | None]:
    """(namespace, name, subpath) of a package name, per the table in the module docstring."""
    if ecosystem in (Ecosystem.NPM, Ecosystem.JSR) and name.startswith("@") and "/" in name:
        scope, _, rest = name.partition("/")
        return scope, rest, None
    if ecosystem in (Ecosystem.GO, Ecosystem.SWIFT, Ecosystem.COMPOSER) and "/" in name:
        namespace, _, last = name.rpartition("/")
        return namespace, last, None
    if ecosystem is Ecosystem.MAVEN and ":" in name:
        group, _, artifact = name.partition(":")
        return group, artifact, None
    if ecosystem is Ecosystem.COCOAPODS and "/" in name:
        pod, _, subspec = name.partition("/")
        return None, pod, subspec
    if ecosystem is Ecosystem.PYPI:
        return None, normalise_name(Ecosystem.PYPI, name), None
    return None, name, None


def build_purl(
    ecosystem: Ecosystem,
    name: str,
    version: str | None = None,
    *,
    qualifiers: Mapping[str, str] | None = None,
) -> str:
    """
    The canonical purl string of a package (and version, when given).

    Raises `InvalidInput` when the name is empty or cannot form a purl (e.g. `@scope/` with no name).
    """
    cleaned = name.strip()
    if not cleaned:
        raise InvalidInput("package", "package name is empty")
    namespace, purl_name, subpath = _split(ecosystem, cleaned)
    if ecosystem is Ecosystem.CONDA and "/" in purl_name:
        # purl-spec: a conda channel is the `channel` qualifier (`bioconda/samtools` →
        # `pkg:conda/samtools?channel=bioconda`).
        channel, _, purl_name = purl_name.partition("/")
        qualifiers = {**(qualifiers or {}), "channel": channel}
    if not purl_name:
        raise InvalidInput("package", f"{name!r} has no package name part")
    try:
        url = PackageURL(
            type=PURL_TYPES[ecosystem],
            namespace=namespace or None,
            name=purl_name,
            version=version or None,
            qualifiers=dict(qualifiers) if qualifiers else None,
            subpath=subpath,
        )
    except ValueError as exc:
        raise InvalidInput("package", f"cannot build a package URL for {name!r}: {exc}") from exc
    return url.to_string()


def purl_of(ecosystem: Ecosystem, name: str, version: str | None = None) -> str | None:
    """
    `build_purl` for an answer's `purl` field: None when the name cannot form a purl, so an answer
    never fails because of it.
    """
    try:
        return build_purl(ecosystem, name, version)
    except InvalidInput:
        return None


def parse_purl(purl: str) -> PackageRef:
    """
    The `PackageRef` a purl designates (name joined back from namespace/name as our ecosystems write it).

    Raises `InvalidInput` for malformed purls and for types we do not serve.
    """
    try:
        url = PackageURL.from_string(purl.strip())
    except ValueError as exc:
        raise InvalidInput("purl", f"not a valid package URL: {exc}") from exc
    ecosystem = ecosystem_for_purl_type(url.type)
    if ecosystem is None:
        raise InvalidInput(
            "purl",
            f"package URL type {url.type!r} is not one this service answers for; "
            f"types: {', '.join(PURL_TYPES.values())}",
        )
    name = url.name
    if url.namespace:
        separator = ":" if ecosystem is Ecosystem.MAVEN else "/"
        name = f"{url.namespace}{separator}{url.name}"
    if ecosystem is Ecosystem.COCOAPODS and url.subpath:
        name = f"{name}/{url.subpath}"
    channel = (url.qualifiers or {}).get("channel") if ecosystem is Ecosystem.CONDA else None
    if channel and channel != "conda-forge" and "/" not in name:
        name = f"{channel}/{name}"
    return PackageRef(ecosystem=ecosystem, name=name, version=url.version or None)


def purl_target(purl: str, version: str | None, *, takes_version: bool, answer: str) -> PackageRef:
    """
    The package (and version) a caller named with `purl`, for an answer (`answer`, e.g.
    `GET /api/latest/{ecosystem}/{package}` or the MCP tool `get_latest_version`) that takes a
    `version` argument or not. The purl's version is the version asked for; a `version` given as
    well must be the same. Raises `InvalidInput`: `purl` when it is unreadable, of a type served by
    no ecosystem here, or carries a version that `answer` cannot take (it answers for the package
    as a whole or for its latest release, which is not what was asked); `version` on a conflict.
    """
    ref = parse_purl(purl)
    if ref.version is None:
        return PackageRef(ref.ecosystem, ref.name, version)
    if not takes_version:
        raise InvalidInput(
            "purl",
            f"{answer} does not answer for one version; give the package URL without "
            f"`@{ref.version}` (the full report, GET /api/check?purl=, answers for a version)",
        )
    if version is not None and version != ref.version:
        raise InvalidInput(
            "version",
            f"version {version!r} differs from the package URL's version {ref.version!r}; give one",
        )
    return ref
