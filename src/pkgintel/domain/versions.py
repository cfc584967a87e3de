"""
Version ordering per ecosystem (pure).

`sort_key(ecosystem, version)` gives a key that orders versions the way the ecosystem's own tools
do. Every `Ecosystem` maps to one `VersionScheme` (`SCHEME_BY_ECOSYSTEM`):

| scheme | ecosystems | rule |
|---|---|---|
| `pep440` | PyPI | PEP 440, via `packaging.version.Version` |
| `semver` | npm, cargo, hex, swift, jsr | SemVer 2.0 §11 precedence; build metadata ignored; optional `v` |
| `pub` | Pub | SemVer, then build metadata breaks ties (`1.0.0 < 1.0.0+1`), as pub_semver does |
| `julia` | Julia | `VersionNumber`: SemVer with `1`/`1.2` shorthands, build metadata breaks ties |
| `go` | Go | golang.org/x/mod/semver: `v` optional here, `v1`/`v1.2` shorthands, `+incompatible` ignored; pseudo-versions are SemVer pre-releases |
| `maven` | Maven | Maven 3.9 `ComparableVersion` (our implementation; see `MavenVersion`) |
| `nuget` | NuGet | NuGet SemVer: up to 4 numeric parts, case-insensitive labels, build ignored |
| `rubygems` | RubyGems, CocoaPods | `Gem::Version` (CocoaPods' `Pod::Version` builds on it) |
| `composer` | Composer | composer/semver `VersionParser::normalize` + PHP `version_compare` |
| `hackage` | Hackage | PVP: dotted non-negative integers compared as lists (`1.0 < 1.0.0`) |
| `cran` | CRAN | R `package_version`: integers split on `.` and `-`, at least two |
| `cpan` | CPAN | Perl `version.pm`: decimal (`1.23` = v1.230) or dotted-decimal; `_` marks a dev release |
| `conda` | Conda | conda `VersionOrder` (epoch `!`, local `+`, `-` read as `_`, `dev` < letters < numbers < `post`) |
| `homebrew` | Homebrew | Homebrew `Version` tokens (alpha < beta < pre < rc < numbers < patch/post), `_N` revision |

Why our own code rather than univers for some schemes: univers 32 orders Composer `2.4.4-p9`
*before* `2.4.4` and `1.0.0-RC1` before `1.0.0-beta1` (plain SemVer coercion), misses Maven's
`release` alias and its "`.X` is `-X`" rule (`2.0.a < 2-1`), and its object comparisons take
5-15 µs; the tuple keys here compare in well under a microsecond. univers has no class for Conda,
Hackage, CRAN, CPAN, Julia or Homebrew.

Unparseable versions never raise: their key starts with 0, so they sort before every valid
version (they are never "newest"), and `is_valid` reports them. Keys of one scheme are mutually
comparable; keys of different schemes must not be mixed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from enum import StrEnum
from functools import lru_cache
from itertools import zip_longest
from typing import Any

from packaging.version import InvalidVersion, Version

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem

_MAX_VERSION_LENGTH = 256
MAX_VERSION_LENGTH = _MAX_VERSION_LENGTH
"""The longest version string any door accepts (node-semver's limit too); longer ones are invalid."""


class VersionScheme(StrEnum):
    """A version syntax and ordering shared by one or more ecosystems."""

    PEP440 = "pep440"
    SEMVER = "semver"
    PUB = "pub"
    JULIA = "julia"
    GO = "go"
    MAVEN = "maven"
    NUGET = "nuget"
    RUBYGEMS = "rubygems"
    COMPOSER = "composer"
    HACKAGE = "hackage"
    CRAN = "cran"
    CPAN = "cpan"
    CONDA = "conda"
    HOMEBREW = "homebrew"


SCHEME_BY_ECOSYSTEM: dict[Ecosystem, VersionScheme] = {
    Ecosystem.NPM: VersionScheme.SEMVER,
    Ecosystem.PYPI: VersionScheme.PEP440,
    Ecosystem.CARGO: VersionScheme.SEMVER,
    Ecosystem.GO: VersionScheme.GO,
    Ecosystem.MAVEN: VersionScheme.MAVEN,
    Ecosystem.NUGET: VersionScheme.NUGET,
    Ecosystem.RUBYGEMS: VersionScheme.RUBYGEMS,
    Ecosystem.COMPOSER: VersionScheme.COMPOSER,
    Ecosystem.PUB: VersionScheme.PUB,
    Ecosystem.HEX: VersionScheme.SEMVER,
    Ecosystem.SWIFT: VersionScheme.SEMVER,
    Ecosystem.COCOAPODS: VersionScheme.RUBYGEMS,
    Ecosystem.CPAN: VersionScheme.CPAN,
    Ecosystem.HACKAGE: VersionScheme.HACKAGE,
    Ecosystem.CRAN: VersionScheme.CRAN,
    Ecosystem.CONDA: VersionScheme.CONDA,
    Ecosystem.HOMEBREW: VersionScheme.HOMEBREW,
    Ecosystem.JULIA: VersionScheme.JULIA,
    Ecosystem.JSR: VersionScheme.SEMVER,
}
"""The ordering each ecosystem uses (total over `Ecosystem`)."""

SEMVER_FAMILY: frozenset[VersionScheme] = frozenset(
    {VersionScheme.SEMVER, VersionScheme.GO, VersionScheme.PUB, VersionScheme.JULIA}
)
"""Schemes that agree with SemVer 2.0 precedence wherever SemVer orders two versions (they only
refine SemVer's ties, e.g. by build metadata, or accept shorthands)."""


# --------------------------------------------------------------------------------------------
# SemVer 2.0 (npm, cargo, hex, swift, jsr) — the original hand-written key, unchanged.

_SEMVER = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def _semver_idents(pre: str) -> tuple[tuple[int, int | str], ...]:
    # Numeric identifiers sort before alphanumeric ones (SemVer §11.4.3).
    return tuple((0, int(i)) if i.isdigit() else (1, i) for i in pre.split("."))


def _semver_key(version: str) -> tuple[Any, ...]:
    m = _SEMVER.match(version.strip())
    if not m:
        return (0,)
    major, minor, patch, pre = int(m[1]), int(m[2]), int(m[3]), m[4]
    if pre is None:
        # A release sorts after all of its pre-releases (SemVer §11).
        return (1, major, minor, patch, 1, ())
    return (1, major, minor, patch, 0, _semver_idents(pre))


def _pep440_key(version: str) -> tuple[Any, ...]:
    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


# --------------------------------------------------------------------------------------------
# Pub (pub_semver) and Julia (VersionNumber): SemVer refined by build metadata.

_LOOSE_SEMVER = re.compile(
    r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


def _pub_key(version: str) -> tuple[Any, ...]:
    m = _LOOSE_SEMVER.match(version.strip())
    if not m or m[2] is None or m[3] is None or version.strip().startswith("v"):
        return (0, version)
    pre, build = m[4], m[5]
    # pub_semver: a pre-release sorts first; a version with build metadata sorts after the same
    # version without it; identifiers: numbers before strings, shorter list first.
    return (
        1,
        int(m[1]),
        int(m[2]),
        int(m[3]),
        (0, _semver_idents(pre)) if pre is not None else (1, ()),
        (1, _semver_idents(build)) if build is not None else (0, ()),
    )


def _julia_idents(part: str) -> tuple[tuple[int, int | str], ...]:
    # Julia ident_cmp: "" < integers < non-empty strings.
    return tuple(
        (1, int(i)) if i.isdigit() else ((2, i) if i else (0, "")) for i in part.split(".")
    )


def _julia_key(version: str) -> tuple[Any, ...]:
    m = _LOOSE_SEMVER.match(version.strip())
    if not m:
        return (0, version)
    pre, build = m[4], m[5]
    return (
        1,
        int(m[1]),
        int(m[2] or 0),
        int(m[3] or 0),
        (0, _julia_idents(pre)) if pre is not None else (1, ()),
        (1, _julia_idents(build)) if build is not None else (0, ()),
    )


# --------------------------------------------------------------------------------------------
# Go (golang.org/x/mod/semver).

_GO = re.compile(
    r"^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?)?)?$"
)


def _go_key(version: str) -> tuple[Any, ...]:
    m = _GO.match(version.strip())
    if not m:
        return (0, version)
    # `v1` and `v1.2` are shorthands for v1.0.0 / v1.2.0 (no pre-release or build allowed then).
    major, minor, patch, pre = int(m[1]), int(m[2] or 0), int(m[3] or 0), m[4]
    if pre is None:
        return (1, major, minor, patch, 1, ())
    return (1, major, minor, patch, 0, _semver_idents(pre))


# --------------------------------------------------------------------------------------------
# NuGet (NuGet.Versioning).

_NUGET = re.compile(
    r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)


def _nuget_key(version: str) -> tuple[Any, ...]:
    m = _NUGET.match(version.strip())
    if not m:
        return (0, version)
    nums = (int(m[1]), int(m[2] or 0), int(m[3] or 0), int(m[4] or 0))
    pre = m[5]
    if pre is None:
        return (1, nums, 1, ())
    # Labels: numeric ones compare numerically and before alphanumeric ones, which compare
    # case-insensitively; a shorter list of equal labels sorts first.
    labels = tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in pre.split("."))
    return (1, nums, 0, labels)


# --------------------------------------------------------------------------------------------
# RubyGems (Gem::Version) and CocoaPods.

_GEM = re.compile(r"^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")
_GEM_SEGMENT = re.compile(r"[0-9]+|[a-zA-Z]+")
_PAD_END = (1, float("-inf"))


def _gem_segments(version: str) -> list[int | str] | None:
    v = version.strip()
    if not _GEM.match(v):
        return None
    v = v.replace("-", ".pre.")
    segments: list[int | str] = [int(s) if s.isdigit() else s for s in _GEM_SEGMENT.findall(v)]
    # canonical_segments: trailing zeros of the release part and of the pre-release part
    # do not count.
    first_str = next((i for i, s in enumerate(segments) if isinstance(s, str)), len(segments))
    release, prerelease = segments[:first_str], segments[first_str:]
    while release and release[-1] == 0:
        release.pop()
    while prerelease and prerelease[-1] == 0:
        prerelease.pop()
    return release + prerelease


def _zero_padded_key(segments: list[Any]) -> tuple[Any, ...]:
    """
    A tuple key for a segment list compared Gem::Version-style: the shorter list is padded with
    zeros, strings sort before numbers.

    Each zero segment is folded into the next segment as a count `z`, so that tuple comparison
    (which ranks a prefix first) gives the padded comparison: number `n` after `z` zeros →
    `(1, -z, n)`; string `s` → `(0, z, s)`; the end of the list → `(1, -inf)`.
    """
    key: list[Any] = []
    zeros = 0
    for s in segments:
        if s == 0 and not isinstance(s, str):
            zeros += 1
        elif isinstance(s, str):
            key.append((0, zeros, s))
            zeros = 0
        else:
            key.append((1, -zeros, s))
            zeros = 0
    key.append(_PAD_END)
    return tuple(key)


def _rubygems_key(version: str) -> tuple[Any, ...]:
    segments = _gem_segments(version)
    if segments is None:
        return (0, version)
    return (1, _zero_padded_key(segments))


# --------------------------------------------------------------------------------------------
# Composer (composer/semver VersionParser::normalize, then PHP version_compare).

_COMPOSER_MODIFIER = r"[._-]?(?:(stable|beta|b|RC|alpha|a|patch|pl|p)((?:[.-]?\d+)*+)?)?([.-]?dev)?"
_COMPOSER_CLASSICAL = re.compile(
    r"^v?(\d{1,5}+)(\.\d++)?(\.\d++)?(\.\d++)?" + _COMPOSER_MODIFIER + "$", re.IGNORECASE
)
_COMPOSER_DATE = re.compile(
    r"^v?(\d{4}(?:[.:-]?\d{2}){1,6}(?:[.:-]?\d{1,3}){0,2})" + _COMPOSER_MODIFIER + "$",
    re.IGNORECASE,
)
_COMPOSER_BRANCH = re.compile(
    r"^v?(\d++)(\.(?:\d++|[xX*]))?(\.(?:\d++|[xX*]))?(\.(?:\d++|[xX*]))?$", re.IGNORECASE
)
_COMPOSER_STABILITY_FLAG = re.compile(r"@(?:stable|RC|beta|alpha|dev)$", re.IGNORECASE)
_COMPOSER_ALIAS = re.compile(r"^([^,\s]++) ++as ++([^,\s]++)$")
_PHP_SPECIAL = (("dev", 0), ("alpha", 1), ("a", 1), ("beta", 2), ("b", 2), ("RC", 3), ("rc", 3))
_PHP_SPECIAL_POST = (("pl", 5), ("p", 5))


def _composer_stability(mod: str) -> str:
    low = mod.lower()
    return {"a": "alpha", "b": "beta", "p": "patch", "pl": "patch", "rc": "RC"}.get(low, low)


def composer_normalize(version: str) -> str | None:
    """
    Composer's normalised form (`1.2` → `1.2.0.0`, `2.4.4-p9` → `2.4.4.0-patch9`,
    `1.x-dev` → `1.9999999.9999999.9999999-dev`), or None for a branch name or garbage.
    """
    v = version.strip()
    alias = _COMPOSER_ALIAS.match(v)
    if alias:
        v = alias[1]
    flag = _COMPOSER_STABILITY_FLAG.search(v)
    if flag:
        v = v[: flag.start()]
    if v.lower().startswith("dev-") or v in ("master", "trunk", "default"):
        return None
    if "+" in v:
        head, _, tail = v.partition("+")
        if head and tail and not re.search(r"[,\s]", head):
            v = head
    m = _COMPOSER_CLASSICAL.match(v)
    index = 5
    if m:
        out = m[1] + (m[2] or ".0") + (m[3] or ".0") + (m[4] or ".0")
    else:
        m = _COMPOSER_DATE.match(v)
        index = 2
        if m:
            out = re.sub(r"\D", ".", m[1])
    if m:
        if m[index]:
            if m[index] == "stable":
                return out
            out += "-" + _composer_stability(m[index]) + (m[index + 1] or "").lstrip(".-")
        if m[index + 2]:
            out += "-dev"
        return out
    dev = re.match(r"^(.*?)[.-]?dev$", v, re.IGNORECASE)
    if dev:
        b = _COMPOSER_BRANCH.match(dev[1].strip())
        if b:
            parts = "".join((b[i] or ".x").replace("*", "x").replace("X", "x") for i in range(1, 5))
            return parts.replace("x", "9999999") + "-dev"
    return None


def _php_canonical_parts(version: str) -> list[str]:
    # php_canonicalize_version: [-_+] become '.', a '.' goes between a digit and a non-digit,
    # other non-alphanumerics become '.'; then split on '.'.
    def digit(c: str) -> bool:
        return "0" <= c <= "9"

    out: list[str] = [version[:1]]
    prev = version[:1]
    for ch in version[1:]:
        if ch in "-_+":
            if out[-1] != ".":
                out.append(".")
        elif (digit(prev) and not digit(ch) and ch != ".") or (
            not digit(prev) and prev != "." and digit(ch)
        ):
            if out[-1] != ".":
                out.append(".")
            out.append(ch)
        elif not ch.isalnum():
            if out[-1] != ".":
                out.append(".")
        else:
            out.append(ch)
        prev = ch
    return [p for p in "".join(out).split(".") if p]


def _php_special_rank(part: str) -> int:
    # compare_special_version_forms: prefix match against the list, unknown strings lowest.
    for name, order in (*_PHP_SPECIAL, ("#", 4), *_PHP_SPECIAL_POST):
        if part.startswith(name):
            return order
    return -1


def _composer_key(version: str) -> tuple[Any, ...]:
    normalized = composer_normalize(version)
    if normalized is None:
        return (0, version)
    # version_compare: numbers compare numerically and rank as '#' (4) against strings;
    # when one side runs out, its next part is compared with '#', which the end marker
    # (4, -1) reproduces.
    key = tuple(
        (4, int(p)) if p.isdigit() else (_php_special_rank(p), 0)
        for p in _php_canonical_parts(normalized)
    )
    return (1, (*key, (4, -1)))


def _composer_prerelease(version: str) -> bool:
    normalized = composer_normalize(version)
    if normalized is None:
        return version.strip().lower().startswith("dev-")
    return any(s in normalized for s in ("-dev", "-alpha", "-beta", "-RC"))


# --------------------------------------------------------------------------------------------
# Maven (ComparableVersion, Maven 3.9 rules).

_MAVEN_QUALIFIERS = ("alpha", "beta", "milestone", "rc", "snapshot", "", "sp")
_MAVEN_ALIASES = {"ga": "", "final": "", "release": "", "cr": "rc"}
_MAVEN_RELEASE = "5"  # comparable form of the empty qualifier
_MavenItem = int | str | list[Any]


def _maven_qualifier(value: str, followed_by_digit: bool) -> str:
    if followed_by_digit and len(value) == 1:
        value = {"a": "alpha", "b": "beta", "m": "milestone"}.get(value, value)
    value = _MAVEN_ALIASES.get(value, value)
    try:
        return str(_MAVEN_QUALIFIERS.index(value))
    except ValueError:
        return f"{len(_MAVEN_QUALIFIERS)}-{value}"


def _maven_item(is_digit: bool, buf: str) -> int | str:
    return int(buf) if is_digit else _maven_qualifier(buf, False)


def _maven_is_null(item: _MavenItem) -> bool:
    if isinstance(item, list):
        return not item
    if isinstance(item, str):
        return item == _MAVEN_RELEASE
    return item == 0


def _maven_normalize(items: list[Any]) -> None:
    # Remove trailing null items (0, "", empty list), skipping over non-null sub-lists.
    for i in range(len(items) - 1, -1, -1):
        last = items[i]
        if _maven_is_null(last):
            del items[i]
        elif not isinstance(last, list):
            break


def _maven_parse(version: str) -> tuple[Any, ...]:
    v = version.lower()
    root: list[Any] = []
    current = root
    stack = [root]
    is_digit = False
    start = 0

    def push() -> None:
        nonlocal current
        new: list[Any] = []
        current.append(new)
        current = new
        stack.append(new)

    for i, c in enumerate(v):
        if c == ".":
            current.append(0 if i == start else _maven_item(is_digit, v[start:i]))
            start = i + 1
        elif c == "-":
            current.append(0 if i == start else _maven_item(is_digit, v[start:i]))
            start = i + 1
            push()
        elif "0" <= c <= "9":
            if not is_digit and i > start:
                # "1.0.0.X1 < 1.0.0-X2": a qualifier followed by digits starts a sub-list.
                if current:
                    push()
                current.append(_maven_qualifier(v[start:i], True))
                start = i
                push()
            is_digit = True
        else:
            if is_digit and i > start:
                current.append(int(v[start:i]))
                start = i
                push()
            is_digit = False
    if len(v) > start:
        if not is_digit and current:
            push()  # treat ".X" as "-X"
        current.append(_maven_item(is_digit, v[start:]))
    while stack:
        _maven_normalize(stack.pop())
    return _freeze(root)


def _freeze(items: list[Any]) -> tuple[Any, ...]:
    return tuple(_freeze(i) if isinstance(i, list) else i for i in items)


def _maven_cmp(a: Any, b: Any) -> int:
    """ComparableVersion Item.compareTo; `b` may be None (padding)."""
    if isinstance(a, int):
        if b is None:
            return 0 if a == 0 else 1
        if isinstance(b, int):
            return (a > b) - (a < b)
        return 1  # 1.1 > 1-sp, 1.1 > 1-1
    if isinstance(a, str):
        if b is None:
            return (a > _MAVEN_RELEASE) - (a < _MAVEN_RELEASE)
        if isinstance(b, str):
            return (a > b) - (a < b)
        return -1  # 1.any < 1.1, 1.any < 1-1
    # a is a list
    if b is None:
        for item in a:
            r = _maven_cmp(item, None)
            if r:
                return r
        return 0
    if isinstance(b, int):
        return -1  # 1-1 < 1.0.x
    if isinstance(b, str):
        return 1  # 1-1 > 1-sp
    for left, right in zip_longest(a, b):
        r = -_maven_cmp(right, None) if left is None else _maven_cmp(left, right)
        if r:
            return r
    return 0


class _Ordered:
    """A comparable wrapper around a parsed value; subclasses define the three-way `_cmp`."""

    __slots__ = ("parsed",)

    def __init__(self, parsed: Any) -> None:
        self.parsed = parsed

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self._cmp(self.parsed, other.parsed) == 0

    def __lt__(self, other: _Ordered) -> bool:
        return self._cmp(self.parsed, other.parsed) < 0

    def __le__(self, other: _Ordered) -> bool:
        return self._cmp(self.parsed, other.parsed) <= 0

    def __gt__(self, other: _Ordered) -> bool:
        return self._cmp(self.parsed, other.parsed) > 0

    def __ge__(self, other: _Ordered) -> bool:
        return self._cmp(self.parsed, other.parsed) >= 0

    def __hash__(self) -> int:
        # Equal versions may parse to different structures; a constant hash stays consistent.
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.parsed!r})"


class MavenVersion(_Ordered):
    """A parsed Maven version ordered like Maven 3.9 `ComparableVersion`."""

    __slots__ = ()

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        return _maven_cmp(a, b)


def _maven_key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not v or any(c.isspace() for c in v):
        return (0, version)
    return (1, MavenVersion(_maven_parse(v)))


def _maven_prerelease(version: str) -> bool:
    def walk(items: tuple[Any, ...]) -> bool:
        for item in items:
            if isinstance(item, tuple) and walk(item):
                return True
            if isinstance(item, str) and item < _MAVEN_RELEASE:
                return True
        return False

    v = version.strip()
    return bool(v) and walk(_maven_parse(v))


# --------------------------------------------------------------------------------------------
# Hackage (PVP) and CRAN (R package_version).

_HACKAGE = re.compile(r"^\d+(?:\.\d+)*$")
_CRAN = re.compile(r"^\d+(?:[.-]\d+)+$")


def _hackage_key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not _HACKAGE.match(v):
        return (0, version)
    return (1, tuple(int(p) for p in v.split(".")))


def _cran_key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not _CRAN.match(v):
        return (0, version)
    return (1, tuple(int(p) for p in re.split(r"[.-]", v)))


# --------------------------------------------------------------------------------------------
# CPAN (version.pm).

_CPAN_DOTTED = re.compile(r"^(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+(?:\.\d+)*)(?:_\d+)?$")
_CPAN_DECIMAL = re.compile(r"^\d+(?:\.\d*)?(?:_\d+)?$|^\.\d+(?:_\d+)?$")


def _cpan_key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if _CPAN_DOTTED.match(v):
        parts = [int(p) for p in v.lstrip("v").replace("_", "").split(".")]
    elif _CPAN_DECIMAL.match(v):
        whole, _, frac = v.replace("_", "").partition(".")
        frac += "0" * (-len(frac) % 3)
        parts = [int(whole or 0), *(int(frac[i : i + 3]) for i in range(0, len(frac), 3))]
    else:
        return (0, version)
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()  # v1.2 == v1.2.0
    return (1, tuple(parts))


# --------------------------------------------------------------------------------------------
# Conda (conda.models.version.VersionOrder).

_CONDA_VALID = re.compile(r"^[*.+!_0-9a-z]+$")
_CONDA_SPLIT = re.compile(r"([0-9]+|[*]+|[^0-9*]+)")
_CondaPart = int | float | str


def _conda_components(part: str) -> list[list[_CondaPart]] | None:
    if part.endswith("_"):
        pieces = part[:-1].replace("_", ".").split(".")
        pieces[-1] += "_"
    else:
        pieces = part.replace("_", ".").split(".")
    components: list[list[_CondaPart]] = []
    for piece in pieces:
        runs = _CONDA_SPLIT.findall(piece)
        if not runs:
            return None
        comp: list[_CondaPart] = []
        for run in runs:
            if run.isdigit():
                comp.append(int(run))
            elif run == "post":
                comp.append(float("inf"))  # number < post
            elif run == "dev":
                comp.append("DEV")  # '*' < DEV < '_' < 'a' < number (upper case sorts first)
            else:
                comp.append(run)
        components.append(comp if piece[0].isdigit() else [0, *comp])
    return components


def _conda_parse(version: str) -> tuple[list[list[_CondaPart]], list[list[_CondaPart]]] | None:
    v = version.strip().lower().replace("-", "_")
    if not v or not _CONDA_VALID.match(v):
        return None
    epoch_split = v.split("!")
    if len(epoch_split) > 2 or not epoch_split[-1]:
        return None
    epoch = epoch_split[0] if len(epoch_split) == 2 else "0"
    if not epoch.isdigit():
        return None
    local_split = epoch_split[-1].split("+")
    if len(local_split) > 2 or not local_split[0]:
        return None
    main = _conda_components(local_split[0])
    local = _conda_components(local_split[1]) if len(local_split) == 2 else []
    if main is None or local is None:
        return None
    return ([[int(epoch)], *main], local)


def _conda_cmp(a: Any, b: Any) -> int:
    for t1, t2 in zip(a, b, strict=True):
        v1: Any
        v2: Any
        for v1, v2 in zip_longest(t1, t2, fillvalue=[]):
            for c1, c2 in zip_longest(v1, v2, fillvalue=0):
                if c1 == c2:
                    continue
                if isinstance(c1, str):
                    if not isinstance(c2, str):
                        return -1  # strings sort before numbers
                    return -1 if c1 < c2 else 1
                if isinstance(c2, str):
                    return 1
                return -1 if c1 < c2 else 1
    return 0


class CondaVersion(_Ordered):
    """A parsed conda version ordered like conda's `VersionOrder`."""

    __slots__ = ()

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        return _conda_cmp(a, b)


def _conda_key(version: str) -> tuple[Any, ...]:
    parsed = _conda_parse(version)
    if parsed is None:
        return (0, version)
    return (1, CondaVersion(parsed))


_CONDA_PRE = re.compile(r"(?:^|[^a-z])(?:dev|a|alpha|b|beta|rc|c|pre)(?:\d|$|[^a-z])")


# --------------------------------------------------------------------------------------------
# Homebrew (Version tokens).

_BREW_VALID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._+~-]*$")
_BREW_TOKEN = re.compile(r"alpha|beta|pre|rc|patch|post|[a-z]+|\d+")
_BREW_RANK = {
    "alpha": 0,
    "a": 0,
    "beta": 1,
    "b": 1,
    "pre": 2,
    "rc": 3,
    "patch": 6,
    "p": 6,
    "post": 6,
}
# Token ranks: alpha 0 < beta 1 < pre 2 < rc 3 < other strings 4 < numbers 5 < patch/post 6.


def _brew_tokens(version: str) -> list[tuple[int, int | str]]:
    tokens: list[tuple[int, int | str]] = []
    raw = _BREW_TOKEN.findall(version.lower())
    for i, tok in enumerate(raw):
        if tok.isdigit():
            tokens.append((5, int(tok)))
        elif tok in ("a", "b", "p") and not (i + 1 < len(raw) and raw[i + 1].isdigit()):
            tokens.append((4, tok))  # a lone letter is a plain string (e.g. openssl 1.0.2a)
        else:
            tokens.append((_BREW_RANK.get(tok, 4), tok if tok not in _BREW_RANK else 0))
    return tokens


def _brew_vs_padding(token: tuple[int, int | str]) -> int:
    # Padding equals a zero number; pre-release tokens sort below it, strings and
    # patch/post tokens above it.
    rank, value = token
    if rank == 5:
        return 1 if value else 0
    return -1 if rank < 4 else 1


def _brew_cmp(a: Any, b: Any) -> int:
    (ta, reva), (tb, revb) = a, b
    for x, y in zip_longest(ta, tb):
        if x is None:
            r = -_brew_vs_padding(y)
        elif y is None:
            r = _brew_vs_padding(x)
        else:
            r = int(x > y) - int(x < y)
        if r:
            return r
    return int(reva > revb) - int(reva < revb)


class HomebrewVersion(_Ordered):
    """A parsed Homebrew version (tokens plus `_N` revision)."""

    __slots__ = ()

    @staticmethod
    def _cmp(a: Any, b: Any) -> int:
        return _brew_cmp(a, b)


def _homebrew_key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not _BREW_VALID.match(v):
        return (0, version)
    revision = 0
    m = re.match(r"^(.*\d.*)_(\d+)$", v)
    if m:
        v, revision = m[1], int(m[2])
    tokens = _brew_tokens(v)
    if not tokens:
        return (0, version)
    return (1, HomebrewVersion((tokens, revision)))


# --------------------------------------------------------------------------------------------
# Dispatch.

_KEYS: dict[VersionScheme, Callable[[str], tuple[Any, ...]]] = {
    VersionScheme.PEP440: _pep440_key,
    VersionScheme.SEMVER: _semver_key,
    VersionScheme.PUB: _pub_key,
    VersionScheme.JULIA: _julia_key,
    VersionScheme.GO: _go_key,
    VersionScheme.MAVEN: _maven_key,
    VersionScheme.NUGET: _nuget_key,
    VersionScheme.RUBYGEMS: _rubygems_key,
    VersionScheme.COMPOSER: _composer_key,
    VersionScheme.HACKAGE: _hackage_key,
    VersionScheme.CRAN: _cran_key,
    VersionScheme.CPAN: _cpan_key,
    VersionScheme.CONDA: _conda_key,
    VersionScheme.HOMEBREW: _homebrew_key,
}


@lru_cache(maxsize=65536)
def scheme_sort_key(scheme: VersionScheme, version: str) -> tuple[Any, ...]:
    """
    A key ordering `version` under `scheme`; never raises.

    Valid versions give a key whose first element is 1, unparseable ones a key starting with 0
    (so they sort first). Keys are only comparable with keys of the same scheme.
    """
    if len(version) > _MAX_VERSION_LENGTH:
        return (0, version[:_MAX_VERSION_LENGTH])
    try:
        return _KEYS[scheme](version)
    except (ValueError, TypeError, IndexError, OverflowError):  # pragma: no cover - defensive
        return (0, version)


@lru_cache(maxsize=65536)
def sort_key(ecosystem: Ecosystem, version: str) -> tuple[Any, ...]:
    """A key ordering `version` within `ecosystem`; invalid versions sort first. Never raises:
    a version longer than `MAX_VERSION_LENGTH` is invalid (Python refuses to convert more than
    4,300 digits to an int, so such a version must never reach a parser)."""
    if len(version) > _MAX_VERSION_LENGTH:
        return (0, version[:_MAX_VERSION_LENGTH])
    if ecosystem is Ecosystem.PYPI:
        return _pep440_key(version)
    return scheme_sort_key(SCHEME_BY_ECOSYSTEM.get(ecosystem, VersionScheme.SEMVER), version)


def compare(ecosystem: Ecosystem, a: str, b: str) -> int:
    """-1, 0 or 1 as `a` sorts before, equal to, or after `b` in `ecosystem`."""
    ka, kb = sort_key(ecosystem, a), sort_key(ecosystem, b)
    return (ka > kb) - (ka < kb)


def is_valid(ecosystem: Ecosystem, version: str) -> bool:
    """True when `version` parses under the ecosystem's rules."""
    return bool(sort_key(ecosystem, version)[0] == 1)


def is_prerelease(ecosystem: Ecosystem, version: str) -> bool:
    """True for alpha/beta/rc/dev/canary/nightly versions under the ecosystem's rules."""
    if not is_valid(ecosystem, version):
        return False
    if ecosystem is Ecosystem.PYPI:
        return bool(sort_key(ecosystem, version)[1].is_prerelease)
    scheme = SCHEME_BY_ECOSYSTEM.get(ecosystem, VersionScheme.SEMVER)
    v = version.strip()
    if scheme is VersionScheme.SEMVER:
        m = _SEMVER.match(v)
        return bool(m and m[4])
    if scheme in (VersionScheme.PUB, VersionScheme.JULIA):
        m = _LOOSE_SEMVER.match(v)
        return bool(m and m[4] is not None)
    if scheme is VersionScheme.GO:
        m = _GO.match(v)
        return bool(m and m[4])
    if scheme is VersionScheme.NUGET:
        m = _NUGET.match(v)
        return bool(m and m[5])
    if scheme is VersionScheme.RUBYGEMS:
        return any(c.isalpha() for c in v)  # Gem::Version#prerelease?
    if scheme is VersionScheme.COMPOSER:
        return _composer_prerelease(v)
    if scheme is VersionScheme.MAVEN:
        return _maven_prerelease(v)
    if scheme is VersionScheme.CPAN:
        return "_" in v  # a developer (TRIAL) release
    if scheme is VersionScheme.CONDA:
        return bool(_CONDA_PRE.search(v.lower()))
    if scheme is VersionScheme.HOMEBREW:
        return any(rank < 4 for rank, _ in _brew_tokens(v))
    return False  # Hackage, CRAN: no pre-release concept


def validate_version(ecosystem: Ecosystem, version: str) -> str:
    """Return `version` stripped, or raise `InvalidInput` when it is empty, overlong or unparseable."""
    cleaned = version.strip()
    if not cleaned:
        raise InvalidInput("version", "version is empty")
    if len(cleaned) > _MAX_VERSION_LENGTH:
        raise InvalidInput("version", "version is too long")
    if ecosystem in (Ecosystem.PYPI, Ecosystem.NPM) and not is_valid(ecosystem, cleaned):
        scheme = "PEP 440" if ecosystem is Ecosystem.PYPI else "SemVer"
        raise InvalidInput("version", f"{cleaned!r} is not a valid {scheme} version")
    return cleaned


def newest_first(ecosystem: Ecosystem, versions: list[str]) -> list[str]:
    """`versions` ordered newest → oldest by the ecosystem's ordering."""
    return sorted(versions, key=lambda v: sort_key(ecosystem, v), reverse=True)


# --------------------------------------------------------------------------------------------
# Equality: one release, however it is spelled.

_NPM_LOOSE = re.compile(
    r"^[v=\s]*(\d+)\.(\d+)\.(\d+)"
    r"(?:-?((?:\d+|\d*[a-zA-Z-][a-zA-Z0-9-]*)(?:\.(?:\d+|\d*[a-zA-Z-][a-zA-Z0-9-]*))*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)


def npm_clean(version: str) -> str | None:
    """
    The canonical npm spelling of `version` read as npm reads it (node-semver `clean`, loose):
    leading `v`, `=` and spaces dropped, numbers without leading zeros, build metadata dropped
    (`=v1.2.3+b` → `1.2.3`, `1.2.3beta` → `1.2.3-beta`); None when npm cannot read it.
    """
    v = version.strip()
    if len(v) > _MAX_VERSION_LENGTH:
        return None
    m = _NPM_LOOSE.match(v)
    if not m:
        return None
    core = f"{int(m[1])}.{int(m[2])}.{int(m[3])}"
    if m[4] is None:
        return core
    pre = ".".join(str(int(p)) if p.isdigit() else p for p in m[4].split("."))
    return f"{core}-{pre}"


@lru_cache(maxsize=65536)
def equality_key(ecosystem: Ecosystem, version: str) -> tuple[Any, ...]:
    """
    A hashable key that is equal for two spellings of one release in `ecosystem`: the ordering
    key (`sort_key`), after npm's loose reading for npm (`v1.2.3`, `=1.2.3` and `1.2.3` are one
    release). Two versions are the same release iff their keys are equal; PEP 440 equality
    (`2.0` = `2.0.0`, `1.0alpha1` = `1.0a1`, `0!1.0` = `1.0`), NuGet's (`1.0` = `1.0.0.0`, case)
    and every other scheme's follow from their ordering. Unreadable versions compare as
    stripped strings. Never raises.
    """
    v = version.strip()
    if ecosystem is Ecosystem.NPM:
        v = npm_clean(v) or v
    key = sort_key(ecosystem, v)
    return key if key[0] == 1 else (0, v)


def versions_equal(ecosystem: Ecosystem, a: str, b: str) -> bool:
    """True when `a` and `b` name the same release under `ecosystem`'s rules (see `equality_key`)."""
    return a == b or equality_key(ecosystem, a) == equality_key(ecosystem, b)


def find_equal(ecosystem: Ecosystem, version: str, listed: Iterable[str]) -> str | None:
    """The first of `listed` that is the same release as `version`, or None."""
    wanted = equality_key(ecosystem, version)
    for candidate in listed:
        if candidate == version or equality_key(ecosystem, candidate) == wanted:
            return candidate
    return None
