"""Package-name rules per ecosystem: validation and normalisation (pure)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.limits import MAX_NAME_CHARS
from pkgintel.domain.packages import Ecosystem

MAX_NAME_LENGTH = MAX_NAME_CHARS
"""npm's limit (`domain/limits.py`); longer names exist nowhere we serve."""

_PEP503 = re.compile(r"[-_.]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL_NAMES = {
    "\n": " (line feed)",
    "\r": " (carriage return)",
    "\t": " (tab)",
    "\x00": " (NUL)",
}
_SURROGATE = re.compile("[\ud800-\udfff]")
_NPM_NAME = re.compile(r"^(?:@[a-z0-9~][a-z0-9._~-]*/)?[a-zA-Z0-9~][a-zA-Z0-9._~-]*$")
_URL_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_SCP_LIKE = re.compile(r"^[\w.-]+@([\w.-]+):(?!//)/?(.+)$")
_PYPI_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
# RubyGems, Composer, Pub, Hex name grammars (see `validate_name`).
_NAME_GRAMMARS: dict[Ecosystem, tuple[re.Pattern[str], str]] = {
    Ecosystem.RUBYGEMS: (
        re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9._-]+$"),
        "a RubyGems name (letters, digits, `.`, `_`, `-`, at least one letter)",
    ),
    Ecosystem.COMPOSER: (
        re.compile(
            r"^[a-z0-9]([_.-]?[a-z0-9]+)*/[a-z0-9](([_.]|-{1,2})?[a-z0-9]+)*$", re.IGNORECASE
        ),
        "a Composer name (`vendor/package`)",
    ),
    Ecosystem.PUB: (
        re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$"),
        "a Pub name (letters, digits and `_`, not starting with a digit)",
    ),
    Ecosystem.HEX: (
        re.compile(r"^[A-Za-z][A-Za-z0-9_]*$"),
        "a Hex name (letters, digits and `_`, starting with a letter)",
    ),
    # Swift, CocoaPods, CPAN
    Ecosystem.SWIFT: (
        re.compile(
            r"^(?!.*(?:^|[/:])\.+(?:/|$))"  # no `.` or `..` path segments
            r"(?:(?:https?|git|ssh)://(?:[\w.-]+@)?[\w.-]+(?::\d+)?/"  # URL: scheme://host/
            r"|[\w.-]+@[\w.-]+:/?"  # scp-like: git@host:
            r"|[\w-]+(?:\.[\w-]+)+/)?"  # host/ without a scheme
            r"[\w.-]+(?:/[\w.-]+)+?(?:\.git)?/?$"  # owner/repo(.git)
        ),
        "a Swift package repository URL (`https://github.com/owner/repo.git`) or `owner/repo`",
    ),
    Ecosystem.COCOAPODS: (
        re.compile(r"^[^\s/'\"\\](?:[^/'\"\\]*[^\s/'\"\\])?$"),
        "a CocoaPods pod name (no quotes, `/` or `\\`, no blanks at either end)",
    ),
    Ecosystem.CPAN: (
        re.compile(r"^[A-Za-z0-9_]+(?:(?:::|-|\.)[A-Za-z0-9_]+)*$"),
        "a CPAN distribution (`Module-Name`) or module (`Module::Name`) name",
    ),
    # Hackage (Cabal package-name), CRAN ("Writing R Extensions" 1.1.1), Conda
    Ecosystem.HACKAGE: (
        re.compile(r"^[0-9]*[A-Za-z][A-Za-z0-9]*(?:-[0-9]*[A-Za-z][A-Za-z0-9]*)*$"),
        "a Hackage name (`-`-separated words of letters and digits, each with a letter)",
    ),
    Ecosystem.CRAN: (
        re.compile(r"^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$"),
        "a CRAN name (letters, digits and `.`, starting with a letter, not ending in `.`)",
    ),
    Ecosystem.CONDA: (
        re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_-]*/)?[A-Za-z0-9_][A-Za-z0-9_.-]*$"),
        "a conda name (`name` or `channel/name`; letters, digits, `_`, `-`, `.`)",
    ),
    # Homebrew (formula, or `cask:` + cask token), Julia (identifier, optional `.jl`), JSR
    Ecosystem.HOMEBREW: (
        re.compile(r"^(?:cask:)?[A-Za-z0-9][A-Za-z0-9+._@-]*$", re.IGNORECASE),
        "a Homebrew formula name, or `cask:` and a cask token",
    ),
    Ecosystem.JULIA: (
        re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.jl)?$"),
        "a Julia package name (an identifier, optionally ending in `.jl`)",
    ),
    Ecosystem.JSR: (
        re.compile(r"^@[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*$"),
        "a JSR name (`@scope/name`, lower-case letters, digits and `-`)",
    ),
}


@functools.lru_cache(maxsize=65_536)
def normalise_name(ecosystem: Ecosystem, name: str) -> str:
    """
    The key under which a name is stored and compared (two names are the same package exactly
    when their keys are equal).

    - PyPI: PEP 503 (`Django_Rest.Framework` → `django-rest-framework`).
    - npm, JSR: unchanged (npm names are case-sensitive, legacy capitals exist; scopes kept).
    - Go: unchanged (module paths are case-sensitive; the proxy escapes capitals instead).
    - Maven: `groupId:artifactId`, unchanged in case (Maven coordinates are case-sensitive);
      surrounding blanks are dropped and a `group/artifact` spelling (as in purls) becomes
      `group:artifact`.
    - cargo: lower case with `_` → `-`; crates.io refuses a new crate whose name equals an
      existing one under exactly this folding, so the key never merges two crates.
    - NuGet, Composer, Conda, Homebrew: lower case (those registries compare ids
      case-insensitively; Packagist and Conda names are lower case anyway). Conda names may
      carry their channel (`bioconda/samtools`); `conda-forge/`, the default, is dropped.
    - Swift (OSV `SwiftURL`): the repository URL without scheme, `.git` suffix or trailing
      slash, lower-cased (`https://github.com/Vapor/vapor.git` → `github.com/vapor/vapor`);
      `git@github.com:Vapor/vapor.git` and the shorthand `Vapor/vapor` give the same key.
    - CPAN: `Module::Name` → `Module-Name` (a module name read as its distribution's); case kept.
    - Julia: a trailing `.jl` is dropped (`HTTP.jl` → `HTTP`); otherwise unchanged.
    - RubyGems, Pub, Hex, CocoaPods, Hackage, CRAN: unchanged (case-sensitive names).
    """
    if ecosystem is Ecosystem.PYPI:
        return _PEP503.sub("-", name).lower()
    if ecosystem is Ecosystem.CARGO:
        return name.lower().replace("_", "-")
    if ecosystem is Ecosystem.CONDA:
        return name.strip().lower().removeprefix("conda-forge/")
    if ecosystem in (Ecosystem.NUGET, Ecosystem.COMPOSER, Ecosystem.HOMEBREW):
        return name.lower()
    if ecosystem is Ecosystem.MAVEN:
        cleaned = name.strip()
        if ":" not in cleaned and cleaned.count("/") == 1:
            cleaned = cleaned.replace("/", ":")
        group, sep, artifact = cleaned.partition(":")
        return f"{group.strip()}{sep}{artifact.strip()}" if sep else cleaned
    if ecosystem is Ecosystem.SWIFT:
        url = name.strip()
        if scp := _SCP_LIKE.match(url):  # git@github.com:owner/repo.git
            url = f"{scp[1]}/{scp[2]}"
        url = _URL_SCHEME.sub("", url).rstrip("/")
        url = url.removesuffix(".git").rstrip("/")
        if url.count("/") == 1 and "." not in url.split("/", 1)[0]:
            url = f"github.com/{url}"  # the `owner/repo` shorthand names a GitHub repository
        return url.lower()
    if ecosystem is Ecosystem.CPAN:
        return name.strip().replace("::", "-")  # module spelling → distribution spelling
    if ecosystem is Ecosystem.JULIA:
        return name.removesuffix(".jl")
    return name


def validate_name(ecosystem: Ecosystem, name: str) -> str:
    """
    Return `name` stripped of blanks, or raise `InvalidInput` when it cannot be a package name of
    `ecosystem`.

    Names holding a control character (a newline too, even at the end: it is refused, not
    stripped) or a lone surrogate, and empty or overlong names are refused for every ecosystem; npm,
    PyPI, RubyGems, Composer, Pub, Hex, Hackage, CRAN and Conda names must also match their registry's grammar (npm legacy
    names with capitals are accepted; Pub legacy mixed-case names such as `Babylon` too; Composer
    and Hex case is not checked since the key or the registry folds it).
    """
    control = _CONTROL.search(name)
    if control:
        char = control.group()
        raise InvalidInput(
            "package",
            f"package name contains the control character U+{ord(char):04X}"
            f"{_CONTROL_NAMES.get(char, '')} at position {control.start()}; "
            "no registry allows control characters in names",
        )
    if _SURROGATE.search(name):
        raise InvalidInput(
            "package", "package name is not valid Unicode (it holds a lone UTF-16 surrogate)"
        )
    cleaned = name.strip()
    if not cleaned:
        raise InvalidInput("package", "package name is empty")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidInput("package", f"package name is longer than {MAX_NAME_LENGTH} characters")
    if ecosystem is Ecosystem.NPM and not _NPM_NAME.match(cleaned):
        raise InvalidInput("package", f"{cleaned!r} is not a valid npm package name")
    if ecosystem is Ecosystem.PYPI and not _PYPI_NAME.match(cleaned):
        raise InvalidInput("package", f"{cleaned!r} is not a valid PyPI project name (PEP 508)")
    grammar = _NAME_GRAMMARS.get(ecosystem)
    if grammar is not None and not grammar[0].match(cleaned):
        raise InvalidInput("package", f"{cleaned!r} is not {grammar[1]}")
    return cleaned


SNAPSHOT_SOURCE_PREFIX = "shipped snapshot"
"""Start of the index source of an ecosystem whose index is the popularity snapshot shipped in the
package (`knowledge.popularity`): a partial index, see `NameIndexState.partial`."""
SNAPSHOT_ROW_SOURCE = "snapshot"
"""`NameEntry.source` of a row loaded from the shipped popularity snapshot."""


@dataclass(frozen=True, slots=True)
class NameEntry:
    """One row of an ecosystem's name index."""

    ecosystem: Ecosystem
    name: str
    """Normalised key (see `normalise_name`)."""
    display_name: str
    latest_version: str | None = None
    monthly_downloads: int | None = None
    popularity_rank: int | None = None
    """1 = most downloaded, when the source ranks packages."""
    summary: str | None = None
    source: str = "ingest"
    """`ingest` (a loaded name list), `snapshot` (the popularity snapshot shipped in the package,
    `SNAPSHOT_ROW_SOURCE`) or `live` (seen by a live report)."""

    @property
    def listed(self) -> bool:
        """From a loaded list (a registry name list or the shipped snapshot), not only a live
        sighting: its popularity, or its absence from a ranking, is known."""
        return self.source in ("ingest", SNAPSHOT_ROW_SOURCE)


@dataclass(frozen=True, slots=True)
class NameIndexState:
    """Whether (and from where) an ecosystem's name index has been loaded."""

    ecosystem: Ecosystem
    source: str
    loaded_at: datetime
    names_count: int

    @property
    def partial(self) -> bool:
        """The index holds only the shipped popularity snapshot (the most popular names): a name
        absent from it may well exist, so absence proves nothing."""
        return self.source.startswith(SNAPSHOT_SOURCE_PREFIX)
